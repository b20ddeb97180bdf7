"""A pause point the debugger has nothing to stop at is passed without its lock
(Debugger._quiet): for every debugger state and point, a point decided so is one that
`_why` would also let pass, without changing anything."""

from __future__ import annotations

import asyncio
import copy
import itertools
from types import SimpleNamespace
from typing import Any

from tftui.engine.debugger import Debugger

POINTS = ("before-phase", "before-attempt", "before-round", "after-verdict", "after-failure")


def _state(debugger: Debugger) -> dict[str, Any]:
    """The debugger's own settings and flags (its locks and events are not state a point changes)."""
    plain = (bool, int, str, type(None), set, dict, list)
    return {k: copy.deepcopy(v) for k, v in vars(debugger).items() if isinstance(v, plain)}


def test_a_quiet_point_is_one_the_full_check_lets_pass_unchanged() -> None:
    quiet_seen = loud_seen = 0
    for requested, pending, stepping, on_breakpoint, data, aborted, point in itertools.product(
        (False, True), (None, "failure", "block"), (False, True), (False, True), (False, True), (False, True), POINTS,
    ):
        debugger = Debugger()
        debugger._pause_requested = requested
        debugger._pending = pending
        debugger.stepping = stepping
        if on_breakpoint:
            debugger.set_breakpoint("p")
        if data:
            debugger.add_data_breakpoint("false")
        run = SimpleNamespace(aborted=aborted, state=None)
        if not debugger._quiet(run, point, "p"):  # type: ignore[arg-type]
            loud_seen += 1
            continue
        quiet_seen += 1
        before = _state(debugger)
        if not aborted:  # an aborted run never asks `_why` (`_checkpoint`)
            assert debugger._why(run, point, "p", {}) is None, (requested, pending, stepping, on_breakpoint, point)  # type: ignore[arg-type]
        assert _state(debugger) == before
    assert quiet_seen and loud_seen


async def test_a_point_behind_a_pause_waits_for_it_even_when_quiet() -> None:
    debugger = Debugger()
    debugger._pause_requested = True
    run = SimpleNamespace(aborted=False, state=None, emit=lambda event: None, sync=lambda: None)
    paused = asyncio.ensure_future(debugger.checkpoint(run, "before-phase", "a"))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert debugger.paused is not None
    behind = asyncio.ensure_future(debugger.checkpoint(run, "before-phase", "b"))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert not behind.done()  # in order: it waits for the pause ahead of it
    debugger.continue_()
    await asyncio.wait_for(asyncio.gather(paused, behind), 5)
