"""trace.json of a fresh run is built from the live events (tftui.trace.record.LiveTrace) and is
byte for byte what reading the journal back gives (`trace_run_dir`), redaction included."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tftui import run_service
from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.flow.load import load_flow
from tftui.flow.model import Flow
from tftui.trace.record import trace_run_dir

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
FLOWS = sorted(p for p in SAMPLES.glob("*.json") if not p.name.endswith(".replies.json")
               and p.with_name(p.stem + ".replies.json").exists())


def _run(flow: Flow, replies: ScriptedRunner, root: Path, flow_path: str | None = None) -> Path:
    session = run_service.start(flow, args={}, flow_path=flow_path, flow_text=None, root=root, runner=replies)
    asyncio.run(run_service.execute(session, runner=replies, clock=InstantClock()))
    assert session.run_dir is not None and not [n for n in session.notes if n.kind == "trace"]
    return session.run_dir


def _disk_trace(run_dir: Path, tmp_path: Path) -> str:
    path, warnings = trace_run_dir(run_dir, out=tmp_path / "from-journal.json")
    assert path is not None and warnings == []
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", FLOWS, ids=[p.stem for p in FLOWS])
def test_live_trace_equals_the_trace_read_from_the_journal(path: Path, tmp_path: Path) -> None:
    flow = load_flow(path).flow
    assert flow is not None
    replies = ScriptedRunner.from_file(path.with_name(path.stem + ".replies.json"))
    run_dir = _run(flow, replies, tmp_path / "runs", str(path))
    written = (run_dir / "trace.json").read_text(encoding="utf-8")
    assert json.loads(written)["steps"]  # a real trace, not an empty one
    assert written == _disk_trace(run_dir, tmp_path)


def test_a_trace_whose_text_looks_secret_is_the_redacted_one(tmp_path: Path) -> None:
    secret = "sk-" + "A1b2C3d4E5f6G7h8J9k0"
    flow = Flow.model_validate({"name": f"leak {secret}", "phases": [{"id": "a", "task": "go"}]})
    run_dir = _run(flow, ScriptedRunner({"a": "fine"}), tmp_path / "runs")
    written = (run_dir / "trace.json").read_text(encoding="utf-8")
    assert secret not in json.loads(written)["steps"][0]["name"]  # the root step came through the journal's redaction
    assert written == _disk_trace(run_dir, tmp_path)


def test_a_live_trace_read_mid_run_equals_the_trace_of_the_events_so_far() -> None:
    """The debugger's Trace tab reads a LiveTrace while the run goes (tftui/tui/trace_tab.py)."""
    from tftui.engine.run import run_flow
    from tftui.trace.model import dump_columns
    from tftui.trace.record import LiveTrace, trace_columns_from_events

    path = SAMPLES / "subflow_race.json"
    flow = load_flow(path).flow
    assert flow is not None
    replies = ScriptedRunner.from_file(path.with_name(path.stem + ".replies.json"))
    result = asyncio.run(run_flow(flow, runner=replies, clock=InstantClock(), keep_events=True))
    assert result.events is not None
    live = LiveTrace()
    for n, event in enumerate(result.events, start=1):
        live.feed(event)
        if n % 3 == 0 or n == len(result.events):
            expected = trace_columns_from_events(result.events[:n], "tab")
            assert dump_columns(live.columns({}, fixture="tab")) == dump_columns(expected), n


