"""Colour themes: the built-in `themes/*.toml` (package `tftui.themes`) -> Textual `Theme`s.

A theme file holds Textual's design colours at the top level and a `[status]` table
of phase-status colours, which become theme variables `status-<name>` (usable in
TCSS as `$status-done`, and read by the tree for its glyphs).
"""

from __future__ import annotations

import tomllib
from typing import Any

from textual.theme import Theme

from tftui.config_schema import builtin_theme_files
from tftui.present import DISPLAY_STATUSES, ROLES, colour_role

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)

DEFAULT_THEME = "tftui-dark"

# A breakpoint marker is coloured like a failure.
BREAKPOINT_ROLE = "error"


def _role(key: str) -> str:
    return ROLES[BREAKPOINT_ROLE].theme if key == "breakpoint" else colour_role(key).theme


def _default(key: str) -> str:
    return ROLES[BREAKPOINT_ROLE].default if key == "breakpoint" else colour_role(key).default


def status_variable_defaults() -> dict[str, str]:
    """`status-<name>` for every display status (and `breakpoint`): what keeps `$status-*`
    defined under a theme that has no `[status]` table (Textual's built-in themes)."""
    return {f"status-{key}": _default(key) for key in (*DISPLAY_STATUSES, "breakpoint")}


def theme_from_toml(data: dict[str, Any], fallback_name: str) -> tuple[Theme | None, str | None]:
    """A Theme from parsed TOML, or (None, problem)."""
    name = data.get("name", fallback_name)
    primary = data.get("primary")
    if not isinstance(name, str) or not isinstance(primary, str):
        return None, f"theme {fallback_name}: needs string 'name' and 'primary'"
    kwargs = {k: data[k] for k in _COLOUR_KEYS if isinstance(data.get(k), str)}
    status = data.get("status", {})
    variables = {}
    if isinstance(status, dict):
        for key, colour in status.items():
            if isinstance(colour, str):
                variables[f"status-{key}"] = colour
    return Theme(name=name, dark=bool(data.get("dark", True)), variables=variables, **kwargs), None


def load_builtin_themes() -> tuple[list[Theme], list[str]]:
    """Every built-in theme file (`builtin_theme_files`: the repo's `themes/` folder)."""
    themes: list[Theme] = []
    problems: list[str] = []
    entries = builtin_theme_files()
    if entries is None:
        # e.g. an editable install made before the themes moved to themes/: reinstall it
        return [], ["the package tftui.themes is missing from the installation (reinstall tftui: pip install -e .)"]
    for entry in entries:
        try:
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"theme {entry.name}: {exc}")
            continue
        theme, problem = theme_from_toml(data, entry.name.removesuffix(".toml"))
        if theme is not None:
            themes.append(theme)
        if problem:
            problems.append(problem)
    return themes, problems


def status_colours(variables: dict[str, str]) -> dict[str, str]:
    """Resolved colour per display status (plus `breakpoint`) from the app's theme variables."""
    out: dict[str, str] = {}
    for key in (*DISPLAY_STATUSES, "breakpoint"):
        value = variables.get(f"status-{key}") or _role(key)
        if value.startswith("$"):
            value = variables.get(value[1:], "")
        out[key] = value
    return out
