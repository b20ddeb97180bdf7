"""Interpolation contexts rebuilt from a folded RunState (no live Run needed).

The debugging tools (what-if, guard editor, reachability, replay) ask "what would this
phase see now?" after the run ended or at some point of a recording. The live engine
builds contexts from `run.views` (tftui.engine.context); this module builds the same
views from `RunState.phases`, so both agree: done phases show their output/json,
failed ones the failed-phase sentinel, skipped/pending ones are absent.
"""

from __future__ import annotations

from typing import Any

from tftui.engine.context import previous_output_of, step_view
from tftui.engine.state import PhaseStatus, RunState
from tftui.flow.graph import Dag
from tftui.flow.model import Flow
from tftui.lang.interpolate import Context, StepView


def views_from_state(state: RunState) -> dict[str, StepView]:
    views: dict[str, StepView] = {}
    for pid, st in state.phases.items():
        if st.status in (PhaseStatus.DONE, PhaseStatus.FAILED):
            views[pid] = step_view(st.status, st.output, st.json, st.error)
    return views


def previous_output_from_state(flow: Flow | None, state: RunState, phase_id: str, dag: Dag | None = None) -> str | None:
    """docs/language.md §3.3 over a RunState: the last `done` dependency's output (reduce: its `from` entries)."""
    if flow is None:
        return None
    phase = next((p for p in flow.phases if p.id == phase_id), None)
    if phase is None:
        return None
    edges = (dag or Dag.from_flow(flow)).deps.get(phase_id, [])
    return previous_output_of(phase, state.phases, edges)


def context_from_state(
    flow: Flow | None,
    state: RunState,
    phase_id: str | None = None,
    *,
    args: dict[str, Any] | None = None,
    dag: Dag | None = None,
    views: dict[str, StepView] | None = None,
) -> Context:
    """The Context a phase would get now: run args (flow defaults under the run's args),
    the views of every finished phase and `{previous.output}` for `phase_id`."""
    merged: dict[str, Any] = dict(flow.arg_defaults()) if flow is not None else {}
    merged.update(state.args or {})
    if args:
        merged.update(args)
    return Context(
        args=merged,
        steps=views if views is not None else views_from_state(state),
        previous_output=previous_output_from_state(flow, state, phase_id, dag) if phase_id else None,
    )
