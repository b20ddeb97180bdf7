"""The what-if dialog at 80x24 (issue 15, item 6): the README's walkthrough, typed as fast as
tmux send-keys types it, and the line it reads is on screen above the buttons."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.tui.screens.modals import LineInputScreen
from tftui.tui.screens.whatif import WhatIfScreen
from tftui.tui.widgets.dag_tree import DagTree

SAMPLES = Path(__file__).parents[2] / "sample_flows"
SIZED = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])


def _joined(rows: list[str]) -> str:
    """The dialog's rows inside its border, as one text (a sentence may wrap)."""
    return " ".join(" ".join(row.strip(" │|") for row in rows).split())


def _answer(screen) -> str:
    return str(screen.query_one("#whatif-result").render())


@SIZED
@MODES
async def test_the_walkthrough_reads_above_the_buttons(h, size, ascii):
    app = h.make_app(SAMPLES / "validate_judge.json", SAMPLES / "validate_judge.blocking.replies.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase("check-response")
        await pilot.pause()
        await pilot.press("w")
        await h.settle(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        screen = app.screen
        h.type_fast(app, "\b\b\b\b0.55")  # empty the threshold, type the new one, in one burst
        await h.settle(pilot, lambda: screen.values()["threshold"] != "0.7")
        # the answer is worked out in a worker thread: wait for the one for the typed value
        await h.settle(pilot, lambda: screen.values()["threshold"] != "0.7" and not screen.checking
                       and "0.55" in _answer(screen))
        assert screen.values()["threshold"] == "0.55"  # no key lost, none out of order
        buttons_at = screen.query_one("#close").region.y
        above = h.screen_lines(app)[:buttons_at]
        text = _joined(above)
        assert "after: UNKNOWN (judge)" in text, text
        assert "with the previous judge score it would pass" in text
        assert text.endswith("0.55 -> pass") if ascii else text.endswith("0.55 → pass"), text  # the estimate, whole
        h.type_fast(app, "\b\b\b\b0.5")
        await h.settle(pilot, lambda: screen.values()["threshold"] == "0.5" and not screen.checking
                       and "PASS (score)" in _answer(screen))
        text = _joined(h.screen_lines(app)[: screen.query_one("#close").region.y])
        assert "after: PASS (score)" in text, text


@SIZED
@MODES
async def test_the_log_filter_takes_keys_typed_fast(h, size, ascii):
    app = h.make_app(SAMPLES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.press("slash")
        await h.settle(pilot, lambda: isinstance(app.screen, LineInputScreen))
        h.type_fast(app, "phase:tweet\b\b\b\b\btweet\r")
        await h.settle(pilot, lambda: not isinstance(app.screen, LineInputScreen))
        assert app.main.event_log.query_text == "phase:tweet"
