"""Guard editor (live feedback, apply, save, concurrent change refused), replay (time travel)
and cassette mode (zero runner calls when nothing changed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.screens.guard_editor import GuardEditorScreen
from tftui.tui.widgets.dag_tree import DagTree

GUARD = "{steps.triage.json.severity} != high"


async def _open_editor(h, pilot, app, pid: str) -> GuardEditorScreen:
    app.query_one(DagTree).select_phase(pid)
    await pilot.pause()
    await pilot.press("e")
    await h.settle(pilot, lambda: isinstance(app.screen, GuardEditorScreen))
    return app.screen


async def _type(pilot, screen: GuardEditorScreen, text: str) -> None:
    screen.query_one(Input).value = ""
    await pilot.press(*text)  # one key at a time: the feedback follows every keystroke
    await pilot.pause()


async def test_guard_editor_live_feedback(h):
    app = h.make_app(h.FIXTURES / "guarded.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        screen = await _open_editor(h, pilot, app, "quick-summary")
        shown = screen.feedback_text()
        # the existing skip is explained, with the value that made it
        assert f'skipped because {GUARD} was false: severity = "high"' in shown
        assert '{steps.triage.json.severity} = "high"' in shown
        assert "✗ skip quick-summary" in shown and "✗ skip report — Upstream dependency not satisfied" in shown

        await _type(pilot, screen, "{steps.triage.json.severity} == = high")
        lines = screen.feedback_text().splitlines()
        at = lines.index("{steps.triage.json.severity} == = high")
        assert "syntax error at column 33" in lines[at - 1]
        assert lines[at + 1] == " " * 32 + "^"  # the caret sits under the stray '='
        assert "the phase would run (fail-open)" in screen.feedback_text()

        await _type(pilot, screen, "{steps.triage.json.severity} == high && {args.x} == 1")
        shown = screen.feedback_text()
        assert "syntax error" not in shown
        assert '{steps.triage.json.severity} = "high"' in shown
        assert "{args.x} = unresolved" in shown
        assert "→ false — skipped" in shown

        await _type(pilot, screen, "{steps.triage.json.severity} == high")
        shown = screen.feedback_text()
        assert "→ true — the phase runs" in shown
        assert "✓ run  quick-summary" in shown and "✓ run  report — no guard" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GuardEditorScreen)
        assert app.ctl.guard_overrides == {}  # cancel changes nothing


async def test_guard_apply_runs_the_skipped_branch(h):
    runner = ScriptedRunner.from_file(h.FIXTURES / "guarded.replies.json")
    app = h.make_app(h.FIXTURES / "guarded.json", runner=runner)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert h.statuses(app)["quick-summary"] == "skipped"
        before = len(runner.calls)
        screen = await _open_editor(h, pilot, app, "quick-summary")
        await _type(pilot, screen, "{steps.triage.json.severity} == high")
        await pilot.press("enter")
        await h.settle(pilot, lambda: len(runner.calls) > before)
        await h.run_to_end(pilot, app)
        # only the edited phase and its downstream ran: triage and deep-audit kept their outputs
        assert [c.node_path for c in runner.calls[before:]] == ["quick-summary", "report"]
        got = h.statuses(app)
        assert got == {"triage": "done", "deep-audit": "done", "quick-summary": "done", "report": "done"}
        assert app.state.phases["quick-summary"].guard["overridden"] is True


async def test_guard_save_changes_only_the_guard(h, workdir: Path):
    path = workdir / "guarded.json"
    original = path.read_text(encoding="utf-8")
    app = h.make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open_editor(h, pilot, app, "quick-summary")
        await _type(pilot, screen, "{steps.triage.json.severity} == low")
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: not isinstance(app.screen, GuardEditorScreen))
    expected = original.replace(f'"{GUARD}"', '"{steps.triage.json.severity} == low"')
    assert expected != original and original.count(f'"{GUARD}"') == 1
    assert path.read_text(encoding="utf-8") == expected  # comments, spacing, key order untouched
    assert app.flow_text == expected


async def test_guard_save_refused_after_a_change_on_disk(h, workdir: Path):
    path = workdir / "guarded.json"
    app = h.make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open_editor(h, pilot, app, "deep-audit")
        changed = path.read_text(encoding="utf-8").replace("the expensive branch", "edited elsewhere")
        path.write_text(changed, encoding="utf-8")  # someone else saved the file meanwhile
        await _type(pilot, screen, "{steps.triage.json.severity} == critical")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GuardEditorScreen)  # still open, showing why
        assert "changed on disk since it was loaded; not saved" in screen.feedback_text()
    assert path.read_text(encoding="utf-8") == changed


def _editor_open(h, app):
    async def run_before(pilot) -> None:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.wait_for_scheduled_animations()
        app.query_one("#log").scroll_end(animate=False, immediate=True)  # the log's auto-scroll may lag a frame
        await pilot.pause()
        await _open_editor(h, pilot, app, "quick-summary")
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_guard_editor_snapshot(h, snap_compare, size):
    app = h.make_app(h.FIXTURES / "guarded.json")
    assert snap_compare(app, terminal_size=size, run_before=_editor_open(h, app))
