"""The Trace tab of a journaled run shows the trace its journal builds (the one trace.json is
written from), folded on the engine's thread; a run without a journal is folded by the tab."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tftui.trace import record
from tftui.tui.widgets.phase_detail import PhaseDetail


@pytest.fixture
def fed_on_screen_thread(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For every event fed to a LiveTrace: whether it was fed on the screen's (main) thread."""
    seen: list[bool] = []
    feed, journaled = record.LiveTrace.feed, record.LiveTrace.journaled

    def counted_feed(self: record.LiveTrace, event: object) -> None:
        seen.append(threading.current_thread() is threading.main_thread())
        feed(self, event)  # type: ignore[arg-type]

    def counted_journaled(self: record.LiveTrace, event: object, redacted: object) -> None:
        seen.append(threading.current_thread() is threading.main_thread())
        journaled(self, event, redacted)  # type: ignore[arg-type]

    monkeypatch.setattr(record.LiveTrace, "feed", counted_feed)
    monkeypatch.setattr(record.LiveTrace, "journaled", counted_journaled)
    return seen


async def _trace_tab_text(h, app, pilot, *, again: bool = False) -> str:  # noqa: ANN001 - the conftest helpers
    await pilot.press("c")
    if again:  # "Start a new run?"
        await pilot.press("y")
    await h.run_to_end(pilot, app)
    app.query_one("#tree").select_phase("review")
    app.query_one("#detail").active = "trace"
    await pilot.pause()
    return app.query_one(PhaseDetail).text("trace")


async def test_a_journaled_run_shows_its_journals_trace(h, tmp_path: Path, fed_on_screen_thread: list[bool]) -> None:
    app = h.make_app(h.FIXTURES / "review.json", runs_root=tmp_path / "runs")
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _trace_tab_text(h, app, pilot)
        written = json.loads((app.run_dir / "trace.json").read_text())
    assert f"Trace review · {len(written['steps'])} steps · {written['status']}" in text
    assert fed_on_screen_thread and not any(fed_on_screen_thread)  # no event folded twice, none on the screen's thread


async def test_a_run_without_a_journal_is_folded_by_the_tab(h, fed_on_screen_thread: list[bool]) -> None:
    app = h.make_app(h.FIXTURES / "review.json")  # runs_root None: not journaled
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _trace_tab_text(h, app, pilot)
    assert "Trace review · " in text and "review" in text.split("Trace review", 1)[1]
    assert any(fed_on_screen_thread)


async def test_a_journaled_run_after_one_without_starts_a_trace_of_its_own(h, tmp_path: Path,
                                                                          fed_on_screen_thread: list[bool]) -> None:
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        first = await _trace_tab_text(h, app, pilot)
        app.runs_root = tmp_path / "runs"
        fed_on_screen_thread.clear()
        app.last_result = None
        second = await _trace_tab_text(h, app, pilot, again=True)
        written = json.loads((app.run_dir / "trace.json").read_text())
    assert f"Trace review · {len(written['steps'])} steps" in second
    assert first.split("\n", 1)[0] == second.split("\n", 1)[0]  # the same run, the same trace head
    assert not any(fed_on_screen_thread)
