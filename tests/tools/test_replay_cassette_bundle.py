"""Time travel, cassette mode and repro bundles."""

from __future__ import annotations

import json
import random

import pytest

from tftui import present
from tftui.agents.cassette import CassetteRunner
from tftui.agents.scripted import ScriptedRunner
from tftui.bundle import BundleError, export_bundle, load_recording, open_bundle, open_replay
from tftui.cli import main
from tftui.engine import events as ev
from tftui.engine import replay as replay_mod
from tftui.engine.events import event_to_json
from tftui.engine.recorded import recorded_calls
from tftui.engine.replay import Replay, ReplayError
from tftui.engine.state import fold
from tftui.flow.model import Flow

MAP = {
    "phases": [
        {"id": "plan", "task": "p", "output": "json"},
        {"id": "each", "type": "map", "dependsOn": ["plan"], "over": "{steps.plan.json}", "task": "do {item}"},
        {"id": "sum", "type": "reduce", "from": ["each"], "task": "sum"},
    ]
}


def _same(a, b) -> bool:
    return a == b  # RunState and its parts are dataclasses: field-by-field equality


async def test_replay_matches_folding_a_prefix(tools, monkeypatch):
    monkeypatch.setattr(replay_mod, "CHECKPOINT_EVERY", 7)  # many checkpoints in a short run
    replies = {"plan": json.dumps(list(range(12))), "each#item-3": [{"error": "429 rate limit"}, "ok"], "sum": "S"}
    replies.update({f"each#item-{i}": f"r{i}" for i in range(12) if i != 3})
    _, result, _ = await tools.run_dict(MAP, replies)
    events = result.events
    rp = Replay(events)
    assert len(rp) == rp.len == len(events) > 30
    for i in range(1, len(events) + 1):  # stepping forward
        assert _same(rp.step(), fold(events[:i])) and rp.position == i
    assert rp.step() is rp.state and rp.position == len(events)  # clamped at the end
    for i in range(len(events) - 1, -1, -1):  # stepping back
        assert _same(rp.back(), fold(events[:i])) and rp.position == i
    rng = random.Random(7)
    for _ in range(60):  # random jumps
        i = rng.randrange(len(events) + 1)
        assert _same(rp.state_at(i), fold(events[:i]))
    # a checkpoint is never mutated by folding past it
    rp.to_end()
    assert _same(rp.state_at(7), fold(events[:7]))


async def test_jumps_to_phase_start_and_end(tools):
    _, result, _ = await tools.run_sample("onblock_rework")
    rp = Replay(result.events)
    state = rp.jump_to_phase_start("implement")
    assert state.phases["implement"].status == "running" and isinstance(rp.current_event, ev.PhaseStarted)
    first = rp.position
    rp.jump_to_phase_start("implement")  # the next start: the onBlock re-run
    assert rp.position > first and rp.state.phases["implement"].round == 1
    rp.jump_to_phase_end("quality")
    assert rp.state.phases["quality"].gate["verdict"] == "pass"
    assert rp.state.phases["ship"].status == "pending"
    assert rp.jump_to_phase_start("nope") is None


async def test_cassette_replays_everything_when_nothing_changed(tools):
    _, recorded, _ = await tools.run_sample("validate_judge")
    cassette = CassetteRunner(recorded_calls(recorded.events), tools.FailRunner())
    flow, result, _ = await tools.run_sample("validate_judge", runner=cassette)
    assert (cassette.replayed, cassette.live) == (3, 0)
    assert result.final_output == recorded.final_output
    assert result.phases["check-response"].gate == recorded.phases["check-response"].gate
    assert result.usage["input"] == 0 and cassette.saved_usage.input == 42 + 310 + 40


