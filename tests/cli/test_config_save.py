"""`tftui config --set KEY=VALUE --save` writes checked values into the user file, keeping the rest."""

from __future__ import annotations

import tomllib
from pathlib import Path


def _user_file(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "tftui" / "config.toml"


def test_save_writes_checked_values_and_keeps_the_rest(tftui, tmp_path: Path) -> None:
    user = _user_file(tmp_path)
    user.parent.mkdir(parents=True)
    user.write_text('[ui]\ntheme = "light"\n', encoding="utf-8")

    done = tftui("config", "--set", "keys.step=f10", "--save")
    assert done.code == 0, done.stderr
    assert f"saved to {user}: keys.step = 'f10'" in done.stderr
    assert tomllib.loads(user.read_text()) == {"ui": {"theme": "light"}, "keys": {"step": "f10"}}
    assert 'keys.step' in done.stdout and "# user" in done.stdout.split("keys.step", 1)[1].splitlines()[0]

    refused = tftui("config", "--set", "keys.run=x", "--save")  # x is export_bundle's key
    assert refused.code == 2 and "refused" in refused.stderr
    assert tomllib.loads(user.read_text())["keys"] == {"step": "f10"}  # nothing written

    alone = tftui("config", "--save")
    assert alone.code == 2 and "give at least one --set" in alone.stderr


def test_save_creates_the_user_file(tftui, tmp_path: Path) -> None:
    done = tftui("config", "--set", "ui.ascii=yes", "--save")
    assert done.code == 0, done.stderr
    assert tomllib.loads(_user_file(tmp_path).read_text()) == {"ui": {"ascii": True}}
