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
    assert "tftui: flow file not found: missing.json" in capsys.readouterr().err


# QA: `tftui nonexist.json` said "is not a valid flow (1 error); fix it and open it again".
@pytest.mark.parametrize(("entry", "said"), [
    ([], "tftui: flow file not found: {}"),
    (["run"], "tftui run: flow file not found: {}"),
    (["check"], "{}: error: flow file not found"),
])
def test_a_missing_flow_file_is_not_found_in_every_entry(entry, said, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main([*entry, "nonexist.json"]) == 2
    err = capsys.readouterr()
    assert said.format("nonexist.json") in err.out + err.err
    assert "not a valid flow" not in err.out + err.err and "open it again" not in err.err
