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
