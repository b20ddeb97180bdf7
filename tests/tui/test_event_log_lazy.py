"""The event log describes and wraps an event only when it is drawn or read (a 10,000-item
map's 20,000 events were all described as they arrived): while it follows its end it shows
exactly what a log with every entry counted shows, and focusing it, scrolling it or filtering it
shows every entry as before."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tftui.engine import events as ev
from tftui.tui.widgets import event_log
from tftui.tui.widgets.event_log import EventLog


class _LogApp(App[None]):
    AUTO_FOCUS = None  # as in the debugger, where the tree has the keys
    def compose(self) -> ComposeResult:
        yield Static("tree", classes="above")  # the log at the bottom, the mouse not over it
        yield EventLog(id="log")

    CSS = ".above { height: 1fr; }"


def _events(count: int) -> list[ev.Event]:
    # every 7th line is long enough to wrap at 80 columns: rows above the tail are not one per entry
    return [ev.AttemptStarted(phase_id="map", node_path=f"map/{i}" + ("/deeper" * 12 if i % 7 == 0 else ""), attempt=0)
            for i in range(count)]


def _rows(app: App[None], log: EventLog) -> list[str]:
    region = log.content_region
    lines = app.screen._compositor.render_strips()
    return [lines[y].text[region.x : region.right].rstrip() for y in range(region.y, region.bottom)]


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> list[ev.Event]:
    seen: list[ev.Event] = []
    real = event_log.describe

    def counted(event: ev.Event) -> event_log.EventLine:
        seen.append(event)
        return real(event)

    monkeypatch.setattr(event_log, "describe", counted)
    return seen


async def test_a_following_log_describes_only_its_last_rows_and_shows_them(described):
    app = _LogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.query_one(EventLog)
        events = _events(2000)
        for start in range(0, len(events), 500):  # batches, as a run's flushes come
            log.add_events(events[start : start + 500])
            await pilot.pause()
        assert len(described) < 100  # not 2,000
        shown = _rows(app, log)
        assert shown[-1] == "map/1999: attempt 1"
        # what a log with every entry counted shows: its last rows
        every = [row for line in log.lines for row in event_log.wrap_line(line, log.size.width - log.styles.scrollbar_size_vertical)]
        assert shown == every[-len(shown) :]
        log.focus()  # from here the user may scroll anywhere: every entry counted
        await pilot.pause()
        assert _rows(app, log) == shown
        assert log.virtual_size.height == len(every)
        log.scroll_home(animate=False)
        await pilot.pause()
        assert _rows(app, log) == every[: len(shown)]
        await pilot.press("end")
        await pilot.pause()
        assert _rows(app, log) == shown


async def test_a_filter_still_matches_every_kept_event(described):
    app = _LogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.query_one(EventLog)
        log.add_events(_events(2000))
        await pilot.pause()
        log.set_filter("map/3: attempt")  # the text of one entry near the start
        await pilot.pause()
        assert log.lines == ["map/3: attempt 1"]
        assert _rows(app, log)[0] == "map/3: attempt 1"
        log.set_filter("")
        await pilot.pause()
        assert _rows(app, log)[-1] == "map/1999: attempt 1"
        assert len(log.entries) == 2000
