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


SECRET = "sk-e2e-0123456789abcdefghij"


def test_503_on_a_side_effect_phase_is_not_retried(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "deploy.json"
    flow.write_text(json.dumps({"name": "deploy", "phases": [
        {"id": "deploy", "type": "agent", "task": "deploy it", "idempotent": False}]}))
    (tmp_path / "tftui.toml").write_text(f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n')
    fake_provider.add(status=503, body={"error": {"message": "upstream overloaded"}})
    fake_provider.add(body=fake_provider.completion("deployed"))
    code = cli_main(["run", str(flow), "--provider", "local", "--no-wait", "--no-journal", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert len(fake_provider.requests) == 1  # idempotent:false removes the transient layer (SPEC §7.4)
    phase = doc["phases"]["deploy"]
    assert phase["status"] == "failed"
    assert "503" in phase["error"]


def test_malformed_body_is_a_hard_failure_naming_the_problem(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "one.json"
    flow.write_text(json.dumps({"name": "one", "phases": [{"id": "ask", "type": "agent", "task": "hi"}]}))
    (tmp_path / "tftui.toml").write_text(f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n')
    fake_provider.add("raw", text="<html>gateway says hello</html>", content_type="text/html")
    code = cli_main(["run", str(flow), "--provider", "local", "--no-wait", "--no-journal", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert len(fake_provider.requests) == 1  # not transient: no retry
    error = doc["phases"]["ask"]["error"]
    assert error == "Malformed response from provider 'local': body is not JSON: '<html>gateway says hello</html>'"


def test_usage_cost_recorded_and_key_absent_from_journal_trace_and_reports(
    fake_provider, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("E2E_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    flow = write_project(tmp_path, fake_provider.url, stream=False)
    # A provider that quotes the key back in an error, then answers: the key must still never be written.
    fake_provider.add(status=429, echo_auth=True)
    fake_provider.add(body=fake_provider.completion("petals", prompt_tokens=20, completion_tokens=5))
    fake_provider.add(body=fake_provider.completion("Petals.", prompt_tokens=30, completion_tokens=6))
    runs = tmp_path / "runs"
    code = cli_main(["run", flow, "--provider", "local", "--no-wait", "--runs-dir", str(runs), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert fake_provider.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"  # it was really sent
    doc = json.loads(captured.out)
    polish = doc["phases"]["polish"]["usage"]
    assert polish["input"] == 30 and polish["output"] == 6
    assert abs(polish["costUSD"] - 36 / 1_000_000) < 1e-12  # 1 USD per million tokens each way

    (run_dir,) = list(runs.iterdir())
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\nid = "required_steps"\nnames = ["draft", "polish"]\n')
    assert cli_main(["gate", str(run_dir), "--rules", str(rules), "--json", str(tmp_path / "report.json"),
                     "--md", str(tmp_path / "report.md")]) == 0
    written = [run_dir / "events.jsonl", run_dir / "trace.json", run_dir / "meta.json",
               tmp_path / "report.json", tmp_path / "report.md"]
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert SECRET not in text, path
        assert SECRET[-8:] not in text, path  # not even a tail of it
    trace = json.loads((run_dir / "trace.json").read_text())
    assert [s["name"] for s in trace["steps"] if s["kind"] == "model"] == ["draft", "draft", "polish"]
    assert "Petals." in captured.out and SECRET not in captured.out + captured.err
