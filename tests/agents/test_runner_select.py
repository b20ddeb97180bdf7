"""build_runner: flags, then config, then the replies file next to the flow, then (TUI) a human."""

from __future__ import annotations

import json

import pytest

from tftui.agents.command import CommandRunner
from tftui.agents.openai import OpenAIRunner
from tftui.agents.select import describe_runner
from tftui.commands.runner_select import RunnerConfigError, build_runner
from tftui.config import load_config
from tftui.redaction import mask, redact


@pytest.fixture
def setup(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    flow = tmp_path / "demo.json"
    flow.write_text("{}")
    return tmp_path, env, flow


def cfg(tmp_path, env, text: str = "", extra_env: dict | None = None):
    (tmp_path / "tftui.toml").write_text(text)
    return load_config(tmp_path / "demo.json", env={**env, **(extra_env or {})}, cwd=str(tmp_path))


def test_flags_win_and_conflict(setup):
    tmp, env, flow = setup
    config = cfg(tmp, env, 'default_provider = "ollama"\n[providers.local]\nbase_url = "http://h/v1"\n')
    r = build_runner(config, provider="local", flow_path=flow, env=env, check=False)
    assert isinstance(r, OpenAIRunner) and r.provider.name == "local"
    cmd = build_runner(config, agent_cmd="llm -m 'a b'", flow_path=flow, env=env, check=False)
    assert isinstance(cmd, CommandRunner) and cmd.argv == ["llm", "-m", "a b"]
    assert describe_runner(cmd) == "command llm -m 'a b'"
    with pytest.raises(RunnerConfigError, match="choose one of --provider, --agent-cmd"):
        build_runner(config, provider="local", agent_cmd="x", flow_path=flow, env=env, check=False)


def test_config_default_provider_then_agent_cmd(setup):
    tmp, env, flow = setup
    (tmp / "demo.replies.json").write_text(json.dumps({"main": ["hi"]}))
    by_provider = build_runner(cfg(tmp, env, 'default_provider = "ollama"\n'), flow_path=flow, env=env, check=False)
    assert isinstance(by_provider, OpenAIRunner) and by_provider.provider.name == "ollama"
    by_cmd = build_runner(cfg(tmp, env, 'agent_cmd = ["my-agent"]\n'), flow_path=flow, env=env, check=False)
    assert isinstance(by_cmd, CommandRunner) and by_cmd.argv == ["my-agent"]
    # both configured: the env-level agent_cmd outranks the project-file provider
    both = cfg(tmp, env, 'default_provider = "ollama"\n', extra_env={"TFTUI_AGENT_CMD": "env-agent"})
    assert build_runner(both, flow_path=flow, env=env, check=False).argv == ["env-agent"]


def test_named_command_from_config(setup):
    tmp, env, flow = setup
    config = cfg(tmp, env, '[commands.claude]\nargv = ["claude", "-p"]\ntimeout_s = 42\n')
    runner = build_runner(config, agent_cmd="claude", flow_path=flow, env=env, check=False)
    assert runner.argv == ["claude", "-p"] and runner.timeout_s == 42


def test_replies_next_to_flow_then_human_then_error(setup):
    tmp, env, flow = setup
    config = cfg(tmp, env)
    with pytest.raises(RunnerConfigError, match="no agent is configured"):
        build_runner(config, flow_path=flow, env=env)
    assert build_runner(config, flow_path=flow, env=env, allow_human=True) is None
    (tmp / "demo.replies.json").write_text(json.dumps({"main": ["hi"]}))
    scripted = build_runner(config, flow_path=flow, env=env)
    assert type(scripted).__name__ == "ScriptedRunner"


def test_unknown_provider_and_bad_config_are_clear(setup):
    tmp, env, flow = setup
    with pytest.raises(RunnerConfigError, match=r"unknown provider 'nope' \(configured: llamacpp, ollama"):
        build_runner(cfg(tmp, env), provider="nope", flow_path=flow, env=env)
    with pytest.raises(RunnerConfigError, match="tftui.toml:1:"):
        build_runner(cfg(tmp, env, "= broken"), provider="ollama", flow_path=flow, env=env)
    with pytest.raises(RunnerConfigError, match="replies file not found"):
        build_runner(cfg(tmp, env), replies=tmp / "missing.json", flow_path=flow, env=env)


def test_mask_and_redact():
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234"
    assert mask(key) == "…1234" and mask("short") == "…" and mask("") == ""
    data = {"headers": {"Authorization": f"Bearer {key}", "X-Api-Key": "abcdefghijklmnop", "Accept": "json"},
            "log": [f"sent key={key}", ("api-key: zzzzzzzzzzzzzz99",)]}
    out = redact(data, [key])
    assert out == {"headers": {"Authorization": "Bearer …1234", "X-Api-Key": "…mnop", "Accept": "json"},
                   "log": ["sent key=…1234", ("api-key: …zz99",)]}
    assert redact("no secrets here: ollama", ["ollama"]) == "no secrets here: ollama"  # too short to be a key
    assert redact(42, [key]) == 42
