"""Cassette mode: answer model calls from a recorded run while their prompts are unchanged.

    runner = CassetteRunner(calls, live_runner)

`calls` are the recording's `RecordedCall`s (`tftui.engine.recorded.recorded_calls` reads
them from a run directory, a bundle or its events).

For each request, the recorded calls with the same node path and a byte-identical
prompt are replayed in the order they were made (so retries and onBlock re-runs with
the same prompt get the recorded sequence of answers: failures included, since a
retried 429 is part of what happened). Anything else — a prompt that changed, a node
path the recording never called, more calls than were recorded — goes to
`live_runner`; without one the call fails with a message naming the node path.

Replayed answers cost nothing now: by default they are returned WITHOUT usage (zero
new tokens, budgets untouched); the tokens the recording spent on them are summed in
`saved_usage`. Pass `replay_usage=True` to report the recorded usage instead (a
faithful re-enactment of the recorded costs). `resumed=True` says the recording is the run's
own journal (`tftui run --resume`): its answers are marked `AgentResult.resumed`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tftui.agent_types import (
    AgentRequest,
    AgentResult,
    AgentRunner,
    Usage,
    reports_cost,
    reports_usage,
    stays_in_process,
)


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
        """As a scripted replies entry (docs/language.md §7)."""
        if self.error is not None:
            reply: dict[str, Any] = {"error": self.error, "exitCode": self.exit_code or 1}
            if self.output:
                reply["output"] = self.output
        else:
            reply = {"output": self.output}
        if self.usage:
            reply["usage"] = self.usage
        return reply


class CassetteRunner:
    def __init__(
        self,
        calls: Iterable[RecordedCall],
        live_runner: AgentRunner | None = None,
        *,
        replay_usage: bool = False,
        resumed: bool = False,
    ) -> None:
        self.live_runner = live_runner
        self.replay_usage = replay_usage
        # The calls are this run's own, from its journal (a resume): answers are marked
        # `AgentResult.resumed`, so the run does not count them twice.
        self.resumed = resumed
        self._tapes: dict[tuple[str, str], list[RecordedCall]] = {}
        for call in calls:
            self._tapes.setdefault((call.node_path, call.prompt), []).append(call)
        self._used: dict[tuple[str, str], int] = {}
        self.replayed = 0
        self.live = 0
        self.log: list[tuple[str, str]] = []  # (node path, "replay" | "live" | "missing")
        self.saved_usage = Usage()
        self.unrecorded = 0  # replayed calls whose recording holds no usage (a CLI agent's): not in saved_usage

    # Live calls go to `live_runner`, so the run's usage is as trustworthy as its (a replayed call
    # spends nothing, which is known); without one every call is replayed.
    @property
    def reports_usage(self) -> bool:
        return self.live_runner is None or reports_usage(self.live_runner)

    @property
    def reports_cost(self) -> bool:
        return self.live_runner is None or reports_cost(self.live_runner)

    @property
    def in_process(self) -> bool:
        """A replayed call stays in the process; a live one is the live runner's."""
        return self.live_runner is None or stays_in_process(self.live_runner)

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
            if usage is None:
                self.unrecorded += 1
            else:
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
                resumed=self.resumed,
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
