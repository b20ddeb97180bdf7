"""Every bool setting takes the same words with `tftui config --set` and in TFTUI_* variables:
true/false, yes/no, on/off, 1/0, in any case (`ui.ascii=yes` was accepted, `ui.animations=0`
refused)."""

from __future__ import annotations

import pytest

from tftui.config import load_config
from tftui.config_schema import SCHEMA, parse_bool

BOOL_KEYS = ["ui.ascii", "ui.animations", "providers.openai.stream", "agent_cmd.prepend_system",
             "commands.lint.prepend_system", "ci.deny_credentials", "run.allow_cwd_bridge"]
WORDS = [("true", True), ("false", False), ("yes", True), ("no", False), ("on", True), ("off", False),
         ("1", True), ("0", False), ("TRUE", True), ("No", False), ("On", True), ("OFF", False)]


def test_the_test_covers_every_bool_setting():
    bools = {".".join(p) for p, kind in SCHEMA.items() if kind == "bool"}
    assert bools == {"ui.ascii", "ui.animations", "providers.*.stream", "agent_cmd.prepend_system",
                     "commands.*.prepend_system", "ci.deny_credentials", "run.allow_cwd_bridge"}


@pytest.mark.parametrize("key", BOOL_KEYS)
@pytest.mark.parametrize(("word", "value"), WORDS)
def test_set_accepts_every_bool_word(tftui, key, word, value):
    done = tftui("config", "--json", "--set", f"{key}={word}")
    assert done.code == 0, done.stderr
    assert done.json()["settings"][key] == {"value": value, "source": "flag", "origin": key}


@pytest.mark.parametrize(("word", "value"), WORDS)
def test_env_accepts_every_bool_word(tmp_path, word, value):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TFTUI_UI__ANIMATIONS": word,
           "TFTUI_PROVIDERS__OPENAI__STREAM": word}
    cfg = load_config(env=env, cwd=str(tmp_path))
    assert cfg.ignored == [] and cfg.errors == []
    assert cfg.get("ui.animations") is value and cfg.get("providers.openai.stream") is value


@pytest.mark.parametrize("word", ["2", "maybe", "y", "truthy", "-1"])
def test_other_words_are_refused_the_same_way(tftui, word):
    assert parse_bool(word) is None
    done = tftui("config", "--set", f"ui.animations={word}")
    assert done.code == 2 and done.stdout == ""
    assert done.stderr.startswith(f"tftui config: --set ui.animations={word} refused: "
                                  "ui.animations: expected true or false, got ")
