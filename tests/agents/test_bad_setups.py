"""Bad setups are refused before the first call: exit 2, naming the setting and the fix (issue 16).

The loopback server (tests/agents/conftest.py) counts requests: none may arrive.
"""

from __future__ import annotations

import argparse
import json
import shlex

import pytest

from tftui.cli import build_parser
from tftui.cli import main as cli_main
from tftui.commands.runner_select import runner_flags


@pytest.fixture
def flow(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("UNSET_KEY_FOR_TEST", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.json").write_text(json.dumps({"name": "f", "phases": [
        {"id": "a", "type": "agent", "task": "t", "final": True}]}))
    return tmp_path


def _run(flow, toml: str, *flags: str, capsys) -> tuple[int, str]:
    (flow / "tftui.toml").write_text(toml)
    code = cli_main(["run", "f.json", "--no-journal", *flags])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("toml", "flags", "words"),
    [
        ('[providers.local]\nbase_url = "{url}"\nmodel = "m"\napi_key_env = "UNSET_KEY_FOR_TEST"\n',
         ("--provider", "local"), ("UNSET_KEY_FOR_TEST", "providers.local.api_key_env", "export")),
        ('[providers.local]\nbase_url = "{url}"\n', ("--provider", "local"), ("providers.local.model",)),
        ('[providers.local]\nmodel = "m"\n', ("--provider", "local"), ("providers.local.base_url",)),
        ('[providers.local]\nbase_url = "{url}"\nmodel = "m"\n', ("--provider", "locla"),
         ("unknown provider 'locla'", "did you mean 'local'")),
        ('default_provider = "local"\n[providers.local]\nbase_url = "{url}"\nmodel = "m"\n'
         'api_key_env = "UNSET_KEY_FOR_TEST"\n', (), ("UNSET_KEY_FOR_TEST",)),
        ("", ("--agent-cmd", "no-such-agent-program-xyz -m x"), ("no-such-agent-program-xyz", "PATH", "--agent-cmd")),
        ('[agent_cmd]\nargv = ["no-such-agent-program-xyz"]\n', (), ("no-such-agent-program-xyz", "agent_cmd.argv")),
        ('[commands.mine]\nargv = ["/nonexistent/agent"]\n', ("--agent-cmd", "mine"),
         ("/nonexistent/agent", "commands.mine.argv")),
    ],
)
def test_bad_setups_exit_2_before_any_request(flow, fake_provider, capsys, toml, flags, words):
    code, err = _run(flow, toml.replace("{url}", fake_provider.url), *flags, capsys=capsys)
    assert code == 2, err
    for word in words:
        assert word in err
    assert fake_provider.requests == []


def test_a_good_setup_still_runs(flow, fake_provider, capsys, monkeypatch):
    monkeypatch.setenv("UNSET_KEY_FOR_TEST", "sk-now-it-is-set-0123456789")
    code, err = _run(flow, f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n'
                           'api_key_env = "UNSET_KEY_FOR_TEST"\n', "--provider", "local", capsys=capsys)
    assert code == 0, err
    assert len(fake_provider.requests) == 1


def test_the_resume_hint_repeats_the_runner_flags():
    parser = build_parser()
    args = parser.parse_args(["run", "f.json", "--provider", "local", "--runs-dir", "my runs", "--no-wait"])
    flags = runner_flags(args)
    assert flags == ["--provider", "local", "--runs-dir", "my runs"]
    again = parser.parse_args(shlex.split(shlex.join(["run", "f.json", "--resume", "ID", *flags])))
    assert (again.provider, again.runs_dir, again.resume) == ("local", "my runs", "ID")
    cmd = parser.parse_args(["run", "f.json", "--agent-cmd", "llm -m gpt-4o-mini"])
    assert runner_flags(cmd) == ["--agent-cmd", "llm -m gpt-4o-mini"]
    assert runner_flags(argparse.Namespace()) == []
