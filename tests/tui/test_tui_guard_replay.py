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


# -- cassette mode ---------------------------------------------------------------------
def _record(h, tmp_path: Path, flow: str = "guarded.json") -> Path:
    """A journaled `tftui run` of a fixture flow: the recording cassettes and replays read."""
    from tftui.cli import main

    runs = tmp_path / "runs"
    assert main(["run", str(h.FIXTURES / flow), "--runs-dir", str(runs), "-q"]) == 0
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    return run_dir


@pytest.fixture
def recorded(h, tmp_path: Path) -> Path:
    return _record(h, tmp_path)  # outside the test's event loop (`tftui run` starts its own)


async def test_cassette_tui_makes_no_runner_calls_when_nothing_changed(h, recorded: Path):
    from tftui.agents.cassette import CassetteRunner

    live = ScriptedRunner.from_file(h.FIXTURES / "guarded.replies.json")
    cassette = CassetteRunner(recorded, live)
    app = h.make_app(h.FIXTURES / "guarded.json", runner=cassette)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert live.calls == []
        assert (cassette.replayed, cassette.live) == (2, 0)
        assert h.statuses(app)["deep-audit"] == "done"
        assert app.state.phases["deep-audit"].output == "Audit: add a test."
        assert "cassette 2 replayed/0 live" in str(app.query_one("#run-header").render())


def test_cassette_run_from_zero_calls_then_only_the_changed_phase(h, tmp_path: Path, monkeypatch, capsys):
    import tftui.commands.run_exec as run_exec
    from tftui.cli import main

    run_dir = _record(h, tmp_path)
    live = ScriptedRunner.from_file(h.FIXTURES / "guarded.replies.json")
    monkeypatch.setattr(run_exec, "select_runner", lambda *_a, **_k: live)
    capsys.readouterr()
    assert main(["run", str(h.FIXTURES / "guarded.json"), "--no-journal", "--from", str(run_dir)]) == 0
    out = capsys.readouterr()
    assert live.calls == []
    assert out.out == "Audit: add a test.\n"
    assert "cassette: 2 replayed, 0 live (470 recorded tokens not spent again)" in out.err

    edited = tmp_path / "guarded.json"  # the deep-audit prompt changes: only that call goes live
    edited.write_text((h.FIXTURES / "guarded.json").read_text().replace("Deep-dive.", "Deep dive."))
    assert main(["run", str(edited), "--no-journal", "--from", str(run_dir)]) == 0
    assert [c.node_path for c in live.calls] == ["deep-audit"]
    assert "cassette: 1 replayed, 1 live" in capsys.readouterr().err


def test_from_names_a_missing_recording(h, tmp_path: Path, capsys):
    from tftui.cli import main

    missing = str(tmp_path / "nope")
    assert main(["run", str(h.FIXTURES / "guarded.json"), "--no-journal", "--from", missing]) == 2
    assert f"--from {missing}: no such run directory, run id or bundle" in capsys.readouterr().err
    assert main([str(h.FIXTURES / "guarded.json"), "--from", missing]) == 2
