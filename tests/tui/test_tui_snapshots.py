"""SVG snapshots of the main screen after a run (deterministic: virtual clock, no durations).

Update after an intended change with: .venv/bin/pytest tests/tui/test_tui_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest


def _after_run(h, app):
    async def run_before(pilot) -> None:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one("#tree").select_phase("review")
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()  # the tab underline slides
        app.query_one("#log").scroll_end(animate=False, immediate=True)  # the log's auto-scroll may lag a frame
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_main_screen_after_run(h, snap_compare, size):
    app = h.make_app(h.FIXTURES / "review.json")
    assert snap_compare(app, terminal_size=size, run_before=_after_run(h, app))


def test_main_screen_blocked_ascii(h, snap_compare):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after_run(h, app))
