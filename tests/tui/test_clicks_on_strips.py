"""The footer and the detail's tab strip are widgets that draw their own line (issue 15/18):
a click on what they show must still do what it says, at 80x24 and 120x40, Unicode and --ascii."""

from __future__ import annotations

import pytest

from tftui.tui.screens.modals import HelpScreen
from tftui.tui.widgets.phase_detail import LABELS, TABS, PhaseDetail
from tftui.tui.widgets.tab_strip import TabStrip

SIZED = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])


@SIZED
@MODES
@pytest.mark.parametrize("row", [0, 1], ids=["label", "bar"])
async def test_a_click_on_a_tab_shows_that_tab(h, size, ascii, row):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        strip = app.screen.query_one(TabStrip)
        detail = app.screen.query_one(PhaseDetail)
        # every tab in turn, there and back, found where the screen shows its label (the strip
        # scrolls at 80 columns: the tab clicked last is centred, so its neighbours are on screen)
        for tab in [*TABS[1:], *reversed(TABS[:-1])]:
            region = strip.region
            labels = h.screen_lines(app)[region.y][region.x : region.x + region.width]
            at = labels.find(f" {LABELS[tab]} ")
            assert at >= 0, (tab, labels)
            y = region.y + (row if not ascii else 0)  # --ascii draws the strip on one row
            # on the label's last character: a click read a few cells off lands on the next tab
            await pilot.click(offset=(region.x + at + len(LABELS[tab]), y))
            await pilot.pause()
            assert strip.active == tab and detail.active == tab, (tab, labels)


@SIZED
@MODES
async def test_a_click_on_the_footers_help_key_opens_help(h, size, ascii):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        rows = h.screen_lines(app)
        footer = rows[-1]
        at = footer.find(" ? Help ")
        assert at >= 0, footer
        await pilot.click(offset=(at + 1, len(rows) - 1))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
