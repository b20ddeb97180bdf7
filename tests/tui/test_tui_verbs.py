"""The verb registry drives bindings, footer, help and palette; keys remap by verb id; themes persist."""

from __future__ import annotations

import tomllib

from textual.command import CommandPalette

from tftui.tui.actions import VERBS
from tftui.tui.keymap import keymap_from_config
from tftui.tui.screens.modals import HelpScreen
from tftui.tui.widgets.dag_tree import DagTree


def test_registry_is_consistent():
    from tftui.tui.main_screen import MainScreen

    ids = [v.id for v in VERBS]
    assert len(ids) == len(set(ids))
    for verb in VERBS:
        assert hasattr(MainScreen, f"action_{verb.action}"), verb
    keys = {(k.strip()) for v in VERBS for k in v.key.split(",")}
    assert {"n", "s", "c", "b", "r", "e", "R", "question_mark", "q"} <= keys  # DESIGN §5 habits


def test_a_bad_keys_entry_is_reported_once_by_the_config_reader(tmp_path):
    """Unknown verbs and empty keys are the config reader's findings (tftui config says the same);
    the keymap takes what it kept and refuses only key clashes."""
    from tftui.tui.keymap import read_config

    config = tmp_path / "config.toml"
    config.write_text('[keys]\nstep = "z"\nwarp = "w"\nquit = ""\npause = "c"\n')
    data, problems = read_config(config)
    keymap, key_problems = keymap_from_config(data)
    assert keymap == {"tftui.step": "z"}
    assert [p for p in problems if "warp" in p] and [p for p in problems if "keys.quit" in p]
    assert len([p for p in [*problems, *key_problems] if "warp" in p]) == 1
    assert key_problems == [p for p in key_problems if "pause" in p] and key_problems


async def test_remapped_key_steps(h, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[keys]\nstep = "z"\n')  # "x" would be export_bundle's key: refused
    app = h.make_app(h.FIXTURES / "review.json", config_path=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("z")
        await h.settle(pilot, lambda: app.state.paused is not None)
        assert app.state.paused.point == "before-phase"
        app.ctl.stop()
        await h.settle(pilot, lambda: not app.ctl.running)


async def test_help_lists_every_verb(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        import io

        from rich.console import Console

        console = Console(width=200, file=io.StringIO(), record=True)
        console.print(app.screen.query_one("#help-table").content)
        text = console.export_text()
        for verb in VERBS:
            assert f"({verb.id})" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_palette_runs_a_verb(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one(DagTree).select_phase("notes")
        await pilot.press("ctrl+p")
        await h.settle(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Break")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await h.settle(pilot, lambda: "notes" in app.ctl.breakpoints)


async def test_theme_cycle_persists(h, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[keys]\nstep = "n"\n')
    app = h.make_app(h.FIXTURES / "review.json", config_path=config)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "tftui-dark"
        await pilot.press("t")
        assert app.theme == "tftui-light"
    data = tomllib.loads(config.read_text())
    assert data["ui"]["theme"] == "tftui-light"
    assert data["keys"]["step"] == "n"  # the rest of the file is kept
    app2 = h.make_app(h.FIXTURES / "review.json", config_path=config)
    async with app2.run_test(size=(80, 24)):
        assert app2.theme == "tftui-light"


async def test_slash_filters_the_log(h):
    from textual.widgets import Input

    from tftui.tui.widgets.event_log import EventLog

    app = h.make_app(h.FIXTURES / "gate_block.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.press("slash")
        await h.settle(pilot, lambda: bool(app.screen.query(Input)))
        await pilot.press(*"kind:phase_skipped")
        await pilot.press("enter")
        log = app.query_one(EventLog)
        await h.settle(pilot, lambda: log.query_text == "kind:phase_skipped")
        assert log.lines and all("skipped — Gate blocked" in line for line in log.lines)


async def test_a_repeated_key_does_not_stack_the_same_toast(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("u", "u", "u", "p", "u")  # nothing stale x3, no run to pause, nothing stale
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert shown.count("Nothing is stale: edit the flow file and save to mark changed phases.") == 1
        assert "No run in progress (c runs, n steps)." in shown  # a different toast still shows
