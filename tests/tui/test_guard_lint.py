"""The debugger and the linter (docs/linter.md): the guard editor shows the same findings, with
the same did-you-mean, as `tftui check` prints for a `when`; a save with a typo shows it on the
phase; a save that does not parse says what is wrong (issue 15 items 3 and 17)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tftui.tui.screens.guard_editor import GuardEditorScreen
from tftui.tui.widgets.dag_tree import DagTree


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_guard_editor_shows_the_linter_findings_while_typing(h, size, ascii):
    app = h.make_app(h.FIXTURES / "guarded.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        app.query_one(DagTree).select_phase("quick-summary")
        await pilot.pause()
        await pilot.press("e")
        await h.settle(pilot, lambda: isinstance(app.screen, GuardEditorScreen))
        screen = app.screen
        assert isinstance(screen, GuardEditorScreen)
        assert "did you mean" not in screen.feedback_text()  # the file's own guard is clean

        await h.type_into(pilot, app, screen.query_one(Input), "{steps.triag.json.severity} != high")
        shown = screen.feedback_text()
        dash = "-" if ascii else "—"
        assert f"column 1: {{steps.triag.json.severity}}: no phase 'triag' {dash} did you mean {{steps.triage.json.severity}}?" in " ".join(shown.split())

        await h.type_into(pilot, app, screen.query_one(Input), "{steps.triage.json.severity} != high && {stesp.x}")
        shown = screen.feedback_text()
        assert "no phase" not in shown
        assert "column 41: {stesp.x}: unknown placeholder head 'stesp'" in " ".join(shown.split())
        await pilot.press("escape")


async def test_a_save_with_a_typo_shows_it_on_the_phase_and_a_broken_save_says_why(h, workdir):
    flow_path = workdir / "review.json"
    good = flow_path.read_text()
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        typo = good.replace("Write notes on: {steps.fetch.output}", "Write notes on: {steps.fetch.outptu}")
        assert typo != good
        flow_path.write_text(typo)
        await h.settle(pilot, lambda: "notes" in app.file_warnings)
        [warning] = [w for w in app.file_warnings["notes"] if "outptu" in w]
        assert warning.endswith("'steps.fetch' has no field 'outptu' — did you mean {steps.fetch.output}?")

        panel = app.query_one("#diagnostics")
        for text, words in [
            ("", "the file is empty"),
            ("name: review\nphases:\n  - id: fetch\n", "this looks like YAML; tftui reads JSON flows"),
            (good.replace('"Fetch the data.", ', '"Fetch the data." ', 1), "missing comma after line 5?"),
        ]:
            flow_path.write_text(text)
            await h.settle(pilot, lambda words=words: words in " ".join(str(panel.render()).split()))
            assert panel.has_class("-visible")
            assert set(h.tree_labels(app)) == {"fetch", "draft", "review", "notes", "publish"}  # last good flow
