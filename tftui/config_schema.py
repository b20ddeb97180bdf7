"""The settings tftui knows: each key's expected type, and how env strings become values.

Used by `tftui.config` to check merged values and to read `TFTUI_*` variables.
"""

from __future__ import annotations

import tomllib
from typing import Any

Path_ = tuple[str, ...]

# Expected type per key, `*` matching any one name. Used to check values and to read env strings.
SCHEMA: dict[Path_, str] = {
    ("default_provider",): "str",
    ("providers",): "table",
    ("providers", "*"): "table",
    ("providers", "*", "base_url"): "str",
    ("providers", "*", "model"): "str",
    ("providers", "*", "api_key_env"): "str",
    ("providers", "*", "api_key_header"): "str",
    ("providers", "*", "headers"): "table",
    ("providers", "*", "headers", "*"): "str",
    ("providers", "*", "timeout_s"): "number",
    ("providers", "*", "prices"): "table",
    ("providers", "*", "stream"): "bool",
    ("providers", "*", "params"): "table",
    ("agent_cmd",): "command",
    ("agent_cmd", "argv"): "argv",
    ("agent_cmd", "timeout_s"): "number",
    ("agent_cmd", "prepend_system"): "bool",
    ("commands",): "table",
    ("commands", "*"): "command",
    ("commands", "*", "argv"): "argv",
    ("commands", "*", "timeout_s"): "number",
    ("commands", "*", "prepend_system"): "bool",
    ("ui",): "table",
    ("ui", "theme"): "str",
    ("ui", "ascii"): "bool",
    ("ui", "animations"): "bool",
    ("keys",): "table",
    ("keys", "*"): "str",
}
OPEN_SUBTREES = {("providers", "*", "prices"), ("providers", "*", "params")}  # free-form below


def schema_type(path: Path_) -> str | None:
    for pattern, kind in SCHEMA.items():
        if matches(path, pattern):
            return kind
    return None


def is_open(path: Path_) -> bool:
    """True at and below a free-form table (prices, params): merged and shown as one value."""
    return any(len(path) >= len(o) and matches(path[: len(o)], o) for o in OPEN_SUBTREES)


def matches(path: Path_, pattern: Path_) -> bool:
    return len(path) == len(pattern) and all(a in ("*", b) for a, b in zip(pattern, path, strict=True))


def env_path(name: str) -> Path_ | None:
    if not name.startswith("TFTUI_"):
        return None
    rest = name[len("TFTUI_"):]
    if rest == "PROVIDER":
        return ("default_provider",)
    path = tuple(part.lower() for part in rest.split("__"))
    if not all(path) or schema_type(path) is None:
        return None  # not a setting (e.g. TFTUI_NODE_PATH given to agent commands)
    return path


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def coerce_env(path: Path_, raw: str) -> Any:
    kind = schema_type(path)
    text = raw.strip()
    if kind == "bool" and text.lower() in _TRUE | _FALSE:
        return text.lower() in _TRUE
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            return raw  # validation names the bad value
    if kind in ("table", "argv") and text[:1] in "[{":
        try:
            return tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            return raw
    return raw


def type_problem(kind: str, value: Any) -> str | None:
    if kind == "str" and not isinstance(value, str):
        return "expected a string"
    if kind == "bool" and not isinstance(value, bool):
        return "expected true or false"
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
        return "expected a number > 0"
    if kind in ("table", "command") and not isinstance(value, dict):
        return "expected a table"
    if kind == "argv" and (not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value)):
        return "expected a non-empty list of strings (the command's argv)"
    return None
