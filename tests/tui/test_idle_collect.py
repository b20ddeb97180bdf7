"""The full garbage walk a debugger run leaves waits until input rests (docs/scheduling.md §8.2,
tui/idle_collect.py): held from the run's start, through its end while keys keep coming, and
done (the collector's thresholds back) once no input came for IDLE_S."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tftui.tui.idle_collect import IDLE_S, IdleCollection


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def full_walks() -> Iterator[list[int]]:
    """The generation of every collection finished while the test runs."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def test_the_walk_waits_for_the_run_and_for_input_to_rest(full_walks: list[int]) -> None:
    before = gc.get_threshold()
    clock = _Clock()
    idle = IdleCollection(clock)
    idle.run_starting()
    assert gc.get_threshold()[2] > before[2]  # full walks held
    assert idle.due_in() is None  # while the run goes, nothing is due
    assert not idle.collect_if_idle()
    idle.run_ended()
    idle.input_seen()  # a key right at the run's end
    clock.now += IDLE_S / 2
    assert idle.due_in() == pytest.approx(IDLE_S / 2)
    assert not idle.collect_if_idle()
    assert idle.holding and gc.get_threshold()[2] > before[2]
    assert 2 not in full_walks
    clock.now += IDLE_S / 2
    assert idle.collect_if_idle()
    assert 2 in full_walks  # the walk done now, by the debugger
    assert not idle.holding and gc.get_threshold() == before
    assert idle.due_in() is None and not idle.collect_if_idle()  # once


def test_back_to_back_runs_share_one_hold() -> None:
    before = gc.get_threshold()
    clock = _Clock()
    idle = IdleCollection(clock)
    idle.run_starting()
    idle.run_ended()
    idle.run_starting()  # the next run starts before input rested
    clock.now += 10 * IDLE_S
    assert not idle.collect_if_idle()  # a run goes
    idle.run_ended()
    assert idle.collect_if_idle()
    assert gc.get_threshold() == before


def test_closing_gives_the_hold_up_without_a_walk(full_walks: list[int]) -> None:
    before = gc.get_threshold()
    idle = IdleCollection(_Clock())
    idle.run_starting()
    idle.close()
    assert gc.get_threshold() == before
    assert 2 not in full_walks


async def test_the_debugger_walks_the_heap_once_keys_stop_after_a_run(h, full_walks: list[int]) -> None:
    app = h.make_app(h.FIXTURES / "review.json")
    before = gc.get_threshold()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        assert app.idle_collection.holding  # from the run's start
        await h.run_to_end(pilot, app)
        await pilot.press("down")  # input right after the run's end puts the walk off
        await pilot.pause()
        assert app.idle_collection.holding
        full_walks.clear()
        await h.settle(pilot, lambda: not app.idle_collection.holding)
        assert 2 in full_walks
        assert gc.get_threshold() == before
