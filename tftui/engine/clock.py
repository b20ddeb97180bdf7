"""Injectable time: real waits in a plain run, skippable in the debugger, zero in tests.

A clock has `time()` (wall-clock seconds, for event timestamps), `monotonic()`
(seconds, for durations) and `async sleep(seconds)`. `fast_forward()` ends every
sleep in progress at once (and, with `skip_all=True`, every later one too).
"""

from __future__ import annotations

import asyncio
import time


class Clock:
    """The real clock, with fast-forward: a pending `sleep` can be cut short."""

    def __init__(self) -> None:
        self._wakers: set[asyncio.Event] = set()
        self.skip_all = False
        self.slept_s = 0.0  # total requested sleep time (useful in reports and tests)

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> float:
        """Wait `seconds`; returns the seconds actually waited (less when fast-forward ended the wait)."""
        self.slept_s += max(0.0, seconds)
        if seconds <= 0 or self.skip_all:
            await asyncio.sleep(0)
            return 0.0
        waker = asyncio.Event()
        self._wakers.add(waker)
        start = self.monotonic()
        try:
            await asyncio.wait_for(waker.wait(), timeout=seconds)
        except TimeoutError:
            return seconds
        finally:
            self._wakers.discard(waker)
        return min(seconds, max(0.0, self.monotonic() - start))  # woken by fast_forward

    def fast_forward(self, *, skip_all: bool | None = None) -> int:
        """Wake every pending sleep now; returns how many were woken."""
        if skip_all is not None:
            self.skip_all = skip_all
        woken = len(self._wakers)
        for waker in list(self._wakers):
            waker.set()
        return woken

    @property
    def sleeping(self) -> int:
        return len(self._wakers)


class InstantClock(Clock):
    """A clock whose sleeps return immediately but advance a virtual time (tests, benchmarks)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        super().__init__()
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> float:
        seconds = max(0.0, seconds)
        self.sleeps.append(seconds)
        self.slept_s += seconds
        self.now += seconds
        await asyncio.sleep(0)
        return seconds
