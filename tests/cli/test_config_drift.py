"""The checked copies in tftui.config_schema (kept so `tftui config` and `tftui run` need not
import textual) agree with what the TUI really registers: theme names, verb ids, key names."""

from __future__ import annotations

import string
import subprocess
import sys

from textual.keys import KEY_NAME_REPLACEMENTS, Keys, _character_to_key, key_to_character
from textual.theme import BUILTIN_THEMES

from tftui import config_schema as schema
from tftui.tui import keymap
from tftui.tui.themes import load_builtin_themes
from tftui.verbs import VERBS


def test_textual_theme_names_match_textual():
    assert schema.TEXTUAL_THEMES == tuple(sorted(BUILTIN_THEMES))


def test_our_theme_names_match_the_theme_files_the_tui_loads():
    themes, problems = load_builtin_themes()
    assert problems == []
    assert schema.package_theme_names() == tuple(t.name for t in themes)


def test_theme_aliases_match_the_tui_and_name_our_themes():
    assert schema.THEME_ALIASES == tuple(keymap.THEME_ALIASES)
    assert set(keymap.THEME_ALIASES.values()) <= set(schema.package_theme_names())


def test_verb_ids_match_the_registry():
    assert schema.VERB_IDS == tuple(v.id for v in VERBS)
    assert schema.VERB_KEYS == {v.id: v.key for v in VERBS}


def test_every_default_key_passes_the_key_check():
    for verb in VERBS:
        assert schema.key_problem(verb.key) is None, (verb.id, verb.key)


def test_named_keys_are_textual_keys():
    textual_keys = {k.value for k in Keys}
    for name in schema.NAMED_KEYS:
        assert name in textual_keys or key_to_character(name) is not None, name


def test_punctuation_key_names_match_textual():
    assert schema.KEY_NAME_REPLACEMENTS == KEY_NAME_REPLACEMENTS
    for char in string.punctuation + string.ascii_letters + string.digits:
        assert schema.character_key_name(char) == _character_to_key(char), char


def test_tftui_config_does_not_import_textual():
    code = ("import sys; from tftui.cli import main; main(['config', '--set', 'ui.theme=nope']);"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
