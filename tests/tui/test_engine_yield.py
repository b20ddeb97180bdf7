"""The engine thread pauses for the UI after YIELD_EVERY_S of busy time (tftui/tui/messages.py):
a pause that returns late must not count as busy time, or a loaded machine makes the engine pause
on every event (a 10,000-item map took ~90 s that way)."""

from __future__ import annotations

import asyncio
import threading

from tftui.tui import messages


def test_a_late_pause_does_not_count_as_busy_time(monkeypatch) -> None:
    clock = [100.0]
    sleeps: list[float] = []

    def late_sleep(seconds: float) -> None:  # the GIL comes back 10 ms after a 1 ms sleep
        sleeps.append(seconds)
        clock[0] += 0.010

    monkeypatch.setattr(messages.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(messages.time, "sleep", late_sleep)
    loop = asyncio.new_event_loop()
    try:
        batcher = messages.EventBatcher(lambda batch: None)
        batcher.loop = loop  # events added from this (non-UI) thread, as the engine does

        def engine() -> None:
            batcher.add(object())  # type: ignore[arg-type]  # first event: pauses once
            clock[0] += messages.YIELD_EVERY_S / 2  # busy, but less than YIELD_EVERY_S
            batcher.add(object())  # type: ignore[arg-type]
            clock[0] += messages.YIELD_EVERY_S  # now busy long enough
            batcher.add(object())  # type: ignore[arg-type]

        thread = threading.Thread(target=engine)
        thread.start()
        thread.join()
    finally:
        loop.close()
    assert sleeps == [messages.YIELD_FOR_S, messages.YIELD_FOR_S]
