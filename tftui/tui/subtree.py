"""Sub-flows and grafted expand children in the DAG tree (pure; no Textual).

Node ids follow the engine's naming, so pauses, breakpoints and the event log line up:
- a nested sub-flow's phase (`flow` phases, `expand` in nested mode) is `<parent>/<child>`,
  deeper levels add segments (`research/inner/points`); its state is the parent's
  `PhaseState.sub` (a RunState folded from SubflowEvents), looked up segment by segment;
- a grafted expand child is the top-level phase `<expandId>-<childId>` (not in the flow,
  not in `RunStarted.phase_ids`): it is shown under the expand phase that added it
  (`PhasesGrafted`, folded into `RunState.graft_parent`) as it appears.
"""

from __future__ import annotations

import dataclasses

from tftui.engine.state import PhaseState, RunState


def state_at(state: RunState | None, phase_id: str) -> PhaseState | None:
    """The state of a top-level, grafted or nested (`a/b/c`) phase; None when unknown."""
    if state is None:
        return None
    found = state.phases.get(phase_id)
    if found is not None or "/" not in phase_id:
        return found
    head, *rest = phase_id.split("/")
    current = state.phases.get(head)
    for part in rest:
        if current is None or current.sub is None:
            return None
        current = current.sub.phases.get(part)
    return current


def nested_children(state: RunState | None, phase_id: str) -> list[str]:
    """Ids of the phases of `phase_id`'s sub-run (one level), in the child run's order."""
    phase = state_at(state, phase_id)
    if phase is None or phase.sub is None:
        return []
    return [f"{phase_id}/{child}" for child in phase.sub.phases]


def parent_of(phase_id: str, state: RunState | None) -> str | None:
    """Where a phase that is not in the flow's tree hangs: the graft-mode expand phase that added
    it (the engine records it: `RunState.graft_parent`, in the sub-run's state for a graft inside
    a sub-flow: `a/x-b` -> `a/x`), else its sub-flow parent (`a/b` -> `a`); None: a top-level node."""
    if "/" not in phase_id:
        return state.graft_parent.get(phase_id) if state is not None else None
    head, child = phase_id.rsplit("/", 1)
    holder = state_at(state, head)
    expand = holder.sub.graft_parent.get(child) if holder is not None and holder.sub is not None else None
    return f"{head}/{expand}" if expand else head


def detail_state(state: RunState | None, phase_id: str) -> PhaseState | None:
    """What the detail panel shows for a phase: its state; for a nested phase, a copy whose
    attempt log holds its model calls. A sub-flow's calls are journaled as attempts of the
    top-level phase with full node paths (`research/points`, `research/each#item-0`), so
    the child state itself has none."""
    found = state_at(state, phase_id)
    if found is None or "/" not in phase_id or found.attempt_log:
        return found
    top = state.phases.get(phase_id.split("/", 1)[0]) if state is not None else None
    if top is None:
        return found
    calls = [a for a in top.attempt_log if a.node_path == phase_id or a.node_path.startswith(phase_id + "#")]
    return dataclasses.replace(found, attempt_log=calls) if calls else found
