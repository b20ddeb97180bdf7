"""The approval dialog (issue 15, item 14): edit opens the text for editing and completes only
on confirm; approve is not ctrl+a (screen's prefix); its keys are verbs, remappable."""

from __future__ import annotations

import json

import pytest
from textual.widgets import TextArea

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.screens.modals import ApprovalScreen, HelpScreen

SIZED = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
DRAFT = "Release notes: journals make runs resumable."


def _app(h, tmp_path, **kwargs):
    flow = tmp_path / "ap.json"
    flow.write_text(json.dumps({"name": "ap", "phases": [
        {"id": "draft", "task": "Write."},
        {"id": "ok", "type": "approval", "dependsOn": ["draft"], "task": "Ship the draft?"},
        {"id": "post", "dependsOn": ["ok"], "task": "Post {steps.ok.output}"},
    ]}))
    return h.make_app(flow, runner=ScriptedRunner({"draft": [DRAFT], "post": ["posted"]}), **kwargs)


def _shown(h, app) -> str:
    return "\n".join(h.screen_lines(app))


@SIZED
@MODES
async def test_edit_opens_the_text_and_completes_only_on_confirm(h, tmp_path, size, ascii):
    app = _app(h, tmp_path, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "ctrl+o approve" in _shown(h, app) and "ctrl+e edit" in _shown(h, app)
        await pilot.press("ctrl+e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.editing  # not completed
        assert str(app.state.phases["ok"].status) == "running"
        shown = _shown(h, app)
        assert "Edit the output" in shown and DRAFT in shown and "saves the edit and continues" in shown
        area = screen.query_one(TextArea)
        assert area.text == DRAFT
        await pilot.press(*" (edited)")
        await pilot.press("escape")  # back: nothing decided, nothing kept
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen) and not app.screen.editing
        assert app.screen.query_one(TextArea).text == ""
        await pilot.press("ctrl+e")
        await pilot.pause()
        await pilot.press(*" v2")  # typed where the editor puts the cursor: after the text
        await pilot.press("ctrl+o")  # confirm the edit
        await h.run_to_end(pilot, app)
        assert app.state.phases["ok"].output == f"{DRAFT} v2"
        assert app.state.phases["ok"].approval == {"decision": "edit", "note": f"{DRAFT} v2"}
        assert app.state.status == "completed"


@SIZED
@MODES
async def test_ctrl_a_does_not_approve_and_the_new_key_does(h, tmp_path, size, ascii):
    app = _app(h, tmp_path, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("ctrl+a")  # screen's prefix over SSH: must not decide anything
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("ctrl+o")
        await h.run_to_end(pilot, app)
        assert app.state.phases["ok"].output == "(approve)"


@SIZED
async def test_the_dialog_keys_are_remappable_verbs(h, tmp_path, size):
    config = tmp_path / "config.toml"
    config.write_text('[keys]\napprove = "ctrl+t"\n')
    app = _app(h, tmp_path, config_path=config)
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await h.settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("end")
        await pilot.pause()
        assert any(row.strip().startswith("ctrl+t  Approval dialog: approve") for row in h.screen_lines(app)
                   for row in [row.strip(" │|")])
        await pilot.press("escape")
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "ctrl+t approve" in _shown(h, app)
        await pilot.press("ctrl+t")
        await h.run_to_end(pilot, app)
        assert app.state.phases["ok"].approval == {"decision": "approve"}
