"""The replay screen's keys are verbs of the one registry: remapped in config.toml [keys] like
the debugger's, shown with the remapped key in its help, and its palette lists its own verbs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console


def _record(h, tmp_path: Path) -> Path:
    from tftui.cli import main

    runs = tmp_path / "runs"
    assert main(["run", str(h.FIXTURES / "guarded.json"), "--runs-dir", str(runs), "-q"]) == 0
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    return run_dir


@pytest.fixture
def recorded(h, tmp_path: Path) -> Path:
    return _record(h, tmp_path)


def _app(recorded: Path, tmp_path: Path, keys: str):
    from tftui.tui.replay_app import open_replay_app

    config = tmp_path / "config.toml"
    config.write_text(f"[keys]\n{keys}\n")
    app, problem = open_replay_app(recorded, config_path=config)
    assert problem is None and app is not None
    return app


async def test_a_remapped_replay_key_moves_and_help_shows_it(recorded, tmp_path):
    app = _app(recorded, tmp_path, 'replay_back = "f9"')
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        end = app.position
        await pilot.press("N")  # the default key no longer steps back
        await pilot.pause()
        assert app.position == end
        await pilot.press("f9")
        await pilot.pause()
        assert app.position == end - 1
        await pilot.press("question_mark")
        await pilot.pause()
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen.query_one("#help-table").content)
        rows = [line.strip() for line in console.export_text().splitlines()]
        assert any(r.startswith("f9") and r.endswith("(replay_back)") for r in rows), rows


async def test_a_run_control_remapped_onto_a_replay_key_does_not_take_it(recorded, tmp_path):
    # `run = "g"` is fine in the debugger; in the replay g stays "go to start" (run is read-only there)
    app = _app(recorded, tmp_path, 'run = "g"')
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert app.position == 0
        await pilot.press("c")  # run keeps its default key here, and says why it does nothing
        await pilot.pause()
        assert any("Replay is read-only" in n.message for n in app._notifications)


async def test_the_replay_palette_lists_its_own_verbs(recorded, tmp_path):
    from tftui.tui.commands import VerbCommands

    app = _app(recorded, tmp_path, "")
    async with app.run_test(size=(100, 30)):
        provider = VerbCommands(app.screen)
        titles = [title for title, _help, _run in provider._entries()]
        assert any(t.startswith("Prev event") for t in titles)
        assert not any(t.startswith("Step ") or t.startswith("Restart ") for t in titles)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_replay_seek_checks_the_condition_as_you_type_like_the_debuggers_b(recorded, size, ascii):
    """Issue 15 Build: `B` (the debugger's data breakpoint and the replay's seek) checks as you type;
    a misspelt name is shown with its did-you-mean while typing and enter keeps what was typed."""
    from textual.widgets import Input

    from tftui.tui.replay_app import open_replay_app

    app, problem = open_replay_app(recorded, ascii=ascii)
    assert problem is None and app is not None
    async with app.run_test(size=size) as pilot:
        await pilot.press("g")
        await pilot.press("B")
        await pilot.pause()
        box = app.screen.query_one(Input)
        box.value = "{phase.atempt} >= 1"
        await pilot.pause()
        shown = " ".join(" ".join(strip.text.split()) for strip in app.screen._compositor.render_strips())
        assert "'phase' has no field 'atempt'" in shown and "{phase.attempt}?" in shown, shown  # while typing
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "{phase.atempt} >= 1"  # refused, still there to fix
        app.screen.query_one(Input).value = "{phase.attempt} >= 1"
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        header = app.screen._compositor.render_strips()[0].text
        assert "event 0/" not in header and "REPLAY event" in header, header  # it sought forward
