"""A runner whose answers are typed by a person in the TUI.

`HumanRunner.run(request)` awaits `ask(request)`, a coroutine the UI provides (it
opens a modal with the node path and prompt and resolves with the typed text, or
None when the person cancels). Calls are answered one at a time, in the order they
arrive, even when the engine fans out. This module never imports Textual: the UI
side is injected.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tftui.agent_types import AgentRequest, AgentResult, Usage

Ask = Callable[[AgentRequest], Awaitable[str | None]]


class HumanRunner:
    def __init__(self, ask: Ask) -> None:
        self._ask = ask
        self._lock = asyncio.Lock()
        self.answered = 0

    async def run(self, request: AgentRequest) -> AgentResult:
        async with self._lock:  # one modal at a time
            try:
                text = await self._ask(request)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the UI went away: report a failed call, never raise
                return AgentResult(error=f"human answer unavailable: {exc}", exit_code=1)
        if text is None:
            return AgentResult(error="cancelled by user (no answer given)", exit_code=1, aborted=False)
        self.answered += 1
        # A person's answer costs no tokens; report zero usage rather than none so budgets work.
        return AgentResult(output=text, usage=Usage(input=0, output=0, cost_usd=0.0))
