"""The app's message types and the engine-event batcher.

Engine events never reach widgets one by one: `EventBatcher` collects them from the
run worker and posts at most one `EngineEvents` message per flush interval
(~10 a second), so a 1,000-item map that finishes instantly costs a handful of
repaints instead of thousands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from tftui.engine.events import Event


class EngineEvents(Message):
    """A batch of engine events, in emission order."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class RunEnded(Message):
    """The run worker returned (result may be None after a crash, with `error`)."""

    def __init__(self, result: Any, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class FlowChanged(Message):
    """The flow file changed on disk and re-parsed (valid or not)."""

    def __init__(self, path: str, load_result: Any, text: str) -> None:
        super().__init__()
        self.path = path
        self.load_result = load_result
        self.text = text


@dataclass
class EventBatcher:
    """Collects events and flushes them through `post` at most every `interval` seconds.

    `add` is called from the run worker's coroutine (same event loop as the app), so
    a plain list plus one pending timer handle is enough: no locks.
    """

    post: Callable[[list[Event]], None]
    interval: float = 0.1
    _pending: list[Event] = field(default_factory=list)
    _handle: asyncio.TimerHandle | None = None
    _last_flush: float = 0.0
    flushes: int = 0

    def add(self, event: Event) -> None:
        self._pending.append(event)
        if self._handle is not None:
            return
        loop = asyncio.get_running_loop()
        wait = max(0.0, self._last_flush + self.interval - loop.time())
        self._handle = loop.call_later(wait, self.flush)

    def flush(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        try:
            self._last_flush = asyncio.get_running_loop().time()
        except RuntimeError:
            pass
        self.flushes += 1
        self.post(batch)
