"""A phase with a long output (a big map): the detail panel draws a bounded part and says how
much is left; `o` shows the whole text in a viewer; the panel stays current after the run."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import TextArea

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.screens.full_text import FullTextScreen
from tftui.tui.widgets.phase_detail import BODY_MAX_LINES, PhaseDetail

ITEMS = 400


def _map_flow(tmp_path: Path) -> tuple[Path, ScriptedRunner]:
    flow = {
        "name": "long-map",
        "args": {"items": {"default": [f"m{i}" for i in range(ITEMS)]}},  # `over` is a reference (issue 14)
        "phases": [
            {"id": "each", "type": "map", "over": "{args.items}", "task": "review {item}"},
        ],
    }
    path = tmp_path / "long_map.json"
    path.write_text(json.dumps(flow), encoding="utf-8")
    replies = {f"each#item-{i}": f"review of m{i}" for i in range(ITEMS)}
    return path, ScriptedRunner(replies)


def _body(app) -> str:
    return str(app.main.detail.body.render())


async def test_long_output_is_cut_in_the_panel_and_whole_in_the_viewer(h, tmp_path: Path) -> None:
    path, runner = _map_flow(tmp_path)
    app = h.make_app(path, runner=runner)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one("#tree").select_phase("each")
        detail = app.query_one(PhaseDetail)
        detail.active = "output"
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()

        whole = detail.text("output")
        assert f"review of m{ITEMS - 1}" in whole  # the tab's text is complete...
        body = _body(app)
        drawn = body.splitlines()
        assert len(drawn) <= BODY_MAX_LINES + 1  # ...the panel draws a bounded part (after the run, too)
        assert "review of m0" in body and f"review of m{ITEMS - 1}" not in body
        assert drawn[-1].startswith("… ") and "more lines" in drawn[-1] and drawn[-1].endswith("o shows the whole text")

        await pilot.press("o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FullTextScreen)
        area = screen.query_one(TextArea)
        assert area.read_only and area.text == whole
        assert f"each · Output — {whole.count(chr(10)) + 1:,} lines" in str(screen.query_one(".modal-title").render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FullTextScreen)

        detail.active = "prompt"  # the panel builds only the first calls; the viewer's text has all
        await pilot.pause()
        assert f"each#item-{ITEMS - 1}  attempt 1" in detail.text("prompt")
        assert "each#item-0  attempt 1" in _body(app) and f"each#item-{ITEMS - 1}" not in _body(app)

        detail.active = "raw"  # the panel: the attempt log's first entries; the viewer: all of them
        await pilot.pause()
        panel_text = detail._tab_text("raw").plain  # what the panel builds (then cut to what it draws)
        assert f"… {ITEMS - 100:,} more (o shows the whole JSON)" in panel_text
        assert "o shows the whole text" in _body(app)
        assert detail.text("raw").count('"node_path": "each#item-') == ITEMS


async def test_short_tabs_are_not_cut_and_the_viewer_key_is_remappable(h, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[keys]\nfull_text = "ctrl+o"\n', encoding="utf-8")
    app = h.make_app(h.FIXTURES / "review.json", config_path=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert "shows the whole text" not in _body(app)  # a short overview is drawn whole
        assert app.query_one(PhaseDetail).open_key == "ctrl+o"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, FullTextScreen)


async def test_q_closes_the_viewer_and_help_and_quits_from_the_main_screen(h) -> None:
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        for opener in ("o", "question_mark"):
            await pilot.press(opener)
            await pilot.pause()
            assert app.screen is not app.screen_stack[0]
            await pilot.press("q")  # a modal's own q closes it; it does not quit tftui
            await pilot.pause()
            assert app.is_running and app.screen is app.screen_stack[0]
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
