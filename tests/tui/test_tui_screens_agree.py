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


# -- the tree's live sub-line goes when the attempt fails / the phase ends ------------------
class _StreamThenFail:
    """Streams two pieces of an answer, then fails (no retry): a CLI agent exiting non-zero."""

    def __init__(self, live) -> None:
        self.live = live

    async def run(self, request):
        from tftui.agents.base import AgentResult

        self.live.add(request.node_path, "half an answer ")
        self.live.add(request.node_path, "and then the agent died")
        return AgentResult(error="exit status 3: crashed", exit_code=3)


@pytest.mark.parametrize("ascii", [False, True])
async def test_live_sub_line_goes_when_the_attempt_fails_and_stays_gone(h, tmp_path, ascii):
    import json

    from tftui.present.live import LiveText

    flow = tmp_path / "fails.json"
    flow.write_text(json.dumps({"name": "fails", "phases": [
        {"id": "write", "agent": "writer", "task": "Write.", "idempotent": False}]}))
    live = LiveText()
    app = h.make_app(flow, runner=_StreamThenFail(live), ascii=ascii, live_text=live)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.phases["write"].status == "failed"
        live.add("write", " a late piece the agent's pipe still held")  # drained after the exit
        await pilot.pause(0.2)  # a live tick
        app.main._tick_live()
        await pilot.pause()
        assert app.main.dag.live_line("write") is None
        shown = h.screen_text(app)
        assert "late piece" not in shown and "and then the agent died" not in shown, shown


# -- one-line cells: a newline in user text cannot break a row -----------------------------
@pytest.mark.parametrize("ascii", [False, True])
async def test_a_newline_in_an_id_or_name_stays_on_its_row(h, tmp_path, ascii):
    import json

    flow = tmp_path / "lines.json"
    flow.write_text(json.dumps({"name": "two\nlines", "phases": [
        {"id": "first\nsecond", "agent": "writer", "task": "Write."},
        {"id": "after", "agent": "writer", "dependsOn": ["first\nsecond"], "task": "Then: {steps.first\nsecond.output}"},
    ]}))
    (tmp_path / "lines.replies.json").write_text(json.dumps({"first\nsecond": "one", "after": "two"}))
    app = h.make_app(flow, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        lines = h.screen_lines(app)
        assert lines[0].startswith(" two\\nlines ") and "COMPLETED" in lines[0], lines[0]
        row = next(i for i, line in enumerate(lines) if "first\\nsecond agent" in line)
        assert "after agent" in lines[row + 1], lines[row : row + 2]  # the next row is the next phase
        assert not any(line.strip().startswith("second") for line in lines), lines
        log = app.main.event_log
        assert all("\n" not in entry for entry in log.lines)
        assert any("first\\nsecond: done" in entry for entry in log.lines), log.lines
