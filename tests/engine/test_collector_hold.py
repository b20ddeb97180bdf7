"""While a run goes, no full garbage collection walks the heap (docs/scheduling.md §8.2): the
young generations are collected, full walks come back after the hold's release time, and the
collector's own settings are back once the last run ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tftui.agents.scripted import MarkerRunner
from tftui.engine import collector
from tftui.engine.clock import InstantClock
from tftui.engine.collector import holding_full_collections
from tftui.engine.run import run_flow
from tftui.flow.model import Flow


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection that finishes while the test runs. The test process's
    own objects are frozen first (out of the collector's sight), so the test's objects alone
    decide when a full collection is due, and a full walk costs next to nothing."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            seen.append(info["generation"])

    gc.freeze()
    gc.collect()
    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()


def _keep_many() -> list[list[int]]:
    """Enough long-lived containers that the collector's usual rule asks for full collections."""
    return [[i] for i in range(100_000)]


def test_without_a_hold_many_long_lived_objects_bring_full_collections(collections: list[int]) -> None:
    kept = _keep_many()
    assert 2 in collections
    assert 0 in collections
    del kept


def test_a_hold_lets_young_collections_run_and_no_full_one(collections: list[int]) -> None:
    with holding_full_collections():
        kept = _keep_many()
    assert 0 in collections and 1 in collections
    assert 2 not in collections
    del kept


def test_full_collections_come_back_once_none_ran_for_the_release_time(
    collections: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "RELEASE_AFTER_S", 0.0)
    with holding_full_collections():
        kept = _keep_many()
    assert 2 in collections
    del kept


def test_the_thresholds_come_back_after_the_last_of_nested_holds() -> None:
    before = gc.get_threshold()
    with holding_full_collections():
        held = gc.get_threshold()
        with holding_full_collections():
            assert gc.get_threshold() == held
        assert gc.get_threshold() == held
    assert held != before and held[:2] == before[:2]
    assert gc.get_threshold() == before


def test_thresholds_someone_set_during_a_hold_are_left_alone() -> None:
    before = gc.get_threshold()
    try:
        with holding_full_collections():
            gc.set_threshold(500, 5, 5)
        assert gc.get_threshold() == (500, 5, 5)
    finally:
        gc.set_threshold(*before)


async def test_a_run_holds_full_collections_until_it_ends() -> None:
    before = gc.get_threshold()
    during: list[tuple[int, int, int]] = []
    flow = Flow.model_validate(
        {"name": "f", "phases": [{"id": "a", "task": "[[a]] go"}, {"id": "b", "task": "[[b]] go", "dependsOn": ["a"]}]}
    )
    result = await run_flow(
        flow, runner=MarkerRunner({}), clock=InstantClock(), on_event=lambda _event: during.append(gc.get_threshold())
    )
    assert result.status == "completed"
    assert during and all(t[2] > before[2] for t in during)
    assert gc.get_threshold() == before


async def test_a_released_debugger_lets_its_ended_run_go_without_a_collection() -> None:
    # A run points at its debugger and the debugger keeps the run for re-runs: a cycle, freed
    # only by a full collection. The debugger's next run releases the last one (tui/runctl.py),
    # so the ended run's state goes by reference counting, not in the next full walk.
    import weakref

    from tftui.engine.debugger import Debugger

    flow = Flow.model_validate({"name": "f", "phases": [{"id": "a", "agent": "x", "task": "t"}]})
    debugger = Debugger()
    await run_flow(flow, runner=MarkerRunner({}), clock=InstantClock(), debugger=debugger)
    assert debugger.run is not None and debugger.run.debugger is debugger
    ended = weakref.ref(debugger.run)
    gc.disable()
    try:
        debugger.release()
        assert debugger.run is None
        assert ended() is None
    finally:
        gc.enable()

