"""--ascii keeps every line break (issue 15, item 1): a line that ended in a folded glyph
(`── review  attempt 1 ──`, a Calls line ending in `—`) used to lose its newline and run into
the next one. For every tab of the detail pane, the text shown under --ascii has the same
lines as without it, each the ASCII spelling of its Unicode twin."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tftui.present.asciifold import to_ascii
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.phase_detail import TABS, PhaseDetail

SAMPLES = Path(__file__).parents[2] / "sample_flows"
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def _shown(detail: PhaseDetail) -> str:
    """The text the active tab's widgets hold (the gate tab: its two panes)."""
    if detail.active == "gate" and detail.query_one("#gate-row").has_class("-visible"):
        parts = [detail.query_one("#gate-report", Static).content, detail.query_one("#gate-judge", Static).content]
    else:
        parts = [detail.body.content]
    return "\n".join(str(part) for part in parts)


async def _every_tab(h, flow: Path, replies: Path | None, *, ascii: bool, sizes: list[tuple[int, int]]
                     ) -> dict[tuple[int, int], dict[tuple[str, str], str]]:
    """Every tab's text for every phase at each of `sizes` (one run; the terminal is resized
    between sweeps, as a user's terminal is)."""
    app = h.make_app(flow, replies, ascii=ascii)
    by_size: dict[tuple[int, int], dict[tuple[str, str], str]] = {}
    async with app.run_test(size=sizes[0]) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        tree, detail = app.query_one(DagTree), app.query_one(PhaseDetail)
        for size in sizes:
            if app.size != size:
                await pilot.resize_terminal(*size)
                await pilot.pause()
            texts = by_size[size] = {}
            # The sweep reads what the widgets hold, not the screen: no frame is drawn meanwhile
            # (a repaint per tab was most of this test's time; the widgets' text is the same).
            with app.batch_update():
                for pid in tree.phase_ids():
                    tree.select_phase(pid)
                    await pilot.pause()
                    for tab in TABS:
                        if tab == "trace":
                            continue  # the whole run's text, compared once below
                        detail.active = tab
                        await pilot.pause()
                        texts[(pid, tab)] = _shown(detail)
                detail.active = "trace"
                await pilot.pause()
                texts[("run", "trace")] = _shown(detail)
    return by_size


@pytest.mark.parametrize("sample", ["gate_block", "validate_judge", "onblock_rework"])
async def test_every_tab_has_the_same_lines_under_ascii(h, sample):
    """At 80x24 and 120x40 (the gate and trace tabs lay out by width)."""
    flow = SAMPLES / f"{sample}.json"
    sizes = [(80, 24), (120, 40)]
    unicode_by_size = await _every_tab(h, flow, None, ascii=False, sizes=sizes)
    ascii_by_size = await _every_tab(h, flow, None, ascii=True, sizes=sizes)
    for size in sizes:
        unicode, ascii = unicode_by_size[size], ascii_by_size[size]
        assert unicode.keys() == ascii.keys()
        folded_somewhere = False
        for key, text in unicode.items():
            lines, ascii_lines = text.split("\n"), ascii[key].split("\n")
            assert len(ascii_lines) == len(lines), (size, key, text, ascii[key])
            assert ascii_lines == [to_ascii(line) for line in lines], (size, key)
            folded_somewhere |= not text.isascii()
        assert folded_somewhere  # the samples do show glyphs that fold


@SIZES
async def test_prompt_heading_stays_on_its_own_line_on_screen(h, size):
    """The walkthrough of issue 15: gate_block --ascii, c, down, ] -> the Prompt tab."""
    app = h.make_app(SAMPLES / "gate_block.json", ascii=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.press("down", "right_square_bracket")
        await pilot.pause()
        detail = app.query_one(PhaseDetail)
        assert detail.active == "prompt" and detail.phase_id == "review"
        rows = [row.strip() for row in h.pane_lines(app, detail.query_one("#detail-scroll"))]
        heading = rows.index("-- review  attempt 1 --")
        assert rows[heading + 1].startswith("Review this")


@SIZES
async def test_calls_tab_lines_end_where_they_end_without_ascii(h, size):
    rows = {}
    for ascii in (False, True):
        app = h.make_app(SAMPLES / "gate_block.json", ascii=ascii)
        async with app.run_test(size=size) as pilot:
            await pilot.press("c")
            await h.run_to_end(pilot, app)
            app.query_one(DagTree).select_phase("review")
            detail = app.query_one(PhaseDetail)
            detail.active = "attempts"
            await pilot.pause()
            rows[ascii] = [row.rstrip() for row in h.pane_lines(app, detail.query_one("#detail-scroll"))]
    shown = min(len(rows[False]), len(rows[True]))  # --ascii has no tab underline: one more row
    assert shown >= 12
    for plain, ascii in zip(rows[False][:shown], rows[True][:shown], strict=True):
        assert ascii == to_ascii(plain)
