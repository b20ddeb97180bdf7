"""The garbage collector while a run goes (docs/scheduling.md §8.2).

CPython collects its oldest generation (a walk over every tracked object of the process) when
the objects promoted since the last such walk reach a quarter of those it kept. A run keeps a
few objects per phase, so a 1,000-phase run never triggers one and a 16,000-phase run two or
three, each walking the whole heap (the flow, the modules, the state so far): that was the part
of the per-phase cost that grew with the run, and the runs it fell into were the slow ones.

`holding_full_collections()` holds that walk back while a run goes: the young generations are
still collected as usual (what a phase throws away goes as before), and a full walk is allowed
again after `RELEASE_AFTER_S` without one, so a long run with slow calls never holds cyclic
garbage longer than that. Nested and concurrent runs share one hold; the last one out restores
the thresholds it found (unless something changed them meanwhile).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# A full collection is let through again when none ran for this long while a run held them.
RELEASE_AFTER_S = 10.0
# A gen-2 threshold that the count of young collections never reaches within a hold.
_HELD = 1 << 30

_lock = threading.Lock()
_holders = 0
_saved: tuple[int, int, int] | None = None
_last_full = 0.0


def _held(threshold: tuple[int, int, int]) -> tuple[int, int, int]:
    return (threshold[0], threshold[1], _HELD)


def _on_collection(phase: str, info: dict[str, Any]) -> None:
    """gc callback while held: after a young collection, let full ones through once
    RELEASE_AFTER_S passed without one; after a full one, hold them again."""
    global _last_full
    if phase != "stop" or _saved is None:
        return
    # Under the hold's lock, so the last hold cannot end (restoring the thresholds) between the
    # read of `_saved` and the set below and leave full collections held for good. Never waits:
    # a collection can start in a thread that holds the lock (entering or leaving a hold), and
    # skipping one callback only delays the release to the next young collection.
    if not _lock.acquire(blocking=False):
        return
    try:
        saved = _saved
        if saved is None:
            return
        current = gc.get_threshold()
        if info.get("generation") == 2:
            _last_full = time.monotonic()
            if current == saved:
                gc.set_threshold(*_held(saved))
        elif current == _held(saved) and time.monotonic() - _last_full >= RELEASE_AFTER_S:
            gc.set_threshold(*saved)
    finally:
        _lock.release()


@contextmanager
def holding_full_collections() -> Iterator[None]:
    """Hold back full (oldest-generation) collections for the duration (see the module doc)."""
    global _holders, _saved, _last_full
    with _lock:
        if _holders == 0:
            found = gc.get_threshold()
            if found[0] > 0:  # (0: the collector is switched off; nothing to hold)
                _saved = found
                _last_full = time.monotonic()
                gc.set_threshold(*_held(found))
                gc.callbacks.append(_on_collection)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _saved is not None:
                if gc.get_threshold() == _held(_saved):
                    gc.set_threshold(*_saved)
                if _on_collection in gc.callbacks:
                    gc.callbacks.remove(_on_collection)
                _saved = None
