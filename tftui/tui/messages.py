"""The app's message types and the engine-event batcher.

Engine events never reach widgets one by one: `EventBatcher` collects them from the
run's thread and posts at most one `EngineEvents` message per flush interval
(~10 a second), so a 1,000-item map that finishes instantly costs a handful of
repaints instead of thousands.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.message import Message

from tftui.engine.events import Event

if TYPE_CHECKING:
    from tftui.engine.run import RunResult
    from tftui.flow.load import LoadResult
    from tftui.tui.watch import Reload


class EngineEvents(Message):
    """A batch of engine events, in emission order."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class RunEnded(Message):
    """The run worker returned (result may be None after a crash, with `error`)."""

    def __init__(self, result: RunResult | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class FlowChanged(Message):
    """The flow file changed on disk and re-parsed (valid or not)."""

    def __init__(self, path: str, load_result: LoadResult, text: str, arg_warnings: list[str] | None = None,
                 reload: Reload | None = None) -> None:
        super().__init__()
        self.path = path
        self.load_result = load_result
        self.text = text
        self.arg_warnings = arg_warnings or []  # the `--arg` names' warnings for this version
        self.reload = reload  # the watcher's report (its linter pass may be pending: tui/watch.py)


class FlowLinted(Message):
    """The linter's warnings for the saved version last reported (its `FlowChanged` came first)."""

    def __init__(self, load_result: LoadResult) -> None:
        super().__init__()
        self.load_result = load_result


# The engine thread pauses YIELD_FOR_S at most once every YIELD_EVERY_S, counted from the start
# of its last pause (see `_yield_gil`). A pause that returns late (the UI thread held the GIL)
# therefore leaves the engine due for the next pause at once: while the UI is busy the engine
# gives way on every event, which is what keeps keys answered during a big map run (counting
# from the end of the pause measured 3-5 ms worse key waits p50 in `benchmarks/tui.py --only
# tabs`). YIELD_FOR_S must stay well under YIELD_EVERY_S, or the engine pauses on every event
# even with the UI idle.
YIELD_EVERY_S = 0.004
YIELD_FOR_S = 0.001


class EventBatcher:
    """Collects events from the engine thread; the UI loop flushes them at most every `interval` s.

    `add` may be called from any thread (the run executes in a thread worker with its
    own event loop, so a busy engine never delays key handling). Adding to an empty
    buffer schedules one flush on the UI loop; everything added until then rides along.
    """

    def __init__(self, post: Callable[[list[Event]], None], *, interval: float = 0.1) -> None:
        self.post = post
        self.interval = interval
        self.loop: asyncio.AbstractEventLoop | None = None  # the UI loop; set when the app mounts
        self.flushes = 0
        self._lock = threading.Lock()
        self._pending: list[Event] = []
        self._scheduled = False
        self._handle: asyncio.TimerHandle | None = None
        self._last_flush = 0.0
        self._last_yield = 0.0

    def add(self, event: Event) -> None:
        with self._lock:
            self._pending.append(event)
            scheduled, self._scheduled = self._scheduled, True
        loop = self.loop
        if loop is None:
            return
        on_ui = _running_loop() is loop
        if not scheduled:
            try:
                if on_ui:
                    self._schedule()
                else:
                    loop.call_soon_threadsafe(self._schedule)
            except RuntimeError:  # the UI loop is closed (app exiting): drop the event
                return
        if not on_ui:
            self._yield_gil()

    def _yield_gil(self) -> None:
        """Let the UI thread run: a busy engine thread otherwise starves it of the GIL
        (its every select() call gives the GIL up and waits a whole switch interval)."""
        now = time.perf_counter()
        if now - self._last_yield >= YIELD_EVERY_S:
            self._last_yield = now
            time.sleep(YIELD_FOR_S)

    def _schedule(self) -> None:
        assert self.loop is not None
        wait = max(0.0, self._last_flush + self.interval - self.loop.time())
        self._handle = self.loop.call_later(wait, self.flush)

    def take(self) -> list[Event]:
        """Remove and return whatever is pending (UI loop only)."""
        with self._lock:
            batch, self._pending = self._pending, []
            self._scheduled = False
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        return batch

    def flush(self) -> None:
        """Post whatever is pending now (UI loop only)."""
        batch = self.take()
        if not batch:
            return
        if self.loop is not None:
            self._last_flush = self.loop.time()
        self.flushes += 1
        self.post(batch)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
