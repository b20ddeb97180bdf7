"""Issue 15 items 12 and 17 (what is left): screens that say the same fact the same way, checked
on what the screen shows at 80x24 (and 120x40 / --ascii where it matters)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tftui.engine.clock import Clock

SAMPLES = Path(__file__).parents[2] / "sample_flows"


def _detail_shown(h, app) -> str:
    """The detail pane's rows on screen, joined and with runs of spaces collapsed (the text wraps)."""
    detail = app.main.detail
    rows = h.pane_lines(app, detail.query_one("#detail-scroll"))
    return re.sub(r"\s+", " ", " ".join(rows))


async def _show(pilot, app, pid: str, tab: str) -> None:
    app.main.dag.select_phase(pid)
    await pilot.pause()
    app.main.detail.active = tab
    await pilot.pause()


# -- item 12: after F, the Calls tab says the time really waited ----------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_calls_tab_after_fast_forward_shows_the_time_waited(h, size, ascii):
    clock = Clock()  # a real clock: the 60 s backoff is cut short by F
    app = h.make_app(h.FIXTURES / "slow_retry.json", clock=clock, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: clock.sleeping > 0)
        await pilot.press("F")
        await h.run_to_end(pilot, app)
        await _show(pilot, app, "flaky", "attempts")
        shown = _detail_shown(h, app)
        waited = re.search(r"retried after (\d+) ms: the planned 60000 ms backoff was skipped \(fast-forward\)", shown)
        assert waited is not None, shown
        assert int(waited.group(1)) < 60000
        assert "after a 60000 ms backoff" not in shown


# -- item 12: the Gate tab and the Calls tab give the same reason for a round ---------------
async def test_gate_and_calls_tabs_give_one_reason_for_an_onblock_round(h):
    app = h.make_app(SAMPLES / "onblock_rework.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        cause = "evaluation 1 blocked: No tests cover slugify."
        await _show(pilot, app, "quality", "gate")
        gate = _detail_shown(h, app)
        assert f"round started because {cause}" in gate and "no reason given" not in gate
        await _show(pilot, app, "quality", "attempts")
        assert f"started because {cause}" in _detail_shown(h, app)
