"""The settings tftui knows: each key's expected type, and how env strings become values.

Used by `tftui.config` to check merged values and to read `TFTUI_*` variables.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

from tftui.verbs import SCREENS, VERBS, verbs_for

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
    ("agent_cmd", "env"): "table",  # extra environment of the command (README "Real agents")
    ("agent_cmd", "env", "*"): "str",
    ("agent_cmd", "secret_env"): "names",  # which of its variables are secrets: masked everywhere
    ("commands",): "table",
    ("commands", "*"): "command",
    ("commands", "*", "argv"): "argv",
    ("commands", "*", "timeout_s"): "number",
    ("commands", "*", "prepend_system"): "bool",
    ("commands", "*", "env"): "table",
    ("commands", "*", "env", "*"): "str",
    ("commands", "*", "secret_env"): "names",
    ("ui",): "table",
    ("ui", "theme"): "str",
    ("ui", "ascii"): "bool",
    ("ui", "animations"): "bool",
    ("keys",): "table",
    ("keys", "*"): "str",
    ("limits",): "table",
    ("limits", "regex_budget_ms"): "number",  # a regex match's time budget (docs/trust.md §3)
    ("ci",): "table",
    ("ci", "deny_credentials"): "bool",  # with CI=true: deterministic runs refuse provider credentials
    ("run",): "table",
    ("run", "allow_cwd_bridge"): "bool",  # cwd: "{args.X}" may run (user config or env only; tftui.config)
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
_FALSE = {"0", "false", "no", "off"}


def parse_bool(text: str) -> bool | None:
    """The words every bool setting accepts on the command line (`--set`) and in `TFTUI_*`
    variables, case-insensitive: true/false, yes/no, on/off, 1/0. None for anything else."""
    word = text.strip().lower()
    return True if word in _TRUE else False if word in _FALSE else None


def coerce_env(path: Path_, raw: str) -> Any:
    kind = schema_type(path)
    text = raw.strip()
    if kind == "bool":
        value = parse_bool(text)
        if value is not None:
            return value
        if not text:
            return False  # an empty variable (`TFTUI_UI__ASCII=`) switches the setting off
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            return raw  # validation names the bad value
    if kind in ("table", "argv", "names") and text[:1] in "[{":
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
    if kind == "names" and (not isinstance(value, list) or not all(isinstance(a, str) for a in value)):
        return "expected a list of environment variable names"
    return None


# ── values beyond their type: theme names, verb ids, key strings ───────────────────────
# `tftui config`, `tftui run` and the engine must not import textual (≈100 ms), so the theme
# names below are checked copies; tests/cli/test_config_drift.py fails when they drift from
# Textual's BUILTIN_THEMES. The verbs come from their one registry, tftui.verbs (Textual-free).

# Short names for our themes, and the theme each one names (the TUI resolves them).
THEME_ALIAS_TARGETS: dict[str, str] = {"default": "tftui-dark", "dark": "tftui-dark", "light": "tftui-light"}
THEME_ALIASES = tuple(THEME_ALIAS_TARGETS)
TEXTUAL_THEMES = (
    "ansi-dark", "ansi-light", "atom-one-dark", "atom-one-light", "catppuccin-frappe",
    "catppuccin-latte", "catppuccin-macchiato", "catppuccin-mocha", "dracula", "flexoki",
    "gruvbox", "monokai", "nord", "rose-pine", "rose-pine-dawn", "rose-pine-moon",
    "solarized-dark", "solarized-light", "textual-dark", "textual-light", "tokyo-night",
)
VERB_KEYS: dict[str, str] = {v.id: v.key for v in VERBS}  # verb id -> default key(s)
VERB_IDS = tuple(VERB_KEYS)
# Keys Textual binds for the app itself (quit, command palette, focus): a verb moved there
# would never fire, or would take the key from the app.
RESERVED_KEYS = {"ctrl+c": "quit", "ctrl+q": "quit", "ctrl+p": "the command palette",
                 "tab": "focus", "shift+tab": "focus"}
KEY_MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
NAMED_KEYS = (
    "escape", "enter", "tab", "space", "backspace", "delete", "insert", "home", "end",
    "pageup", "pagedown", "up", "down", "left", "right", *(f"f{n}" for n in range(1, 25)),
)
# Textual names a punctuation key after its Unicode name, with these friendlier replacements.
KEY_NAME_REPLACEMENTS = {"solidus": "slash", "reverse_solidus": "backslash", "commercial_at": "at",
                         "hyphen_minus": "minus", "plus_sign": "plus", "low_line": "underscore"}


def character_key_name(char: str) -> str:
    """Textual's key name for one typed character: letters and digits as is, `.` -> `full_stop`."""
    import unicodedata

    if char.isalnum():
        return char
    try:
        name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        return char
    return KEY_NAME_REPLACEMENTS.get(name, name)


@lru_cache(maxsize=1)
def punctuation_key_names() -> tuple[str, ...]:
    import string

    return tuple(character_key_name(c) for c in string.punctuation)


