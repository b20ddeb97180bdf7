"""--ascii at 80x24: no character above U+007F anywhere on screen, and a run header that
keeps status and progress when paused.

The screen text is what `export_screenshot()` drew (every widget line, after line filters).
Most checks run with the ASCII line filter (the last safety net, ascii_mode.AsciiFilter)
switched OFF: they prove the glyph tables, text folding and `-ascii` styles do the work.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.flow.load import load_flow
from tftui.tui.app import TftuiApp
from tftui.tui.screens.databreak import DataBreakpointScreen
from tftui.tui.screens.guard_editor import GuardEditorScreen
from tftui.tui.screens.modals import AnswerScreen, ApprovalScreen, HelpScreen, LineInputScreen
from tftui.tui.screens.whatif import WhatIfScreen
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.phase_detail import TABS, PhaseDetail
from tftui.tui.widgets.run_header import RunHeader

SAMPLES = Path(__file__).parents[2] / "sample_flows"
_TEXT = re.compile(r'<text[^>]*clip-path="url\(#[^)]*-line-(\d+)\)"[^>]*>(.*?)</text>')


def screen_lines(app) -> list[str]:
    """The characters drawn on each screen line (runs of unstyled blanks are not in the SVG)."""
    rows: dict[int, list[str]] = defaultdict(list)
    for match in _TEXT.finditer(app.export_screenshot()):
        rows[int(match.group(1))].append(html.unescape(match.group(2)).replace("\xa0", " "))
    return ["".join(rows[n]) for n in sorted(rows)]


def assert_ascii(app, where: str) -> list[str]:
    lines = screen_lines(app)
    assert len(lines) >= 20, (where, lines)  # the whole 80x24 screen was read
    bad = [(n, line, sorted({c for c in line if not c.isascii()})) for n, line in enumerate(lines) if not line.isascii()]
    assert not bad, (where, bad)
    return lines


def net_off(app) -> None:
    app.ascii_filter.enabled = False
    app.refresh(repaint=True)


async def test_main_screen_every_tab_help_and_tool_modals_are_ascii(h):
    app = h.make_app(SAMPLES / "validate_judge.json", ascii=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # toasts too
        net_off(app)
        assert app.has_class("-ascii")
        tree, detail = app.query_one(DagTree), app.query_one(PhaseDetail)
        tree.select_phase("check-response")
        await pilot.press("b", "c")  # a breakpoint: the paused glyphs and header
        await h.settle(pilot, lambda: app.state.paused is not None)
        assert "paused at check-response" in assert_ascii(app, "paused")[0]
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert_ascii(app, "main screen after the run")
        for pid in ("generate", "check-response"):
            tree.select_phase(pid)
            for tab in TABS:
                detail.active = tab
                await pilot.pause()
                assert_ascii(app, f"{pid} {tab} tab")
        detail.active = "overview"

        await pilot.press("question_mark")
        await h.settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert any("tftui keys" in line for line in assert_ascii(app, "help"))
        await pilot.press("escape")

        await pilot.press("e")  # the guard editor, on the selected gate
        await h.settle(pilot, lambda: isinstance(app.screen, GuardEditorScreen))
        assert_ascii(app, "guard editor")
        await pilot.press("escape")

        await pilot.press("w")  # what-if
        await h.settle(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        assert_ascii(app, "what-if")
        await pilot.press("escape")

        await pilot.press("B")  # a data breakpoint with a syntax error (the ✗ and caret lines)
        await h.settle(pilot, lambda: isinstance(app.screen, DataBreakpointScreen))
        app.screen.query_one(Input).value = "{phase.attempt} >="
        await pilot.pause()
        assert any("x unexpected end" in line for line in assert_ascii(app, "data breakpoint"))
        await pilot.press("escape")

        await pilot.press("slash")  # the log filter box
        await h.settle(pilot, lambda: isinstance(app.screen, LineInputScreen))
        assert_ascii(app, "log filter")
        await pilot.press("escape")
        await h.settle(pilot, lambda: not isinstance(app.screen, LineInputScreen))

        app.notify("Saved — 3 phases → stale…", title="Reload")  # a toast of ours, folded
        await h.settle(pilot, lambda: len(app.screen.query("Toast")) > 0)
        assert any("Saved - 3 phases -> stale..." in line for line in assert_ascii(app, "toast"))

        await pilot.press("ctrl+p")  # the command palette
        await pilot.pause(0.2)
        assert any("Search for commands..." in line for line in assert_ascii(app, "command palette"))


async def test_human_answer_and_approval_modals_are_ascii(h, tmp_path):
    flow = tmp_path / "ask.json"
    flow.write_text(json.dumps({"name": "ask", "phases": [
        {"id": "idea", "agent": "thinker", "task": "Name one colour — short → one word…"},
        {"id": "ok", "type": "approval", "dependsOn": ["idea"], "task": "Ship “{steps.idea.output}”?"},
    ]}, ensure_ascii=False))
    app = h.make_human_app(flow, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        net_off(app)
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        await pilot.pause()
        assert any("Name one colour - short -> one word..." in line for line in assert_ascii(app, "answer box"))
        app.screen.query_one(TextArea).insert("teal")
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause()
        assert any('Ship "teal"?' in line for line in assert_ascii(app, "approval"))
        await pilot.press("ctrl+o")
        await h.run_to_end(pilot, app)
        assert_ascii(app, "after the approval")


async def test_diagnostics_panel_after_an_invalid_edit_is_ascii(h, workdir, monkeypatch):
    # Each diagnostic starts with the flow's path as given, and the panel word-wraps it (36 columns
    # at 80x24): with the absolute temp path, whose length varies with pytest's numbered dir and
    # xdist's popen-gwN/, where "unknown phase 'nope'" broke varied too. A short relative name puts
    # "dependsOn unknown phase 'nope'" at the start of a row for any panel width from 34 to 43.
    monkeypatch.chdir(workdir)
    flow_path = Path("review.json").rename("r.json")
    app = h.make_app(flow_path, Path("review.replies.json"), watch=True, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        net_off(app)
        panel = app.query_one("#diagnostics")
        flow_path.write_text(flow_path.read_text().replace('"dependsOn": ["fetch"]', '"dependsOn": ["nope"]', 1))
        # the file watcher's thread sees the save, then the panel opens and lays out the reload's
        # diagnostics: seconds apart on a loaded machine, so the bound is wider than settle's default
        await h.settle(pilot, lambda: panel.has_class("-visible")
                       and any("unknown phase 'nope'" in line for line in h.screen_lines(app)), limit=3000)
        lines = assert_ascii(app, "diagnostics")
        assert any("1 error(s), all in the log -" in line for line in lines)  # was an em dash
        assert any("unknown phase 'nope'" in line for line in lines)


async def test_the_line_filter_folds_what_no_table_knows(h, tmp_path):
    """A user's Chinese and emoji: folded cell for cell by the safety net (it is on by default)."""
    flow = tmp_path / "cjk.json"
    flow.write_text(json.dumps({"name": "标题", "phases": [{"id": "写", "agent": "a", "task": "写一个标题 🚀"}]},
                               ensure_ascii=False))
    (tmp_path / "cjk.replies.json").write_text(json.dumps({"写": ["好的 👍🏽 — 完成"]}, ensure_ascii=False))
    app = h.make_app(flow, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        for tab in ("overview", "prompt", "output", "raw"):
            app.query_one(PhaseDetail).active = tab
            await pilot.pause()
            assert_ascii(app, tab)


async def test_unicode_mode_is_unchanged(h):
    app = h.make_app(SAMPLES / "validate_judge.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        drawn = "".join(screen_lines(app))
        assert not app.has_class("-ascii")
        assert "·" in drawn and "│" in drawn and "━" in drawn  # header separators, tree border, tab underline


# -- the run header at 80 columns ---------------------------------------------------------------
def _long_header_app(tmp_path: Path, *, ascii: bool) -> TftuiApp:
    flow = tmp_path / "long.json"
    flow.write_text(json.dumps({
        "name": "a-flow-with-a-rather-long-descriptive-name",
        "budget": {"maxTokens": 100000, "maxUSD": 2},
        "phases": [
            {"id": "draft-the-first-version", "agent": "w", "task": "Draft."},
            {"id": "review-the-draft-carefully", "agent": "r", "dependsOn": ["draft-the-first-version"], "task": "Review."},
            {"id": "publish", "agent": "p", "dependsOn": ["review-the-draft-carefully"], "task": "Publish."},
        ],
    }))
    replies = {"draft-the-first-version": ["a draft"], "review-the-draft-carefully": ["ok"], "publish": ["done"]}
    (tmp_path / "long.replies.json").write_text(json.dumps(replies))
    loaded = load_flow(flow)
    return TftuiApp(
        loaded.flow, flow_path=str(flow), flow_text=loaded.source_text,
        runner=ScriptedRunner.from_file(tmp_path / "long.replies.json"), clock=InstantClock(),
        show_times=True, animations=False, watch=False, config_path=tmp_path / "no-config.toml", ascii=ascii,
    )


async def _fitted_header(pilot, app) -> str:
    await pilot.pause()
    header = app.query_one(RunHeader)
    shown = str(header.render())
    assert len(shown) <= header.content_size.width == 78, shown  # fits: nothing is clipped at the edge
    drawn = screen_lines(app)[0].replace(" ", "")
    assert drawn == shown.replace(" ", ""), (drawn, shown)  # and that is what the screen shows
    return shown


@pytest.mark.parametrize("ascii", [True, False], ids=["ascii", "unicode"])
async def test_paused_header_keeps_status_and_progress_at_80_columns(h, tmp_path, ascii):
    app = _long_header_app(tmp_path, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        sep = " | " if ascii else " · "
        app.query_one(DagTree).select_phase("review-the-draft-carefully")
        await pilot.press("b", "c")  # to a breakpoint
        await h.settle(pilot, lambda: app.state.paused is not None)
        shown = await _fitted_header(pilot, app)
        # issue 15 item 11: what will stop the run (`stop b1`) stays at 80 columns too, after the progress
        assert shown.startswith(f"RUNNING{sep}paused at ") and shown.endswith(f"{sep}stop b1"), shown
        assert f"{sep}1/3{sep}" in shown and len(shown) <= 80  # the elapsed time, if it fits, in between
        assert "paused at review-the-draft-carefully: start" in shown, shown
        assert "a-flow-with" not in shown  # the flow name gave way before the pause point
        stop = app.state.paused.seq
        await pilot.press("n")  # a step: the next pause point
        await h.settle(pilot, lambda: app.state.paused is not None and app.state.paused.seq > stop)
        shown = await _fitted_header(pilot, app)
        assert "RUNNING" in shown and "1/3" in shown and "review-the-draft-carefully: attempt 1" in shown, shown
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        done = str(app.query_one(RunHeader).render())
        assert "COMPLETED" in done and "3/3" in done and "tok" in done  # room again: spend is back


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_a_finished_run_with_a_very_long_name_keeps_spend_and_stops_at_80_columns(h, tmp_path, ascii):
    """The name is cut to fit; what it displaced comes back (it went before the name was cut)."""
    flow = tmp_path / "long.json"
    flow.write_text(json.dumps({"name": "a-really-long-flow-name-for-testing-the-header-at-eighty-columns",
                                "phases": [{"id": "a", "agent": "w", "task": "Draft."}]}))
    (tmp_path / "long.replies.json").write_text(json.dumps(
        {"a": [{"output": "x", "usage": {"input": 10, "output": 5, "costUSD": 0.001}}]}))
    app = h.make_app(flow, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b", "c")
        await h.settle(pilot, lambda: app.state.paused is not None)
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        shown = await _fitted_header(pilot, app)
        assert "COMPLETED" in shown and "15 tok $0.0010" in shown and shown.endswith(("stop b1", "stop: break at a")), shown


async def test_what_if_inputs_show_their_value_under_ascii(h):
    """A one-line input with an ASCII border has no row left for its text."""
    runner = ScriptedRunner.from_file(SAMPLES / "validate_judge.blocking.replies.json")
    app = h.make_app(SAMPLES / "validate_judge.json", runner=runner, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase("check-response")
        await pilot.press("w")
        await h.settle(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        threshold = app.screen.query_one("#wi-threshold", Input)
        assert app.screen.focused is threshold
        assert threshold.content_region.height == 1 and threshold.value == "0.7"