async def test_cassette_calls_live_exactly_once_for_one_changed_prompt(tools):
    _, recorded, _ = await tools.run_sample("validate_judge")
    data = json.loads((tools.SAMPLES / "validate_judge.json").read_text(encoding="utf-8"))
    data["phases"][2]["task"] += " Be brief."
    live = ScriptedRunner({"report": "brief summary"})
    cassette = CassetteRunner(recorded_calls(recorded.events), live)
    result = await tools.run_dict(data, {}, runner=cassette)
    assert (cassette.replayed, cassette.live) == (2, 1)
    assert [r.node_path for r in live.calls] == ["report"]
    assert result[1].final_output == "brief summary"
    assert cassette.log == [("generate", "replay"), ("check-response#judge", "replay"), ("report", "live")]


async def test_cassette_without_live_runner_names_the_node(tools):
    _, recorded, _ = await tools.run_sample("transient_retry")
    data = json.loads((tools.SAMPLES / "transient_retry.json").read_text(encoding="utf-8"))
    data["phases"][1]["task"] = "Something else: {steps.fetch.output}"
    cassette = CassetteRunner(recorded_calls(recorded.events), None)
    _, result, _ = await tools.run_dict(data, {}, runner=cassette)
    # the recorded 429/503/ok sequence is replayed in order, retries included
    assert result.phases["fetch"].attempts == 3 and result.phases["fetch"].status == "done"
    assert result.phases["summarize"].status == "failed"
    assert "no recorded answer for node path 'summarize'" in result.phases["summarize"].error


def _journaled_run(tmp_path, name: str):
    runs = tmp_path / "runs"
    code = main(["run", f"sample_flows/{name}.json", "--runs-dir", str(runs), "--quiet", "--no-wait"])
    assert code == 0
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    return run_dir


@pytest.fixture
def in_repo(monkeypatch, tools):
    monkeypatch.chdir(tools.SAMPLES.parent)


@pytest.fixture
def onblock_run_dir(tmp_path, in_repo):
    return _journaled_run(tmp_path, "onblock_rework")


async def test_bundle_round_trip(tmp_path, onblock_run_dir, tools):
    run_dir = onblock_run_dir
    path, warnings = export_bundle(run_dir, tmp_path / "repro.tftui.zip")
    assert warnings == []
    rec = open_bundle(path)
    original = open_replay(run_dir)
    assert [event_to_json(e) for e in rec.events] == [event_to_json(e) for e in original.events]
    assert rec.flow_text == (run_dir / "flow.json").read_text(encoding="utf-8")
    assert rec.meta["runId"] == run_dir.name and rec.trace_text
    # the bundle's answers re-run the flow offline to the same result
    flow = Flow.model_validate_json(rec.flow_text)
    _, rerun, _ = await tools.run_dict(json.loads(rec.flow_text), rec.replies)
    assert rerun.final_output == original.to_end().final_output
    assert flow.name == "onblock-rework"
    # and the bundle replays like the run directory, also as a cassette
    assert open_replay(path).to_end() == original.state
    cassette = CassetteRunner(recorded_calls(load_recording(path).events), tools.FailRunner())
    await tools.run_dict(json.loads(rec.flow_text), {}, runner=cassette)
    assert cassette.live == 0 and cassette.replayed == 5


def test_bad_sources(tmp_path):
    junk = tmp_path / "junk.tftui.zip"
    junk.write_text("not a zip")
    with pytest.raises(BundleError, match="not a tftui bundle"):
        open_bundle(junk)
    with pytest.raises(ReplayError, match="no such run directory"):
        open_replay(tmp_path / "missing")
    with pytest.raises(ReplayError, match="not a run directory"):
        open_replay(tmp_path)