def test_trace_json_is_written_without_reading_the_journal_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One encoding per event: the journal hands each event on as its line holds it (masked
    when it holds a credential), so writing trace.json never reads events.jsonl."""
    from tftui.engine import journal as jr

    secret = "sk-" + "Z9y8X7w6V5u4T3s2R1q0"
    flow = Flow.model_validate({"name": f"leak {secret}", "phases": [
        {"id": "a", "task": "go"}, {"id": "b", "task": "{previous.output}", "dependsOn": ["a"]}]})

    def no_reading(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("events.jsonl was read back to write trace.json")

    monkeypatch.setattr(jr, "load_events", no_reading)
    run_dir = _run(flow, ScriptedRunner({"a": f"key {secret}", "b": "fine"}), tmp_path / "runs")
    written = (run_dir / "trace.json").read_text(encoding="utf-8")
    steps = json.loads(written)["steps"]
    assert secret not in steps[0]["name"]  # the root step as the journal's masked RunStarted says
    assert [s["name"] for s in steps[1:]] == ["a", "b"]
    monkeypatch.undo()
    assert written == _disk_trace(run_dir, tmp_path)


def _engine_events(path: Path) -> list:
    from tftui.engine.run import run_flow

    flow = load_flow(path).flow
    assert flow is not None
    replies = ScriptedRunner.from_file(path.with_name(path.stem + ".replies.json"))
    result = asyncio.run(run_flow(flow, runner=replies, clock=InstantClock(), keep_events=True))
    assert result.events is not None
    return result.events


def _stream(rows: list[dict]) -> list:
    from tftui.engine.events import event_from_json

    return [event_from_json({**row, "seq": n}) for n, row in enumerate(rows, start=1)]


def _odd_stream() -> list:
    """A run killed during b's second call and resumed (its steps re-made: `superseded`), a gate
    reworked by an onBlock round (a policy step changed after it was recorded), a script phase and
    a fall-back whose reason normalization drops (a temp path)."""
    def call(attempt: int, error: str | None, *, done: bool = True) -> list[dict]:
        rows = [{"kind": "attempt_started", "phase_id": "b", "node_path": "b", "attempt": attempt, "prompt": "b"}]
        if done:
            rows.append({"kind": "agent_returned", "phase_id": "b", "node_path": "b", "attempt": attempt,
                         "output": "" if error else "B", "error": error, "exit_code": 1 if error else 0,
                         "duration_ms": 12.5, "usage": {"input": 3, "output": 4}})
        return rows

    types = {"b": "agent", "g": "gate", "s": "script", "f": "agent"}
    start = {"kind": "run_started", "flow_name": "k", "phase_ids": list(types), "phase_types": types}
    return _stream([
        start, {"kind": "phase_started", "phase_id": "s", "phase_type": "script"},
        {"kind": "phase_finished", "phase_id": "s", "status": "done", "output": "x"},
        {"kind": "gate_verdict", "phase_id": "g", "verdict": "block", "source": "judge", "round": 1},
        {"kind": "on_block_round", "phase_id": "g", "round": 1, "targets": ["b"]},
        {"kind": "fallback_used", "phase_id": "f", "reason": "/tmp/run-1/out.json"},
        {"kind": "phase_started", "phase_id": "b"}, *call(0, "503"), *call(1, None, done=False),
        {**start, "resumed": True}, {"kind": "phase_started", "phase_id": "b"}, *call(0, "503"), *call(1, None),
        {"kind": "phase_finished", "phase_id": "b", "status": "done", "output": "B", "attempts": 2},
        {"kind": "run_finished", "status": "completed"},
    ])


STREAMS = {p.stem: (lambda p=p: _engine_events(p)) for p in FLOWS} | {"resumed": _odd_stream}


@pytest.mark.parametrize("fake_clock", [False, True])
@pytest.mark.parametrize("name", list(STREAMS))
def test_a_live_trace_read_after_every_event_equals_the_trace_built_whole(name: str, fake_clock: bool) -> None:
    """The Trace tab reads the live trace again and again while a run goes, and each read makes
    only the rows that changed since the last (record.py, `_Recorder.trace`): every read is the
    trace `tftui trace` makes of the events so far."""
    from tftui.trace.model import dump_columns
    from tftui.trace.record import LiveTrace, trace_columns_from_events

    events = STREAMS[name]()
    live = LiveTrace(fake_clock=fake_clock)
    for n, event in enumerate(events, start=1):
        live.feed(event)
        expected = trace_columns_from_events(events[:n], "tab", fake_clock=fake_clock)
        assert dump_columns(live.columns({}, fixture="tab")) == dump_columns(expected), n


def test_reading_the_live_trace_again_makes_only_the_rows_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 10,000-item map's trace read while it runs: the steps that did not change since the last
    read are not normalized again (before: every read normalized every step)."""
    from tftui.trace import record

    types = {"m": "map"}
    rows: list[dict] = [{"kind": "run_started", "flow_name": "k", "phase_ids": ["m"], "phase_types": types},
                        {"kind": "phase_started", "phase_id": "m", "phase_type": "map"}]
    for item in range(101):
        node = f"m[{item}]"
        rows += [{"kind": "attempt_started", "phase_id": "m", "node_path": node, "attempt": 0, "prompt": "p"},
                 {"kind": "agent_returned", "phase_id": "m", "node_path": node, "attempt": 0, "output": "o",
                  "exit_code": 0}]
    events = _stream(rows)
    live = record.LiveTrace()
    for event in events[:-3]:
        live.feed(event)
    first = live.columns({}, fixture="m")
    normalized: list[int] = []
    whole = record.normalize_columns
    monkeypatch.setattr(record, "normalize_columns", lambda cols, **kw: normalized.append(len(cols)) or whole(cols, **kw))
    for event in events[-3:]:  # item 99's answer, item 100's call and answer
        live.feed(event)
    cols = live.columns({}, fixture="m")
    assert normalized == [3]  # the root, item 99's step (answered since) and item 100's
    assert len(cols) == len(first) + 1 == 102 and cols.statuses[-2:] == ["ok", "ok"]
    assert first.statuses[-1] == "cancelled"  # what the first read gave is as it was