def builtin_theme_files() -> list[Traversable] | None:
    """The built-in theme files (`*.toml` of the package `tftui.themes`, the repo's `themes/` folder),
    by name; None when the installation lacks the package."""
    from importlib import resources

    try:
        folder = resources.files("tftui.themes")
        return sorted((e for e in folder.iterdir() if e.name.endswith(".toml")), key=lambda e: e.name)
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        return None


@lru_cache(maxsize=1)
def package_theme_names() -> tuple[str, ...]:
    """The `name` of every built-in theme file (file stem when it has none); unreadable ones skipped."""
    names: list[str] = []
    for entry in builtin_theme_files() or ():
        try:
            name = tomllib.loads(entry.read_text(encoding="utf-8")).get("name")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # the TUI reports a broken theme file when it loads themes
        names.append(name if isinstance(name, str) else entry.name.removesuffix(".toml"))
    return tuple(names)


def theme_names() -> list[str]:
    """Every value `ui.theme` accepts: our aliases and themes first, then Textual's built-ins."""
    ours = [*THEME_ALIASES, *package_theme_names()]
    return ours + [t for t in TEXTUAL_THEMES if t not in ours]


def did_you_mean(word: str, choices: list[str] | tuple[str, ...], quote: str = "") -> str:
    """` — did you mean 'x'?` for the closest choice, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" — did you mean '{quote}{close[0]}'?" if close else ""


def known_children(parent: Path_) -> list[str]:
    """The setting names the schema knows directly under `parent` (verb ids under `keys`)."""
    if parent == ("keys",):
        return list(VERB_IDS)
    return [p[-1] for p in SCHEMA
            if len(p) == len(parent) + 1 and matches(parent, p[:-1]) and p[-1] != "*"]


def unknown_setting_hint(path: Path_) -> str:
    parent = ".".join(path[:-1]) + "." if len(path) > 1 else ""
    hint = did_you_mean(path[-1], known_children(path[:-1]), quote=parent)
    if hint:
        return hint
    # Not a sibling: maybe the right name at another level (`theme` for `ui.theme`).
    elsewhere = {p[-1]: ".".join(p) for p in SCHEMA if "*" not in p and len(p) > 1}
    close = difflib.get_close_matches(path[-1], list(elsewhere), n=1, cutoff=0.8)
    return f" — did you mean '{elsewhere[close[0]]}'?" if close else ""


def key_problem(text: str) -> str | None:
    """Why `text` is not a Textual key string (`ctrl+n`, `n,s`, `f5`, `full_stop`), or None."""
    if not text.strip():
        return 'empty (write a key such as "ctrl+n")'
    alts = [a.strip() for a in text.split(",")]
    for alt in alts:
        problem = _key_alternative_problem(alt)
        if problem:
            return problem if len(alts) == 1 or not alt else f"in '{alt}': {problem}"
    return None


def _key_alternative_problem(alt: str) -> str | None:
    if not alt:
        return "an empty alternative (alternatives are separated by commas; the comma key is 'comma')"
    if len(alt) == 1:
        return None if alt.isprintable() and not alt.isspace() else "not a typeable key"
    if any(c.isspace() for c in alt):
        return f"spaces are not allowed (write '{''.join(alt.split())}')"
    *mods, base = alt.split("+")
    for mod in mods:
        if mod not in KEY_MODIFIERS:
            hint = did_you_mean(mod, KEY_MODIFIERS)
            return f"'{mod}' is not a modifier{hint} (modifiers: {', '.join(KEY_MODIFIERS)})"
    if not base:
        return "ends with '+' (the plus key is 'plus')"
    if len(base) == 1:
        if base.isalnum():
            return None
        # Textual names punctuation keys ('ctrl+full_stop'); only a lone character is translated.
        return f"write '{'+'.join([*mods, character_key_name(base)])}' (punctuation keys go by name)"
    names = (*NAMED_KEYS, *punctuation_key_names())
    if base in names:
        return None
    hint = did_you_mean(base, names)
    return f"'{base}' is not a key name{hint} (e.g. a, 5, f5, enter, escape, tab, space, up, pagedown, comma)"


def value_problem(path: Path_, value: Any) -> str | None:
    """The type problem, or what is wrong with a well-typed value (`ui.theme`, `keys.<verb>`)."""
    kind = schema_type(path)
    if kind is None:
        return None
    problem = type_problem(kind, value)
    if problem:
        return f"{problem}, got {value!r}"
    if path == ("ui", "theme"):
        names = theme_names()
        if value not in names:
            return f"unknown theme {value!r}{did_you_mean(value, names)} (accepted: {', '.join(names)})"
    if len(path) == 2 and path[0] == "keys":
        if path[1] not in VERB_IDS:
            hint = did_you_mean(path[1], VERB_IDS)
            return f"unknown verb '{path[1]}'{hint} (verbs: {', '.join(VERB_IDS)})"
        problem = key_problem(value)
        if problem:
            return f"bad key {value!r}: {problem}"
    return None


def key_names(keys: str) -> list[str]:
    """The Textual key names in a key string: `?` -> `question_mark`, `n, s` -> [n, s]."""
    alts = (a.strip() for a in keys.split(","))
    return [character_key_name(a) if len(a) == 1 else a for a in alts if a]


def key_clashes(remaps: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Split `[keys]` remaps (verb id -> key string, in file order) into the ones that can apply
    and, per refused verb, why (`x is already the key of export_bundle`; see key_clash_message): a
    key another verb keeps (its default, or an earlier remap) on a screen where both act (the
    debugger, the replay; tftui.verbs), or a key the app reserves. A refused remap leaves the
    verb on its default key, so no key does two things. Swaps (`run = "n"` with `step = "c"`)
    apply. Unknown verbs and non-strings are skipped."""
    order = [v for v, k in remaps.items() if v in VERB_KEYS and isinstance(k, str) and key_names(k)]
    accepted = {v: remaps[v].strip() for v in order}
    refused: dict[str, str] = {}
    while True:  # each pass refuses at most one remap; its verb's default may clash anew
        clash = _first_clash(order, accepted)
        if clash is None:
            return accepted, refused
        verb, why = clash
        refused[verb] = why
        del accepted[verb]


