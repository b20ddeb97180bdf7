"""Focus you can see and PgUp/PgDn that work from the tree (issue 15, item 9); an event log
that wraps its lines at 80 columns and toasts that do not cover it (item 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.event_log import EventLog
from tftui.tui.widgets.phase_detail import PhaseDetail

SAMPLES = Path(__file__).parents[2] / "sample_flows"
SIZED = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])


def _rule(h, app) -> str:
    """The rule above the log (its top border), as the terminal shows it."""
    log = app.query_one(EventLog)
    return h.screen_lines(app)[log.region.y]


@SIZED
@MODES
async def test_pgdn_from_the_tree_scrolls_the_detail(h, size, ascii):
    app = h.make_app(SAMPLES / "validate_judge.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        tree, detail = app.query_one(DagTree), app.query_one(PhaseDetail)
        tree.select_phase("check-response")
        detail.active = "raw"  # the gate's whole state: taller than the pane
        await pilot.pause()
        assert app.focused is tree
        scroll = detail.query_one("#detail-scroll")
        before = h.pane_lines(app, scroll)
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        assert h.pane_lines(app, scroll) != before  # the pane shows the next page
        assert app.focused is tree and tree.selected_phase() == "check-response"  # the tree did not move
        await pilot.press("pageup")
        await pilot.pause()
        assert scroll.scroll_y == 0 and h.pane_lines(app, scroll)[0] == before[0]


@SIZED
@MODES
async def test_the_pane_with_the_keys_is_named_on_the_rule(h, size, ascii):
    app = h.make_app(SAMPLES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        up, down = ("^", "v") if ascii else ("▲", "▼")
        rule = _rule(h, app)
        assert f"{up} focus: tree" in rule and rule.index("focus") < size[0] // 2, rule  # under the tree
        seen = []
        for _ in range(4):
            await pilot.press("tab")
            await pilot.pause()
            seen.append(_rule(h, app))
            if "focus: log" in seen[-1]:
                break
        assert f"{down} focus: log" in seen[-1], seen
        detail_rules = [r for r in seen if "focus: detail" in r]
        assert detail_rules and all(r.index("focus") > size[0] // 2 for r in detail_rules)  # under the detail
        # PgDn in the log scrolls the log, not the detail
        log = app.query_one(EventLog)
        for i in range(60):
            app.main.note(f"note {i}")
        await pilot.pause()
        log.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("pagedown")
        await pilot.pause()
        assert log.scroll_y > 0
        assert app.query_one(PhaseDetail).query_one("#detail-scroll").scroll_y == 0
        assert all(line.isascii() for line in h.screen_lines(app)) or not ascii


LONG = ("review-each#item-12: attempt 2 failed — 503 service unavailable: the upstream model server "
        "is overloaded, retry later (transient: matched \"503\")")


@SIZED
@MODES
async def test_log_lines_wrap_instead_of_being_cut(h, size, ascii):
    app = h.make_app(SAMPLES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.main.note(LONG)
        await pilot.pause()
        log = app.query_one(EventLog)
        rows = [row.rstrip() for row in h.pane_lines(app, log) if row.strip()]
        text = " ".join(row.strip() for row in rows)
        expected = app.glyphs.fold(f"{app.glyphs.mark} {LONG}")
        assert " ".join(expected.split()) == " ".join(text.split())  # every word is on screen, in order
        if size[0] == 80:
            assert len(rows) >= 2 and rows[1].startswith("  ")  # continued, indented
        # narrower: wrapped again to the new width
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        await pilot.pause()
        rows = [row.rstrip() for row in h.pane_lines(app, log) if row.strip()]
        assert " ".join(" ".join(r.strip() for r in rows).split()) == " ".join(expected.split())


@SIZED
@MODES
async def test_toasts_leave_the_log_visible(h, size, ascii):
    app = h.make_app(SAMPLES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        log = app.query_one(EventLog)
        before = h.pane_lines(app, log)
        await pilot.press("b")  # "Breakpoint set on draft"
        await h.settle(pilot, lambda: len(app.screen.query("Toast")) > 0)
        screen = h.screen_lines(app)
        assert any("Breakpoint set on draft" in row for row in screen)
        assert h.pane_lines(app, log) == before
        assert "BLOCKED" in screen[0]  # and the header
        assert all(row.isascii() for row in screen) or not ascii  # the toast folds too


async def test_the_log_still_shows_its_last_line_after_the_terminal_gets_shorter(h):
    """A log following the run (showing its newest line) goes on showing it when the terminal
    gets shorter and the log loses rows: a resize that leaves its width alone re-wraps nothing,
    and the log stayed where it was, its newest lines out of sight."""
    app = h.make_app(h.FIXTURES / "gate_block.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        log = app.query_one(EventLog)
        assert h.pane_lines(app, log)[-1].strip() == log.lines[-1]
        await pilot.resize_terminal(120, 24)  # the log is shorter at this height (-short)
        await pilot.pause()
        await pilot.pause()
        assert h.pane_lines(app, log)[-1].strip() == log.lines[-1] == "run finished: blocked"
