"""`tftui config --set KEY=VALUE`: the key and the value are checked against the schema
(theme names, verb ids, key strings, types); a refusal exits 2, names key, value and the
accepted values (or the closest one), prints no listing and leaves the config file alone."""

from __future__ import annotations

from pathlib import Path

import pytest

USER_FILE = '[ui]\ntheme = "light"\n[keys]\nstep = "z"\n'


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """The user config.toml the `tftui` fixture's XDG_CONFIG_HOME points at, with valid settings."""
    path = tmp_path / "xdg" / "tftui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(USER_FILE)
    return path


def refused(done, user_file: Path) -> str:
    """Exit 2, nothing on stdout, the file as it was; returns stderr."""
    assert done.code == 2, done.stderr
    assert done.stdout == ""
    assert user_file.read_text() == USER_FILE
    return done.stderr


def test_unknown_theme_is_refused_with_the_accepted_names(tftui, user_file):
    err = refused(tftui("config", "--set", "ui.theme=nope"), user_file)
    assert err.startswith("tftui config: --set ui.theme=nope refused: ui.theme: unknown theme 'nope' (accepted: ")
    accepted = err.split("(accepted: ", 1)[1].rstrip(")\n").split(", ")
    # our aliases and theme files first, then Textual's built-ins
    assert accepted[:5] == ["default", "dark", "light", "tftui-dark", "tftui-light"]
    assert {"textual-dark", "textual-light", "nord", "dracula"} <= set(accepted)
    assert "did you mean" not in err


def test_a_near_miss_theme_gets_a_suggestion(tftui, user_file):
    err = refused(tftui("config", "--set", "ui.theme=drakula"), user_file)
    assert "ui.theme: unknown theme 'drakula' — did you mean 'dracula'? (accepted: default, dark, light," in err


@pytest.mark.parametrize("theme", ["light", "tftui-light", "textual-dark", "gruvbox"])
def test_existing_themes_are_accepted(tftui, user_file, theme):
    done = tftui("config", "--json", "--set", f"ui.theme={theme}")
    assert done.code == 0, done.stderr
    assert done.json()["settings"]["ui.theme"] == {"value": theme, "source": "flag", "origin": "ui.theme"}


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("ui.thme=x", "unknown setting 'ui.thme' — did you mean 'ui.theme'?"),
        ("theme=light", "unknown setting 'theme' — did you mean 'ui.theme'?"),
        ("ui.colour=red", "unknown setting 'ui.colour'\n"),
        ("providers.openai.modle=x", "unknown setting 'providers.openai.modle' — did you mean 'providers.openai.model'?"),
    ],
)
def test_unknown_keys_are_refused_with_a_suggestion(tftui, user_file, item, message):
    err = refused(tftui("config", "--set", item), user_file)
    assert err == f"tftui config: --set {item} refused: {message}" + ("" if message.endswith("\n") else "\n")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("ui.ascii=maybe", "ui.ascii: expected true or false, got 'maybe'"),
        ("ui.animations=3", "ui.animations: expected true or false, got 3"),
        ("providers.openai.stream=maybe", "providers.openai.stream: expected true or false, got 'maybe'"),
        ("providers.openai.headers=3", "providers.openai.headers: expected a table, got 3"),
        ("providers.openai.timeout_s=-5", "providers.openai.timeout_s: expected a number > 0, got -5"),
        ("ui=3", "ui: expected a table, got 3"),
    ],
)
def test_wrong_types_are_refused(tftui, user_file, item, message):
    err = refused(tftui("config", "--set", item), user_file)
    assert err == f"tftui config: --set {item} refused: {message}\n"


def test_yes_and_no_are_booleans_like_in_the_environment(tftui, user_file):
    done = tftui("config", "--json", "--set", "ui.ascii=yes", "--set", "ui.animations=off")
    assert done.code == 0, done.stderr
    settings = done.json()["settings"]
    assert (settings["ui.ascii"]["value"], settings["ui.animations"]["value"]) == (True, False)


def test_unknown_verb_is_refused_with_a_suggestion(tftui, user_file):
    err = refused(tftui("config", "--set", "keys.stpe=ctrl+n"), user_file)
    assert err.startswith("tftui config: --set keys.stpe=ctrl+n refused: "
                          "keys.stpe: unknown verb 'stpe' — did you mean 'step'? (verbs: run, step, pause,")
    assert "quit)" in err


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("ctl+n", "'ctl' is not a modifier — did you mean 'ctrl'? (modifiers: ctrl, shift, alt, meta, super, hyper)"),
        ("ctrl+", "ends with '+' (the plus key is 'plus')"),
        ("ctrl+.", "write 'ctrl+full_stop' (punctuation keys go by name)"),
        ("pgdn", "'pgdn' is not a key name — did you mean 'pagedown'?"),
        ("n,", "an empty alternative (alternatives are separated by commas; the comma key is 'comma')"),
        ("x,f55", "in 'f55': 'f55' is not a key name — did you mean 'f5'?"),
    ],
)
def test_bad_key_strings_are_refused(tftui, user_file, key, problem):
    err = refused(tftui("config", "--set", f"keys.step={key}"), user_file)
    assert err.startswith(f"tftui config: --set keys.step={key} refused: keys.step: bad key '{key}': {problem}")


# Keys no other verb uses (a clash is refused too: test_config_key_clash.py).
@pytest.mark.parametrize("key", ["ctrl+n", "n,s", "f5", "shift+up", "semicolon", ":", "E", "1", "alt+full_stop"])
def test_good_key_strings_are_accepted(tftui, user_file, key):
    done = tftui("config", "--json", "--set", f"keys.step={key}")
    assert done.code == 0, done.stderr
    assert done.json()["settings"]["keys.step"]["value"] == key


def test_set_never_writes_the_file(tftui, user_file):
    before = user_file.stat().st_mtime_ns
    assert tftui("config", "--set", "ui.theme=nord").code == 0
    assert tftui("config", "--set", "ui.theme=nope").code == 2
    assert user_file.read_text() == USER_FILE and user_file.stat().st_mtime_ns == before


def test_every_refused_set_is_reported(tftui, user_file):
    err = refused(tftui("config", "--set", "ui.theme=light", "--set", "ui.ascii=maybe"), user_file)
    assert err == "tftui config: --set ui.ascii=maybe refused: ui.ascii: expected true or false, got 'maybe'\n"


def test_help_documents_checks_exit_codes_and_examples(tftui):
    done = tftui("config", "--help")
    assert done.code == 0
    text = done.stdout
    assert "exit codes: 0 ok (warnings included), 2 a config file or value is invalid, or --set refused" in text
    assert "tftui config --set ui.theme=light" in text and "tftui config --set keys.step=ctrl+n" in text
    assert "ui.theme     default, dark, light, tftui-dark, tftui-light, or a Textual theme" in text
    assert "--set alone only previews" in text