def _first_clash(order: list[str], accepted: dict[str, str]) -> tuple[str, str] | None:
    for screen in SCREENS:
        keys = {v.id: key_names(accepted.get(v.id, v.key)) for v in verbs_for(screen)}
        for verb in order:
            if verb not in accepted or verb not in keys:
                continue
            for key in keys[verb]:
                owner = RESERVED_KEYS.get(key)
                other = None if owner else _blocking_owner(verb, key, keys, accepted, order)
                if owner or other:
                    written = next((a.strip() for a in accepted[verb].split(",") if key_names(a) == [key]), key)
                    if owner:
                        return verb, f"{_char_of(written)} is reserved for {owner}"
                    return verb, f"{_char_of(written)} is already the key of {other}"
    return None


def key_clash_message(verb: str, remap: Any, why: str) -> str:
    """`keys.run = "x": x is already the key of export_bundle — remap ignored, run stays on c`."""
    default = " or ".join(_char_of(k) for k in key_names(VERB_KEYS.get(verb, "")))
    return f"keys.{verb} = {json.dumps(remap, ensure_ascii=False)}: {why} — remap ignored, {verb} stays on {default}"


def _char_of(name: str) -> str:
    """`question_mark` -> `?` (what the key shows); other names as they are."""
    import string

    return next((c for c in string.punctuation if character_key_name(c) == name), name)


def _blocking_owner(verb: str, key: str, keys: dict[str, list[str]], accepted: dict[str, str],
                    order: list[str]) -> str | None:
    """Another verb holding `key` that wins over `verb`'s remap: one on its default key, or one
    remapped earlier in the file."""
    for other, other_keys in keys.items():
        if other != verb and key in other_keys and (
                other not in accepted or order.index(other) < order.index(verb)):
            return other
    return None


def setting_problems(tree: dict[str, Any], prefix: Path_ = ()) -> list[str]:
    """Every unknown setting and invalid value in `tree` (a nested table of settings)."""
    problems: list[str] = []
    for key, value in tree.items():
        path = prefix + (str(key),)
        dotted = ".".join(path)
        if schema_type(path) is None:
            if not is_open(path):  # below prices/params anything goes
                problems.append(f"unknown setting '{dotted}'{unknown_setting_hint(path)}")
            continue
        problem = value_problem(path, value)
        if problem:
            problems.append(f"{dotted}: {problem}")
        elif isinstance(value, dict) and not is_open(path):
            problems += setting_problems(value, path)
    return problems


_DROP = object()


def drop_invalid(tree: dict[str, Any], roots: tuple[str, ...]) -> tuple[dict[str, Any], list[tuple[Path_, str]]]:
    """`tree` (one settings layer) without the invalid values under `roots`, and (path, problem)
    for each value dropped. Unknown settings are kept: the caller warns about them."""
    out = dict(tree)
    dropped: list[tuple[Path_, str]] = []
    for root in roots:
        if root in out:
            kept = _keep_valid((root,), out[root], dropped)
            if kept is _DROP:
                del out[root]
            else:
                out[root] = kept
    return out, dropped


def _keep_valid(path: Path_, value: Any, dropped: list[tuple[Path_, str]]) -> Any:
    if schema_type(path) is None:
        return value
    problem = value_problem(path, value)
    if problem:
        dropped.append((path, problem))
        return _DROP
    if not isinstance(value, dict) or is_open(path):
        return value
    kept = {}
    for key, child in value.items():
        child = _keep_valid(path + (str(key),), child, dropped)
        if child is not _DROP:
            kept[key] = child
    return kept if kept or not value else _DROP  # nothing valid left: as if the table were absent
