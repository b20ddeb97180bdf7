"""User key remapping and the one UI setting the TUI persists (theme).

The settings themselves are read and written by `tftui.config` (one reader, one XDG rule,
one TOML writer); this module turns `[keys]` (verb id -> key) into a Textual keymap and
`ui.theme` into a theme name. Nothing here raises on a bad value: problems come back as
messages for the event log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tftui.config import config_path, display_settings, save_settings
from tftui.config_schema import THEME_ALIAS_TARGETS, key_clash_message, key_clashes, key_names
from tftui.verbs import VERBS_BY_ID, Screen, verbs_for


def read_config(path: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """(the `ui`/`keys` settings in effect, problems), with `path` as the user file (default:
    tftui.config's user file); see tftui.config.display_settings."""
    return display_settings(path)


def keymap_from_config(data: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """`[keys]` verb-id -> key string (validated by tftui.config: unknown verbs and bad key strings
    are reported and dropped there) into a Textual keymap (binding id -> key), and the remaps
    refused because they would take another verb's key."""
    keys = data.get("keys") or {}
    remaps = {verb_id: key.strip() for verb_id, key in keys.items() if verb_id in VERBS_BY_ID}
    # A remap onto a key another verb (or the app) uses is refused here: handed to Textual it
    # would silently take the key from the other verb (or leave one key doing two things).
    accepted, refused = key_clashes(remaps)
    problems = [key_clash_message(verb_id, remaps[verb_id], why) for verb_id, why in refused.items()]
    return {VERBS_BY_ID[v].binding_id: key for v, key in accepted.items()}, problems


def screen_keymap(keymap: dict[str, str], screen: Screen) -> dict[str, str]:
    """`keymap` (binding id -> key) for one screen: the remap of a verb that is only read-only
    there (a run control in the replay) is left out when it would take a key from a verb that
    acts there, so that verb keeps its key and the read-only one its default."""
    by_binding = {v.binding_id: v for v in VERBS_BY_ID.values()}
    taken = {k for v in verbs_for(screen) for k in key_names(keymap.get(v.binding_id, v.key))}
    out: dict[str, str] = {}
    for binding_id, key in keymap.items():
        verb = by_binding.get(binding_id)
        if verb is not None and not verb.acts_in(screen) and set(key_names(key)) & taken:
            continue
        out[binding_id] = key
    return out


# Short names accepted in config.toml / TFTUI_UI__THEME for our themes.
THEME_ALIASES = THEME_ALIAS_TARGETS


def configured_theme(data: dict[str, Any]) -> str | None:
    ui = data.get("ui", {})
    theme = ui.get("theme") if isinstance(ui, dict) else None
    if not isinstance(theme, str) or not theme:
        return None
    return THEME_ALIASES.get(theme, theme)


def save_theme(name: str, path: Path | None = None) -> str | None:
    """Persist `[ui] theme = name`, keeping the rest of the file. Returns an error or None."""
    return save_settings(path or config_path(), {"ui.theme": name})