def test_replay_command(tmp_path, in_repo, capsys):
    run_dir = _journaled_run(tmp_path, "transient_retry")
    capsys.readouterr()
    assert main(["replay", str(run_dir), "--print"]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(events)
    # the debugger's event log wording (one describer), the status glyphs of the one table
    assert "fetch: returned in" in lines[3] and "with error: 429 Too Many Requests" in lines[3]
    assert lines[-1].endswith(f"run_finished       {present.glyph('completed')} run finished: completed"
                              "  | run completed · done 2 · 4 calls · 187 tok")
    bundle = tmp_path / "out.tftui.zip"
    assert main(["replay", str(run_dir), "--export", str(bundle)]) == 0
    assert capsys.readouterr().out.strip() == str(bundle)
    assert main(["replay", str(bundle), "--print"]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    assert main(["replay", str(tmp_path / "nothing-here")]) == 2
    assert main(["replay", str(bundle), "--export", str(tmp_path / "x.zip")]) == 2


async def test_data_breakpoints_in_a_replay(tools):
    _, result, _ = await tools.run_sample("transient_retry")
    rp = Replay(result.events)
    state = rp.seek("{phase.id} == fetch && {phase.attempt} >= 2")
    assert state is not None and isinstance(rp.current_event, ev.AttemptStarted)
    assert (rp.current_event.node_path, rp.current_event.attempt) == ("fetch", 1)
    assert [a.status for a in state.phases["fetch"].attempt_log] == ["failed", "running"]
    here = rp.position
    assert rp.seek("{run.tokens} > 100") is not None and rp.position > here
    assert rp.state.usage["input"] + rp.state.usage["output"] > 100
    back = rp.seek("{phase.id} == fetch && {phase.attempt} >= 2", backward=True)
    assert back is not None and rp.position == here
    end = rp.position
    assert rp.seek("{run.tokens} > 100000") is None and rp.position == end  # never true: stays put
    assert rp.seek("{phase.id} ==") is None  # does not parse


def test_headless_replay_never_imports_textual(tmp_path, in_repo):
    import subprocess
    import sys

    run_dir = _journaled_run(tmp_path, "validate")
    code = (
        "import sys\nfrom tftui.cli import main\n"
        f"rc = main(['replay', {str(run_dir)!r}, '--print'])\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "assert rc == 0 and not bad, (rc, bad[:3])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


async def test_bundle_carries_a_guard_edited_in_the_debugger(tmp_path, tools):
    """A guard applied with the guard editor (`e`, `enter`) is the guard the run evaluated: the
    bundle's flow.json has it written in, so its flow and answers re-run what was run."""
    from tftui.engine.debugger import Debugger
    from tftui.engine.journal import Journal
    from tftui.engine.run import run_flow

    text = (tools.SAMPLES / "conditional_review.json").read_text(encoding="utf-8")
    flow = Flow.model_validate_json(text)
    edited = "{steps.triage.json.severity} != low"
    debugger = Debugger()
    debugger.set_guard("quick-summary", edited)
    journal = Journal.create(tmp_path / "runs", flow_name=flow.name, flow_text=text)
    runner = ScriptedRunner.from_file(tools.SAMPLES / "conditional_review.replies.json")
    try:
        result = await run_flow(flow, runner=runner, debugger=debugger, journal=journal, keep_events=True)
    finally:
        journal.close()
    assert result.phases["quick-summary"].status == "done"  # the edit made it run (triage says high)

    path, warnings = export_bundle(journal.run_dir, tmp_path / "repro.tftui.zip")
    assert warnings == [f"flow.json has the guard of 'quick-summary' as edited in the debugger: {edited}"]
    rec = open_bundle(path)
    phases = {p["id"]: p for p in json.loads(rec.flow_text)["phases"]}
    assert phases["quick-summary"]["when"] == edited
    assert phases["deep-audit"]["when"] == "{steps.triage.json.severity} == high"  # not edited: as in the file
    assert rec.flow_text.count("\n") == text.count("\n")  # only the guard's text changed
    assert rec.meta["runId"] == journal.run_dir.name
    _, rerun, _ = await tools.run_dict(json.loads(rec.flow_text), rec.replies)
    assert {pid: p.status for pid, p in rerun.phases.items()} == {pid: p.status for pid, p in result.phases.items()}


async def test_bundle_of_a_run_without_edited_guards_keeps_the_flow_file(tmp_path, onblock_run_dir):
    path, _ = export_bundle(onblock_run_dir, tmp_path / "plain.tftui.zip")
    import zipfile

    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("bundle.json"))
    assert "editedGuards" not in manifest
