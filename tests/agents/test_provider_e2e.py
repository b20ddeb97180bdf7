"""End to end: `tftui run FLOW --provider local` against the local chat-completions server."""

from __future__ import annotations

import json

from tftui.cli import main as cli_main

FLOW = {
    "name": "provider-e2e",
    "phases": [
        {"id": "draft", "type": "agent", "agent": "writer", "task": "Write a haiku about [[draft]]."},
        {"id": "polish", "type": "agent", "dependsOn": ["draft"], "task": "Polish this: {steps.draft.output}",
         "final": True},
    ],
}


def write_project(tmp_path, url: str, *, stream: bool) -> str:
    flow = tmp_path / "e2e.json"
    flow.write_text(json.dumps(FLOW))
    (tmp_path / "tftui.toml").write_text(
        f'[providers.local]\nbase_url = "{url}"\nmodel = "tiny"\napi_key_env = "E2E_KEY"\n'
        f"stream = {'true' if stream else 'false'}\n"
        "prices = { input_per_mtok = 1.0, output_per_mtok = 1.0 }\n"
    )
    return str(flow)


def test_run_with_provider_retries_a_429_and_chains_outputs(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("E2E_KEY", "sk-e2e-0123456789abcdefghij")
    monkeypatch.chdir(tmp_path)
    flow = write_project(tmp_path, fake_provider.url, stream=False)
    fake_provider.add(status=429, body={"error": {"message": "slow down"}})
    fake_provider.add(body=fake_provider.completion("petals fall softly", prompt_tokens=20, completion_tokens=5))
    fake_provider.add(body=fake_provider.completion("Petals fall, softly.", prompt_tokens=30, completion_tokens=6))

    code = cli_main(["run", flow, "--provider", "local", "--no-wait", "--no-journal", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    assert doc["status"] == "completed"
    assert "Petals fall, softly." in json.dumps(doc)
    bodies = [r["json"] for r in fake_provider.requests]
    assert len(bodies) == 3  # the 429 was retried as transient
    assert bodies[0]["messages"][0]["role"] == "system"  # the built-in writer agent's prompt
    assert bodies[0]["messages"][0]["content"].startswith("You are a writer.")
    assert bodies[2]["messages"][-1]["content"] == "Polish this: petals fall softly"
    assert "sk-e2e-0123456789abcdefghij" not in captured.out + captured.err


def test_run_with_streaming_provider(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("E2E_KEY", "sk-e2e-0123456789abcdefghij")
    monkeypatch.chdir(tmp_path)
    flow = write_project(tmp_path, fake_provider.url, stream=True)
    fake_provider.add("sse", events=fake_provider.stream_events(["one ", "two"]))
    fake_provider.add("sse", events=fake_provider.stream_events(["final ", "answer"]))
    code = cli_main(["run", flow, "--provider", "local", "--no-journal"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.strip() == "final answer"
    assert fake_provider.requests[1]["json"]["messages"][-1]["content"] == "Polish this: one two"


def test_run_phase_timeout_against_a_hanging_provider(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "slow.json"
    flow.write_text(json.dumps({"name": "slow", "phases": [
        {"id": "wait", "type": "agent", "task": "take your time", "timeout": 1000}]}))
    (tmp_path / "tftui.toml").write_text(f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n')
    fake_provider.add("hang")
    fake_provider.add("hang")
    code = cli_main(["run", str(flow), "--provider", "local", "--no-wait", "--no-journal", "--json"])
    captured = capsys.readouterr()
    assert code == 1
    doc = json.loads(captured.out)
    assert "Phase timed out after 1000ms (subagent aborted)" in json.dumps(doc)
    assert len(fake_provider.requests) == 1  # phase timeouts are never retried (SPEC §7.3)


def test_budget_with_max_usd_is_refused_without_prices(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "budget.json"
    flow.write_text(json.dumps({"name": "capped", "budget": {"maxUSD": 0.5},
                                "phases": [{"id": "a", "type": "agent", "task": "hi"}]}))
    (tmp_path / "tftui.toml").write_text(f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n'
                                         '[providers.priced]\nbase_url = "' + fake_provider.url + '"\n'
                                         'model = "m"\nprices = { input_per_mtok = 1, output_per_mtok = 1 }\n')
    assert cli_main(["run", str(flow), "--provider", "local", "--no-journal"]) == 1
    assert "This host reports tokens but not cost, so budget.maxUSD cannot be enforced." in capsys.readouterr().out
    assert fake_provider.requests == []
    assert cli_main(["run", str(flow), "--provider", "priced", "--no-journal"]) == 0
    assert len(fake_provider.requests) == 1
    assert cli_main(["run", str(flow), "--agent-cmd", "cat", "--no-journal"]) == 1
    assert "Usage accounting is unavailable for this host" in capsys.readouterr().out
