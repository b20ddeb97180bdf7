"""The model calls a recording made, read from its events (for cassette mode and resume).

`recorded_calls` is every finished call of a run (what `CassetteRunner` replays and a
bundle's replies file holds); `in_flight_answers` is what an interrupted run already got
for the phases a resume re-runs. Both return `tftui.agents.cassette.RecordedCall`s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tftui.agents.cassette import RecordedCall
from tftui.engine import events as ev

# A recording's events, as the engine emits them or as journal JSON objects.
EventItems = Iterable[ev.Event | dict[str, Any]]


def _as_events(items: EventItems) -> list[ev.Event]:
    return [ev.event_from_json(item) if isinstance(item, dict) else item for item in items]


def recorded_calls(events: EventItems) -> list[RecordedCall]:
    """Every finished model call of a recording, in call order (cancelled calls left out).

    A journal may hold an interrupted run followed by its resume (`tftui run --resume`): the
    resume re-runs every phase that had not finished, so the calls those phases made before
    the interruption are not part of what the finished run did and are dropped.
    """
    calls: list[RecordedCall] = []
    open_calls: dict[tuple[str, int], RecordedCall] = {}
    finished: set[str] = set()
    for e in _as_events(events):
        if isinstance(e, ev.RunStarted) and e.resumed:
            calls = [c for c in calls if not c.phase_id or c.phase_id in finished]
            open_calls.clear()
        elif isinstance(e, ev.PhaseFinished):
            finished.add(e.phase_id)
        elif isinstance(e, ev.AttemptStarted):
            call = RecordedCall(e.node_path, e.attempt, e.prompt, phase_id=e.phase_id)
            open_calls[(e.node_path, e.attempt)] = call
        elif isinstance(e, ev.AgentReturned):
            if (answered := _answered(open_calls, e)) is not None:
                calls.append(answered)
        elif isinstance(e, ev.AttemptFailed) and e.why == "aborted":
            for call in reversed(calls):
                if call.node_path == e.node_path and call.attempt == e.attempt:
                    call.aborted = True
                    break
    return [c for c in calls if not c.aborted]


def in_flight_answers(events: EventItems, phase_ids: Iterable[str]) -> list[RecordedCall]:
    """The answers an interrupted run already got for phases still in flight when it stopped.

    For each top-level phase in `phase_ids`: every call it made (nested ones included) since it
    last started fresh (a top-level start, not an onBlock re-run inside a round), in call order,
    failures included. A resume re-runs such a phase from its start; replaying what it already
    got — a 503 and its retry, a loop's failed iteration, a gate's BLOCK before the rework
    round — keeps its attempt counts and results those of an uninterrupted run, and a map
    killed at item 900 of 1,000 does not pay for 900 calls again. Calls cut short by the
    interruption or cancelled (aborted) are left out: they never got an answer.
    """
    wanted = set(phase_ids)
    per_phase: dict[str, list[RecordedCall]] = {pid: [] for pid in wanted}
    open_calls: dict[tuple[str, int], RecordedCall] = {}
    for e in _as_events(events):
        if isinstance(e, ev.PhaseStarted) and e.phase_id in per_phase and e.depth == 0 and e.round == 0:
            per_phase[e.phase_id] = []  # a fresh start (a resume, a re-run): older answers had other inputs
        elif isinstance(e, ev.AttemptStarted) and e.phase_id.split("/")[0] in per_phase:
            open_calls[(e.node_path, e.attempt)] = RecordedCall(e.node_path, e.attempt, e.prompt, phase_id=e.phase_id)
        elif isinstance(e, ev.AgentReturned):
            if (answered := _answered(open_calls, e)) is not None:
                per_phase[answered.phase_id.split("/")[0]].append(answered)
        elif isinstance(e, ev.AttemptFailed) and e.why == "aborted" and e.phase_id.split("/")[0] in per_phase:
            calls = per_phase[e.phase_id.split("/")[0]]
            for index in range(len(calls) - 1, -1, -1):
                if calls[index].node_path == e.node_path and calls[index].attempt == e.attempt:
                    del calls[index]  # cancelled (race loser, user abort): not an answer
                    break
    return [call for pid in per_phase for call in per_phase[pid]]


def _answered(open_calls: dict[tuple[str, int], RecordedCall], e: ev.AgentReturned) -> RecordedCall | None:
    """The started call `e` answers, filled in with its answer; None for a return without its
    start (a truncated journal)."""
    call = open_calls.pop((e.node_path, e.attempt), None)
    if call is not None:
        call.output, call.error, call.usage = e.output, e.error, e.usage
        call.exit_code, call.timed_out = e.exit_code, e.timed_out
    return call
