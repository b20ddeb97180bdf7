"""Cassette mode: answer model calls from a recorded run while their prompts are unchanged.

    runner = CassetteRunner(run_dir_or_bundle_or_events, live_runner)

For each request, the recorded calls with the same node path and a byte-identical
prompt are replayed in the order they were made (so retries and onBlock re-runs with
the same prompt get the recorded sequence of answers: failures included, since a
retried 429 is part of what happened). Anything else — a prompt that changed, a node
path the recording never called, more calls than were recorded — goes to
`live_runner`; without one the call fails with a message naming the node path.

Replayed answers cost nothing now: by default they are returned WITHOUT usage (zero
new tokens, budgets untouched); the tokens the recording spent on them are summed in
`saved_usage`. Pass `replay_usage=True` to report the recorded usage instead (a
faithful re-enactment of the recorded costs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tftui.agents.base import AgentRequest, AgentResult, Usage


@dataclass
class RecordedCall:
    node_path: str
    attempt: int
    prompt: str
    output: str = ""
    error: str | None = None
    usage: dict[str, Any] | None = None
    exit_code: int = 0
    timed_out: bool = False
    aborted: bool = False
    phase_id: str = ""

    def to_reply(self) -> Any:
        """As a scripted replies entry (DESIGN §3)."""
        if self.error is not None:
            reply: dict[str, Any] = {"error": self.error, "exitCode": self.exit_code or 1}
            if self.output:
                reply["output"] = self.output
        else:
            reply = {"output": self.output}
        if self.usage:
            reply["usage"] = self.usage
        return reply


def _as_events(items: Iterable[Any]) -> list[Any]:
    from tftui.engine.events import event_from_json

    return [event_from_json(item) if isinstance(item, dict) else item for item in items]


def recorded_calls(events: Iterable[Any]) -> list[RecordedCall]:
    """Every finished model call of a recording, in call order (cancelled calls left out).

    A journal may hold an interrupted run followed by its resume (`tftui run --resume`): the
    resume re-runs every phase that had not finished, so the calls those phases made before
    the interruption are not part of what the finished run did and are dropped.
    """
    from tftui.engine import events as ev

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
            call = open_calls.pop((e.node_path, e.attempt), None)
            if call is None:
                continue
            call.output, call.error, call.usage = e.output, e.error, e.usage
            call.exit_code, call.timed_out = e.exit_code, e.timed_out
            calls.append(call)
        elif isinstance(e, ev.AttemptFailed) and e.why == "aborted":
            for call in reversed(calls):
                if call.node_path == e.node_path and call.attempt == e.attempt:
                    call.aborted = True
                    break
    return [c for c in calls if not c.aborted]


def in_flight_answers(events: Iterable[Any], phase_ids: Iterable[str]) -> list[RecordedCall]:
    """The answers an interrupted run already got for phases still in flight when it stopped.

    For each top-level phase in `phase_ids`: every call it made (nested ones included) since it
    last started fresh (a top-level start, not an onBlock re-run inside a round), in call order,
    failures included. A resume re-runs such a phase from its start; replaying what it already
    got — a 503 and its retry, a loop's failed iteration, a gate's BLOCK before the rework
    round — keeps its attempt counts and results those of an uninterrupted run, and a map
    killed at item 900 of 1,000 does not pay for 900 calls again. Calls cut short by the
    interruption or cancelled (aborted) are left out: they never got an answer.
    """
    from tftui.engine import events as ev

    wanted = set(phase_ids)
    per_phase: dict[str, list[RecordedCall]] = {pid: [] for pid in wanted}
    open_calls: dict[tuple[str, int], RecordedCall] = {}
    for e in _as_events(events):
        if isinstance(e, ev.PhaseStarted) and e.phase_id in per_phase and e.depth == 0 and e.round == 0:
            per_phase[e.phase_id] = []  # a fresh start (a resume, a re-run): older answers had other inputs
        elif isinstance(e, ev.AttemptStarted) and e.phase_id.split("/")[0] in per_phase:
            open_calls[(e.node_path, e.attempt)] = RecordedCall(e.node_path, e.attempt, e.prompt, phase_id=e.phase_id)
        elif isinstance(e, ev.AgentReturned):
            call = open_calls.pop((e.node_path, e.attempt), None)
            if call is None:
                continue
            call.output, call.error, call.usage = e.output, e.error, e.usage
            call.exit_code, call.timed_out = e.exit_code, e.timed_out
            per_phase[call.phase_id.split("/")[0]].append(call)
        elif isinstance(e, ev.AttemptFailed) and e.why == "aborted" and e.phase_id.split("/")[0] in per_phase:
            calls = per_phase[e.phase_id.split("/")[0]]
            for index in range(len(calls) - 1, -1, -1):
                if calls[index].node_path == e.node_path and calls[index].attempt == e.attempt:
                    del calls[index]  # cancelled (race loser, user abort): not an answer
                    break
    return [call for pid in per_phase for call in per_phase[pid]]


def _load(source: Any) -> list[Any]:
    if isinstance(source, (str, os.PathLike)):
        from tftui.engine.replay import load_run_dir  # a bundle: tftui.bundle.load_recording(...).events

        return load_run_dir(source).events
    return list(source)


class CassetteRunner:
    def __init__(
        self,
        recorded: Any,
        live_runner: Any = None,
        *,
        replay_usage: bool = False,
        calls: list[RecordedCall] | None = None,
    ) -> None:
        """`recorded`: a run directory, bundle or events; or pass the `calls` themselves (recorded=None)."""
        self.live_runner = live_runner
        self.replay_usage = replay_usage
        self._tapes: dict[tuple[str, str], list[RecordedCall]] = {}
        for call in calls if calls is not None else recorded_calls(_load(recorded)):
            self._tapes.setdefault((call.node_path, call.prompt), []).append(call)
        self._used: dict[tuple[str, str], int] = {}
        self.replayed = 0
        self.live = 0
        self.log: list[tuple[str, str]] = []  # (node path, "replay" | "live" | "missing")
        self.saved_usage = Usage()

    @property
    def recorded(self) -> int:
        return sum(len(tape) for tape in self._tapes.values())

    def _next(self, request: AgentRequest) -> RecordedCall | None:
        key = (request.node_path, request.task)
        tape = self._tapes.get(key)
        used = self._used.get(key, 0)
        if tape is None or used >= len(tape):
            return None
        self._used[key] = used + 1
        return tape[used]

    async def run(self, request: AgentRequest) -> AgentResult:
        call = self._next(request)
        if call is not None:
            self.replayed += 1
            self.log.append((request.node_path, "replay"))
            usage = Usage.from_json(call.usage)
            if usage is not None:
                self.saved_usage.input += usage.input
                self.saved_usage.output += usage.output
                if usage.cost_usd is not None:
                    self.saved_usage.cost_usd = (self.saved_usage.cost_usd or 0.0) + usage.cost_usd
            failed = call.error is not None
            return AgentResult(
                output=call.output,
                error=call.error,
                exit_code=(call.exit_code or 1) if failed else 0,
                stderr=call.error or "",
                usage=usage if self.replay_usage else None,
                timed_out=call.timed_out,
                replayed=True,
            )
        if self.live_runner is None:
            self.log.append((request.node_path, "missing"))
            message = (
                f"cassette: no recorded answer for node path '{request.node_path}' with this prompt "
                "(the prompt changed or the recording never made this call) and no live runner is configured"
            )
            return AgentResult(error=message, stderr=message, exit_code=1)
        self.live += 1
        self.log.append((request.node_path, "live"))
        return await self.live_runner.run(request)
