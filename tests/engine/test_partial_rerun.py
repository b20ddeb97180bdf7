"""Partial re-runs and stale marking are engine decisions (events folded by every front end):
what `u`, `r` and an applied guard re-run, what a saved edit makes stale, where a grafted
expand child hangs."""

from __future__ import annotations

from tftui.agents.scripted import ScriptedRunner
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.resume import (
    guard_rerun,
    reset_phases,
    stale_after_reload,
    stale_after_run,
    with_downstream,
)
from tftui.engine.run import run_flow
from tftui.engine.state import PhaseStatus, RunState, apply, fold
from tftui.flow.model import Flow


def _flow(*phases: dict) -> Flow:
    return Flow.model_validate({"name": "f", "phases": list(phases)})


BASE = (
    {"id": "a", "task": "A"},
    {"id": "b", "task": "B {steps.a.output}", "dependsOn": ["a"]},
    {"id": "c", "task": "C {steps.b.output}", "dependsOn": ["b"]},
    {"id": "side", "task": "S"},
)
REPLIES = {"a": "ra", "b": "rb", "c": "rc", "side": "rs", "d": "rd"}


async def _ran(flow: Flow) -> RunState:
    result = await run_flow(flow, runner=ScriptedRunner(REPLIES), clock=InstantClock())
    assert result.state is not None
    return result.state


def test_with_downstream_is_the_phase_and_what_reads_it_in_flow_order() -> None:
    flow = _flow(*BASE)
    assert with_downstream(flow, "b") == ["b", "c"]
    assert with_downstream(flow, "a") == ["a", "b", "c"]
    assert with_downstream(flow, "side") == ["side"]


async def test_guard_rerun_only_for_a_finished_phase() -> None:
    flow = _flow(*BASE)
    assert guard_rerun(flow, RunState(), "b") is None  # not run yet: applies when the run reaches it
    state = await _ran(flow)
    assert guard_rerun(flow, state, "b") == ["b", "c"]


async def test_reset_fold_makes_phases_pending_as_if_never_run() -> None:
    flow = _flow(*BASE)
    state = await _ran(flow)
    event = reset_phases(flow, state, {"c", "b"}, "rerun-gate")
    assert event.phase_ids == ["b", "c"] and event.reason == "rerun-gate"
    apply(state, event)
    assert state.phases["b"].status == PhaseStatus.PENDING and state.phases["b"].attempt_log == []
    assert state.phases["b"].output is None and state.phases["b"].runs == 0
    assert state.phases["a"].output == "ra"  # kept
    # a journaled reset survives the JSON round trip
    assert ev.event_from_json(ev.event_to_json(event)) == event


async def test_reload_marks_changed_and_downstream_that_ran_and_drops_removed() -> None:
    old = _flow(*BASE)
    state = await _ran(old)
    new = _flow(
        {"id": "a", "task": "A"},
        {"id": "b", "task": "B2 {steps.a.output}", "dependsOn": ["a"]},
        {"id": "c", "task": "C {steps.b.output}", "dependsOn": ["b"]},
        {"id": "d", "task": "D"},
    )
    event = stale_after_reload(state, old, new)
    assert event is not None
    assert event.phase_ids == ["b", "c", "d"] and event.removed == ["side"]
    apply(state, event)
    assert state.stale == {"b", "c", "d"} and "side" not in state.phases
    assert stale_after_reload(state, new, new) is None  # nothing changed


def test_before_any_run_nothing_goes_stale() -> None:
    old = _flow(*BASE)
    new = _flow({"id": "a", "task": "A2"}, *BASE[1:])
    event = stale_after_reload(RunState(), old, new)
    assert event is not None and event.phase_ids == []


async def test_a_rerun_clears_stale_marks_and_stale_after_run_adds_what_ran_the_old_version() -> None:
    old = _flow(*BASE)
    new = _flow({"id": "a", "task": "A"}, {"id": "b", "task": "B2 {steps.a.output}", "dependsOn": ["a"]}, *BASE[2:])
    state = await _ran(old)  # a run that started before the edit was saved
    marked = stale_after_run(state, old, new)
    assert marked is not None and marked.phase_ids == ["b", "c"]
    apply(state, marked)
    assert stale_after_run(state, old, new) is None  # already marked
    apply(state, reset_phases(new, state, sorted(state.stale), "stale"))
    assert state.stale == set()


async def test_graft_parent_is_recorded_before_the_children_finish() -> None:
    fragment = {"name": "frag", "phases": [{"id": "a", "task": "a"}, {"id": "b", "task": "b", "dependsOn": ["a"]}]}
    flow = _flow({"id": "fan", "type": "expand", "expandMode": "graft", "def": fragment},
                 {"id": "fan-out", "task": "not a child, despite the prefix"})
    seen: list[ev.Event] = []
    result = await run_flow(flow, runner=ScriptedRunner({"fan-a": "A", "fan-b": "B", "fan-out": "x"}),
                            clock=InstantClock(), on_event=seen.append)
    grafted = [e for e in seen if isinstance(e, ev.PhasesGrafted)]
    assert [(e.phase_id, e.phase_ids) for e in grafted] == [("fan", ["fan-a", "fan-b"])]
    first_child = next(i for i, e in enumerate(seen) if getattr(e, "phase_id", "") == "fan-a")
    assert seen.index(grafted[0]) < first_child
    assert result.state is not None and result.state.graft_parent == {"fan-a": "fan", "fan-b": "fan"}
    # an older journal without the event: the expand phase's finish says it too
    older = fold(e for e in seen if not isinstance(e, ev.PhasesGrafted))
    assert older.graft_parent == {"fan-a": "fan", "fan-b": "fan"}
