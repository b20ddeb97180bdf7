"""At 80x24 the screen says how to get help and how to quit, and every line of `?` can be
reached with the keyboard (issue 15, item 2)."""

from __future__ import annotations

import pytest

from tftui.tui.screens.modals import HelpScreen

SIZES = [(80, 24), (120, 40)]
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
SIZED = pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])


def _footer(h, app) -> str:
    return h.screen_lines(app)[-1]


@SIZED
@MODES
async def test_help_and_quit_are_in_the_footer(h, size, ascii):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        footer = _footer(h, app)
        assert " ? Help " in footer and " q Quit " in footer, footer
        assert footer.rstrip().endswith("^p palette")
        assert footer.startswith(" c Run/cont  n/s Step")
        # no key is cut in half at the right edge of the keys from the left
        assert "r Re-run" in footer
        assert footer.isascii() or not ascii


async def test_the_footer_relays_out_when_the_terminal_narrows(h):
    app = h.make_app(h.FIXTURES / "gate_block.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "R Restart" in _footer(h, app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        footer = _footer(h, app)
        assert "R Restart" not in footer and " ? Help " in footer and " q Quit " in footer, footer


def _help_rows(h, app) -> list[str]:
    rows = [row.strip() for row in h.pane_lines(app, app.screen.query_one("#help-scroll"))]
    while rows and not rows[-1]:
        rows.pop()
    return rows


@SIZED
@MODES
async def test_every_help_line_can_be_reached_by_keyboard(h, size, ascii):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await h.settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = "\n".join(h.screen_lines(app))
        assert "esc closes" in screen  # the hint under the table is on screen
        first = _help_rows(h, app)
        assert first[0].startswith("c  Run the flow")
        seen = list(first)
        for _ in range(20):  # page down to the end, reading every page
            await pilot.press("pagedown")
            await pilot.pause()
            seen += _help_rows(h, app)
        assert any(row.startswith("ctrl+c  Quit") for row in seen), seen
        assert any(row.startswith("tab  Move focus") for row in seen)
        await pilot.press("home")
        await pilot.pause()
        assert _help_rows(h, app)[0].startswith("c  Run the flow")
        await pilot.press("end")
        await pilot.pause()
        assert _help_rows(h, app)[-1].startswith("ctrl+c  Quit")
        await pilot.press("escape")
        await h.settle(pilot, lambda: not isinstance(app.screen, HelpScreen))
