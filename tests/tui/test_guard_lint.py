"""The guard editor runs the flow linter as you type (docs/linter.md): the same findings, with
the same did-you-mean, as `tftui check` prints for a `when`."""

from __future__ import annotations

from textual.widgets import Input

from tftui.tui.screens.guard_editor import GuardEditorScreen
from tftui.tui.widgets.dag_tree import DagTree


async def test_guard_editor_shows_the_linter_findings_while_typing(h):
    app = h.make_app(h.FIXTURES / "guarded.json")
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(DagTree).select_phase("quick-summary")
        await pilot.pause()
        await pilot.press("e")
        await h.settle(pilot, lambda: isinstance(app.screen, GuardEditorScreen))
        screen = app.screen
        assert isinstance(screen, GuardEditorScreen)
        assert "did you mean" not in screen.feedback_text()  # the file's own guard is clean

        screen.query_one(Input).value = ""
        await pilot.press(*"{steps.triag.json.severity} != high")
        await pilot.pause()
        shown = screen.feedback_text()
        assert "column 1: {steps.triag.json.severity}: no phase 'triag' — did you mean {steps.triage.json.severity}?" in shown

        screen.query_one(Input).value = ""
        await pilot.press(*"{steps.triage.json.severity} != high && {stesp.x}")
        await pilot.pause()
        shown = screen.feedback_text()
        assert "no phase" not in shown
        assert "column 41: {stesp.x}: unknown placeholder head 'stesp'" in shown
        await pilot.press("escape")
