"""Usage errors name the subcommand (its usage line), and a typo'd command is not opened as a flow."""

from __future__ import annotations

import pytest

from tftui import cli


def test_unknown_flag_shows_the_subcommands_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "--bogus", "x.json"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tftui run ")
    assert "tftui run: error: unrecognized arguments: --bogus" in err


def test_typo_d_command_is_not_opened_as_a_flow(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["chek", "flow.json"]) == 2
    err = capsys.readouterr().err
    assert "tftui: unknown command 'chek' — did you mean 'check'?" in err
    assert "cannot read file" not in err


def test_a_path_still_opens_as_a_flow(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["missing.json"]) == 2  # `tftui FLOW`: refused by open, which names the file
    assert "missing.json: error: cannot read file" in capsys.readouterr().err
