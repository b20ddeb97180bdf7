"""The full garbage collection a debugger run leaves behind, done once the keyboard rests
(docs/scheduling.md §8.2).

A run holds the collector's full walks back while it goes (tftui.engine.collector). When the
last hold ends, the next young collection escalates to a full walk over everything the run left
on the heap, on whichever thread allocates next: in the debugger that is the screen's, right as
it shows the run's end and the user reads and types (55-65 ms for a 10,000-item map, every key
pressed meanwhile waiting for it). So the debugger takes a hold of its own from the start of a
run and keeps it, once the run has ended, until no input came for `IDLE_S`; it then lets the
hold go and walks the heap itself. The collector's own release (a full walk is let through
after 10 s without one) still bounds how long cyclic garbage waits while keys keep coming.

No Textual here: the screen asks `due_in()` when to come back and calls `collect_if_idle()`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from contextlib import ExitStack

from tftui.engine.collector import holding_full_collections

IDLE_S = 0.5  # no input for this long after a run: the full walk it left is done then


class IdleCollection:
    """One hold of full collections per debugger session: taken when a run starts, given up
    (with a full collection) once the run has ended and input rested for `IDLE_S`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hold: ExitStack | None = None
        self._running = False
        self._last_input = float("-inf")

    @property
    def holding(self) -> bool:
        return self._hold is not None

    def run_starting(self) -> None:
        """A run is about to start: full walks wait until it has ended and input rests."""
        self._running = True
        if self._hold is None:
            hold = ExitStack()
            hold.enter_context(holding_full_collections())
            self._hold = hold

    def run_ended(self) -> None:
        self._running = False

    def input_seen(self) -> None:
        """A key or a mouse event arrived: the walk is put off until input rests again."""
        self._last_input = self._clock()

    def due_in(self) -> float | None:
        """Seconds until `collect_if_idle` should be tried; None while a run goes or nothing is held."""
        if self._hold is None or self._running:
            return None
        return max(0.0, self._last_input + IDLE_S - self._clock())

    def collect_if_idle(self) -> bool:
        """Let the hold go and collect, when a run has ended and input rested; True when it did."""
        wait = self.due_in()
        if wait is None or wait > 0:
            return False
        self.close()
        gc.collect()
        return True

    def close(self) -> None:
        """Give the hold up without collecting (the app is closing)."""
        hold, self._hold = self._hold, None
        if hold is not None:
            hold.close()
