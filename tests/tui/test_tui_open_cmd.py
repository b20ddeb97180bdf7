"""`tftui FLOW` argument handling and its refusal of invalid flows (no UI is started)."""

from __future__ import annotations

import argparse

from tftui.commands import open_flow


def _args(flow, *extra):
    parser = argparse.ArgumentParser()
    open_flow.add_arguments(parser)
    return parser.parse_args([str(flow), *extra])


def test_parse_args_kv():
    # `tftui FLOW --arg` goes through the one --arg parser (tftui.commands.flow_args)
    from tftui.commands.flow_args import parse_arg_list

    assert (parse_arg_list(["a=1", "b=x=y"]).values, parse_arg_list(["a=1", "b=x=y"]).errors) == (
        {"a": "1", "b": "x=y"}, [])
    assert parse_arg_list(["nokey"]).errors == [
        "--arg expects NAME=VALUE (a string) or NAME:=JSON (a typed value), got 'nokey'"
        " (e.g. --arg topic=rust or --arg limit:=3)"]


def test_invalid_flow_is_refused_with_diagnostics(tmp_path, capsys):
    flow = tmp_path / "bad.json"
    flow.write_text('{"name": "bad", "phases": [{"id": "a", "task": "x", "dependsOn": ["ghost"]}]}')
    assert open_flow.run(_args(flow)) == 2
    err = capsys.readouterr().err
    assert "bad.json:1:" in err and "dependsOn unknown phase 'ghost'" in err


def test_refusal_also_prints_warnings_that_explain_the_error(tmp_path, capsys):
    flow = tmp_path / "typo.json"
    flow.write_text('{"name": "t", "phases": [{"id": "a", "agent": "w", "taks": "hi"}]}')
    assert open_flow.run(_args(flow)) == 2
    err = capsys.readouterr().err
    assert "requires 'task'" in err
    assert "unknown field 'taks' — did you mean 'task'?" in err


def test_bad_arg_is_refused(tmp_path, capsys):
    flow = tmp_path / "ok.json"
    flow.write_text('{"name": "ok", "phases": [{"id": "a", "task": "x"}]}')
    assert open_flow.run(_args(flow, "--arg", "oops")) == 2
    assert "--arg expects NAME=VALUE" in capsys.readouterr().err


def test_rules_help_names_the_flow_stem_default():
    # the Trace tab looks for FLOW.rules.toml first (sample_flows/validate.rules.toml)
    parser = argparse.ArgumentParser()
    open_flow.add_arguments(parser)
    assert "FLOW.rules.toml, else rules.toml" in " ".join(parser.format_help().split())


def test_options_before_the_flow_open_it_too(tmp_path, monkeypatch):
    """`tftui --ascii flow.json` is `tftui flow.json --ascii` (options first is a common habit)."""
    from tftui.cli import main
    from tftui.tui.app import TftuiApp

    flow = tmp_path / "ok.json"
    flow.write_text('{"name": "ok", "phases": [{"id": "a", "task": "x"}]}')
    (tmp_path / "ok.replies.json").write_text('{"a": ["hi"]}')
    opened: list[TftuiApp] = []
    monkeypatch.setattr(TftuiApp, "run", lambda self: opened.append(self) or 0)
    assert main(["--ascii", "--no-journal", str(flow)]) == 0
    assert len(opened) == 1 and opened[0].glyphs.ascii
