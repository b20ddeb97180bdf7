"""User key remapping and the few UI settings the TUI persists (theme).

Reads `[keys]` (verb id -> key) and `[ui] theme` from the user's config.toml. When
the settings module (`tftui.config`) exists it decides the path; otherwise the file
is `$XDG_CONFIG_HOME/tftui/config.toml` (default `~/.config/tftui/config.toml`).
Reading never raises on a bad file: the problems come back as messages.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from tftui.config_schema import key_clash_message, key_clashes
from tftui.tui.actions import VERBS_BY_ID


def config_path() -> Path:
    explicit = os.environ.get("TFTUI_CONFIG")
    if explicit:
        return Path(explicit)
    try:
        from tftui import config as settings  # the agents engineer's module, if landed

        path = getattr(settings, "config_path", None)
        if callable(path):
            return Path(path())
    except ImportError:
        pass
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tftui" / "config.toml"


def read_config(path: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """(data, problems). A missing file is an empty config."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: cannot read ({exc.strerror})"]
    try:
        return tomllib.loads(text), []
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: {exc} — fix the TOML syntax; defaults are used meanwhile"]


def keymap_from_config(data: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """`[keys]` verb-id -> key string into a Textual keymap (binding id -> key)."""
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        return {}, ["config.toml: [keys] must be a table of verb = \"key\""]
    remaps: dict[str, str] = {}
    problems: list[str] = []
    for verb_id, key in keys.items():
        verb = VERBS_BY_ID.get(verb_id)
        if verb is None:
            known = ", ".join(sorted(VERBS_BY_ID))
            problems.append(f"config.toml [keys]: unknown verb '{verb_id}' (known: {known})")
            continue
        if not isinstance(key, str) or not key.strip():
            problems.append(f"config.toml [keys]: '{verb_id}' must be a key string such as \"ctrl+n\"")
            continue
        remaps[verb_id] = key.strip()
    # A remap onto a key another verb (or the app) uses is refused here: handed to Textual it
    # would silently take the key from the other verb (or leave one key doing two things).
    accepted, refused = key_clashes(remaps)
    for verb_id, why in refused.items():
        problems.append(key_clash_message(verb_id, remaps[verb_id], why))
    return {VERBS_BY_ID[v].binding_id: key for v, key in accepted.items()}, problems


# Short names accepted in config.toml / TFTUI_UI__THEME for our themes.
THEME_ALIASES = {"default": "tftui-dark", "dark": "tftui-dark", "light": "tftui-light"}


def configured_theme(data: dict[str, Any]) -> str | None:
    ui = data.get("ui", {})
    theme = ui.get("theme") if isinstance(ui, dict) else None
    if not isinstance(theme, str) or not theme:
        return None
    return THEME_ALIASES.get(theme, theme)


def save_theme(name: str, path: Path | None = None) -> str | None:
    """Persist `[ui] theme = name`, keeping the rest of the file. Returns an error or None."""
    from tftui.config import save_settings

    return save_settings(path or config_path(), {"ui.theme": name})
