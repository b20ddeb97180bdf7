"""What a resumed run starts from: the journal folded, and the calls to replay (`tftui run --resume`).

Resume is phase-level: a phase that was in flight when the run stopped runs again from its
start. Two things keep that equal to the uninterrupted run:

- the calls it had already made are replayed from the journal (answers and failures, in
  order; see `tftui.agents.cassette.in_flight_answers`), so a retry does not start counting
  over, a loop keeps its iterations and a map does not pay for its done items again;
- a gate that was in the middle of its onBlock rework rounds starts over from its first
  evaluation, so the upstream phases those rounds re-ran are rolled back to what they were
  when the gate started (else the gate would first judge the last round's output). Their
  calls inside the rounds are replayed too, so the rounds go exactly as before.

Pure functions of the event list; nothing here touches files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tftui.engine import events as ev
from tftui.engine.state import PhaseStatus, RunState, fold


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
    from tftui.agents.cassette import in_flight_answers

    state = folded if folded is not None else fold(events)
    specs = {p.id: p for p in phases}
    running = [
        pid for pid, spec in specs.items()
        if (st := state.phases.get(pid)) is not None and st.status == PhaseStatus.RUNNING and spec.idempotent is not False
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
