"""The one journaled-run service: a fresh run, a seeded partial re-run and a resume each leave
a run directory whose journal alone folds to the run's state, with trace.json beside it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tftui import run_service
from tftui.agents.scripted import ScriptedRunner
from tftui.engine import journal as jr
from tftui.engine.clock import InstantClock
from tftui.engine.state import PhaseStatus, fold
from tftui.flow.model import Flow

FLOW = {
    "name": "svc",
    "phases": [
        {"id": "a", "task": "A"},
        {"id": "b", "task": "B {steps.a.output}", "dependsOn": ["a"], "final": True},
    ],
}


def _flow() -> Flow:
    return Flow.model_validate(FLOW)


def _journal_state(run_dir: Path):
    rows, _meta, warnings = jr.read_journal(run_dir)
    assert warnings == []
    events, problems = jr.decode_events(rows)
    assert problems == []
    return rows, fold(events)


async def test_fresh_then_seeded_rerun(tmp_path: Path) -> None:
    flow, runner = _flow(), ScriptedRunner({"a": ["a1", "a2"], "b": ["b1", "b2"]})
    text = json.dumps(FLOW)
    first = run_service.start(flow, args={}, flow_path=None, flow_text=text, root=tmp_path, runner=runner)
    assert [n.kind for n in first.notes] == ["journal-opened"]
    result = await run_service.execute(first, runner=runner, clock=InstantClock())
    assert result.status == "completed" and first.run_dir is not None
    assert (first.run_dir / "trace.json").exists()

    seen = []
    again = run_service.seed(flow, copy.deepcopy(result.state), ["b"], "rerun-gate", args={}, flow_path=None,
                             flow_text=text, root=tmp_path, previous=first.run_dir, clock=InstantClock())
    assert [n.kind for n in again.notes] == ["seeded"] and again.notes[0].previous == first.run_dir.name
    rerun = await run_service.execute(again, runner=runner, clock=InstantClock(), on_event=seen.append)
    assert [c.node_path for c in runner.calls] == ["a", "b", "b"]  # only b ran again
    assert seen[0].kind == "phases_reset" and seen[0].phase_ids == ["b"]
    assert again.run_dir is not None and again.run_dir != first.run_dir
    rows, state = _journal_state(again.run_dir)
    kinds = [r["kind"] for r in rows]
    assert kinds.count("run_started") == 2 and "phases_reset" in kinds
    assert [r["seq"] for r in rows] == sorted(r["seq"] for r in rows)  # one sequence across seed and re-run
    assert {pid: st.output for pid, st in state.phases.items()} == {"a": "a1", "b": "b2"}
    assert rerun.state is not None and state.phases["b"].output == rerun.state.phases["b"].output
    assert jr.read_meta(again.run_dir)["seededFrom"] == first.run_dir.name
    assert (again.run_dir / "trace.json").exists()
    _rows, before = _journal_state(first.run_dir)  # the earlier run directory is left as it was
    assert before.phases["b"].output == "b1"


def test_unwritable_root_is_a_note_not_a_crash(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    session = run_service.start(_flow(), args={}, flow_path=None, flow_text=None, root=blocker, runner=None)
    assert session.journal is None and [n.kind for n in session.notes] == ["not-journaled"]


async def test_resume_continues_the_same_journal(tmp_path: Path) -> None:
    flow, runner = _flow(), ScriptedRunner({"a": "a1", "b": "b1"})
    first = run_service.start(flow, args={}, flow_path=None, flow_text=json.dumps(FLOW), root=tmp_path, runner=runner)
    await run_service.execute(first, runner=runner, clock=InstantClock())
    assert first.run_dir is not None
    # cut the journal after a's result, as a kill would
    rows, _meta, _w = jr.read_journal(first.run_dir)
    cut = next(i for i, r in enumerate(rows) if r["kind"] == "phase_finished") + 1
    (first.run_dir / jr.EVENTS_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows[:cut]))

    recorded = run_service.read_recorded(first.run_dir)
    session = run_service.resume(recorded, flow, args={}, flow_path="svc.json")
    assert session.resumed is not None and (session.resumed.finished, session.resumed.total) == (1, 2)
    run_service.reopen(session)
    later = ScriptedRunner({"a": "never", "b": "b1"})
    result = await run_service.execute(session, runner=session.runner_for(later), clock=InstantClock())
    assert result.status == "completed" and [c.node_path for c in later.calls] == ["b"]
    _rows, state = _journal_state(first.run_dir)
    assert state.status == "completed" and state.phases["b"].status == PhaseStatus.DONE


async def test_a_finished_run_lets_its_trace_recorder_go(tmp_path: Path) -> None:
    """The session keeps its journal until the next run; the trace written at the end of the run
    is not kept with it (a 10,000-item map's recorder is 10,000 objects every full garbage
    collection walks while the debugger shows the run)."""
    flow, runner = _flow(), ScriptedRunner({"a": "a1", "b": "b1"})
    session = run_service.start(flow, args={}, flow_path=None, flow_text=json.dumps(FLOW), root=tmp_path, runner=runner)
    await run_service.execute(session, runner=runner, clock=InstantClock())
    assert session.journal is not None and (session.journal.run_dir / "trace.json").exists()
    assert session.journal.tap is None and session.live_trace is None
