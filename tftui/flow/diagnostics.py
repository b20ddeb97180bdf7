"""Diagnostics: one problem found in a flow file, with where it is and how bad it is.

Checks and the loader create diagnostics with a JSON path (`("phases", 2, "dependsOn")`);
the loader then attaches the 1-based line:col of that path in the source text.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Literal

from tftui.lang.values import JSONObject, JSONValue

Severity = Literal["error", "warning"]
JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    message: str
    line: int | None = None
    col: int | None = None
    phase_id: str | None = None
    field: str | None = None
    path: JsonPath = ()
    # Point at the key of the last path element rather than its value (unknown keys).
    at_key: bool = False
    # For a string value: point at this character of the string (a guard's syntax error).
    char: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def json_path(self) -> str:
        return format_path(self.path)

    def located(self, line: int | None, col: int | None) -> Diagnostic:
        return replace(self, line=line, col=col)

    def format(self, filename: str | None = None) -> str:
        """`path:line:col: error: message [phase-id]` (compiler style, clickable in editors)."""
        where = filename or "<flow>"
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        suffix = f" [{self.phase_id}]" if self.phase_id else ""
        return f"{where}: {self.severity}: {self.message}{suffix}"

    def to_dict(self) -> JSONObject:
        data = asdict(self)
        data["path"] = self.json_path
        del data["at_key"]
        del data["char"]
        return data


def format_path(path: Sequence[str | int]) -> str:
    """`("phases", 2, "retry", "max")` -> `$.phases[2].retry.max`."""
    out = "$"
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f".{step}"
    return out


def dotted(path: Sequence[str | int]) -> str:
    """A field path as a person writes it: `retry.max`, `branches[1].task`."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out


_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def named_path(message: str, root: str) -> JsonPath | None:
    """The path a message names before its first `: `, below `root`:
    `score.scorers[1].min: must be …` with root `score` -> `("scorers", 1, "min")`.
    None when the message does not start with such a path."""
    head = message.split(": ", 1)[0]
    if not head.startswith(root):
        return None
    rest = head[len(root) :]
    steps: list[str | int] = []
    pos = 0
    for match in _PATH_STEP.finditer(rest):
        if match.start() != pos:
            return None
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        pos = match.end()
    return tuple(steps) if pos == len(rest) else None


def existing_prefix(value: JSONValue, path: JsonPath) -> JsonPath:
    """The longest prefix of `path` that exists in the parsed `value`."""
    for i, step in enumerate(path):
        if isinstance(value, dict) and isinstance(step, str) and step in value:
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            return tuple(path[:i])
    return tuple(path)


def json_type(value: object) -> str:
    """The JSON type name of a parsed value, as a person would say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "non-finite number"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """The closest known name for a misspelt key, or None."""
    known = list(known)
    lowered = {k.lower(): k for k in known}
    if name.lower() in lowered:
        return lowered[name.lower()]
    stripped = name.replace("_", "").replace("-", "").lower()
    for k in known:
        if k.lower() == stripped:
            return k
    matches = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    if matches:
        return matches[0]
    # two swapped neighbours (`lwo` -> `low`): too short for the ratio above to see
    return next((k for k in known if _swapped(name, k)), None)


def _swapped(a: str, b: str) -> bool:
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def suggestion(name: str, known: Iterable[str]) -> str:
    guess = did_you_mean(name, known)
    return f" — did you mean '{guess}'?" if guess else ""


def count(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for d in diagnostics:
        if d.is_error:
            errors += 1
        else:
            warnings += 1
    return errors, warnings
