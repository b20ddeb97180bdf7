"""What a resumed run starts from: the journal folded, and the calls to replay (`tftui run --resume`).

Resume is phase-level: a phase that was in flight when the run stopped runs again from its
start. Two things keep that equal to the uninterrupted run:

- the calls it had already made are replayed from the journal (answers and failures, in
  order; see `tftui.engine.recorded.in_flight_answers`), so a retry does not start counting
  over, a loop keeps its iterations and a map does not pay for its done items again;
- a gate that was in the middle of its onBlock rework rounds starts over from its first
  evaluation, so the upstream phases those rounds re-ran are rolled back to what they were
  when the gate started (else the gate would first judge the last round's output). Their
  calls inside the rounds are replayed too, so the rounds go exactly as before.

Partial re-runs in the debugger are resumes too: a finished run continues with some phases
reset (`PhasesReset`), every other result kept. What they reset is decided here, once:
`u` re-runs the stale phases (`PhasesStale`: marked when a saved edit of the flow file
changes a phase that ran, or what it reads), `r` a gate and everything downstream of it,
and a guard applied to a finished phase re-runs that phase and its downstream.

Pure functions of the event list; nothing here touches files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tftui.engine import events as ev
from tftui.engine.state import PhaseStatus, RunState, fold
from tftui.flow.graph import Dag, diff_flows
from tftui.flow.model import Flow, PhaseBase

RerunReason = Literal["stale", "rerun-gate", "guard-applied"]


def never_repeated(phase: PhaseBase) -> bool:
    """A phase that is never run again on resume when it was in flight (docs/scheduling.md §4.3
    and docs/scheduling.md §4.4): its side effect may already have happened, so it is failed with
    an explanation instead. `idempotent: false` phases and scripts; an approval is asked again, since its
    decision never reached the journal and nothing acted on one."""
    return phase.idempotent is False or phase.type == "script"


def why_never_repeated(phase: PhaseBase) -> str:
    """What makes `phase` a side effect, as the resume messages name it."""
    return "idempotent: false" if phase.idempotent is False else f"a {phase.type} phase"


@dataclass
class ResumePlan:
    state: RunState  # what the resumed run continues from
    rerun: list[str] = field(default_factory=list)  # top-level phases in flight, run again from their start
    replay: list[Any] = field(default_factory=list)  # RecordedCalls, answered from the journal when asked again
    # Calls each node path got answered so far in the run's logical order: a scripted replies
    # file (deterministic by call index) continues from there, as if never interrupted.
    answered: dict[str, int] = field(default_factory=dict)


def plan_resume(events: list[ev.Event], phases: Iterable[Any], folded: RunState | None = None) -> ResumePlan:
    """The resume plan for a journal's events. `phases`: the flow's phases (for `idempotent`);
    `folded`: `fold(events)` if the caller has it already (it becomes the plan's state)."""
    from tftui.engine.recorded import in_flight_answers

    state = folded if folded is not None else fold(events)
    specs = {p.id: p for p in phases}
    running = [
        pid for pid, spec in specs.items()
        if (st := state.phases.get(pid)) is not None and st.status == PhaseStatus.RUNNING and not never_repeated(spec)
    ]
    rounds: list[tuple[int, set[str]]] = []  # (where an in-flight gate started, what its rounds re-ran)
    for gate in running:
        if state.phases[gate].type != "gate":
            continue
        start = _last_fresh_start(events, gate)
        reworked = {pid for e in events[start:] if isinstance(e, ev.OnBlockRound) and e.phase_id == gate
                    for pid in e.rerun if pid != gate}
        if not reworked:
            continue
        before = fold(events[:start])
        for pid in reworked:
            if pid in before.phases:
                state.phases[pid] = before.phases[pid]
        rounds.append((start, reworked))
    rerun = [pid for pid in running if state.phases[pid].status == PhaseStatus.RUNNING]
    replay = in_flight_answers(events, rerun)
    for start, reworked in rounds:  # only their calls inside the rounds: the top-level ones stand
        replay += in_flight_answers(events[start:], reworked - set(rerun))
    return ResumePlan(state=state, rerun=rerun, replay=replay, answered=answered_calls(events))


def answered_calls(events: list[ev.Event]) -> dict[str, int]:
    """Per node path, how many of its calls got an answer, counted in the last run segment (the
    journal after its last `RunStarted`) that has any: a resume replays the answers of what it
    re-runs, so a later segment repeats the earlier ones rather than adding to them."""
    counts: dict[str, int] = {}
    segment: dict[str, int] = {}
    for e in events:
        if isinstance(e, ev.RunStarted):
            counts.update(segment)
            segment = {}
        elif isinstance(e, ev.AgentReturned):
            segment[e.node_path] = segment.get(e.node_path, 0) + 1
        elif isinstance(e, ev.AttemptFailed) and e.why == "aborted" and segment.get(e.node_path):
            segment[e.node_path] -= 1  # cancelled (race loser, abort): it got no answer
    counts.update(segment)
    return {path: n for path, n in counts.items() if n}


def _last_fresh_start(events: list[ev.Event], phase_id: str) -> int:
    for index in range(len(events) - 1, -1, -1):
        e = events[index]
        if isinstance(e, ev.PhaseStarted) and e.phase_id == phase_id and e.depth == 0 and e.round == 0:
            return index
    return 0


# ── partial re-runs (the debugger's `u`, `r` and an applied guard) ───────────────────


def with_downstream(flow: Flow, phase_id: str) -> list[str]:
    """`phase_id` and every phase downstream of it, in flow order: what a gate re-run (`r`)
    or a guard applied to a finished phase re-runs (the other phases keep their outputs)."""
    wanted = {phase_id, *Dag.from_flow(flow).downstream(phase_id)}
    return [p.id for p in flow.phases if p.id in wanted]


def guard_rerun(flow: Flow, state: RunState, phase_id: str) -> list[str] | None:
    """What a guard edit of `phase_id` re-runs at once: the phase and its downstream when the
    phase has finished (its guard was already evaluated); None when the edit simply applies
    once the run reaches the phase."""
    phase = state.phases.get(phase_id)
    if phase is None or not phase.status.terminal:
        return None
    return with_downstream(flow, phase_id)


def reset_phases(flow: Flow, state: RunState, phase_ids: Iterable[str], reason: RerunReason) -> ev.PhasesReset:
    """The event that starts a partial re-run of `phase_ids` (not yet stamped with seq/ts)."""
    wanted = set(phase_ids)
    order = [p.id for p in flow.phases if p.id in wanted]
    order += sorted(wanted - set(order))  # ids the flow no longer has (kept: the fold decides)
    types: dict[str, str] = {p.id: p.type for p in flow.phases if p.id in wanted}
    for pid in order:
        if pid not in types and pid in state.phases:
            types[pid] = state.phases[pid].type
    return ev.PhasesReset(phase_ids=order, phase_types=types, reason=reason)


def _ran(state: RunState) -> set[str]:
    return {pid for pid, st in state.phases.items() if st.status != PhaseStatus.PENDING}


def stale_after_reload(state: RunState, old: Flow, new: Flow) -> ev.PhasesStale | None:
    """What a valid saved edit makes stale (None: no phase changed).

    Changed and added phases and everything downstream of them are stale, but only results
    can go stale: a phase that never ran is not (added phases are, once anything ran).
    Phases the edit removed are dropped from the state."""
    diff = diff_flows(old, new)
    if diff.unchanged:
        return None
    removed = list(diff.removed)
    ran = _ran(state) - set(removed)
    added = set(diff.added)
    stale = [pid for pid in diff.stale if pid in ran or (ran and pid in added)]
    return ev.PhasesStale(phase_ids=stale, removed=removed)


def stale_after_run(state: RunState, ran_version: Flow, saved: Flow) -> ev.PhasesStale | None:
    """A run that ended after the file changed ran the old version of the changed phases (and
    of what depends on them): those that ran are stale. None when nothing new is."""
    if ran_version is saved:
        return None
    diff = diff_flows(ran_version, saved)
    ran = _ran(state)
    newly = [pid for pid in diff.stale if pid in ran and pid not in state.stale]
    return ev.PhasesStale(phase_ids=newly) if newly else None
