"""A `[keys]` remap shows in the footer (in place, with the new key), in `?` help and in the
palette; a remap onto another verb's key is reported in the event log and ignored."""

from __future__ import annotations

import io
import re

from rich.console import Console

from tftui.tui.screens.modals import HelpScreen
from tftui.tui.widgets.event_log import EventLog


def footer_text(app) -> str:
    # The bottom line of the screen as the terminal shows it (cut at the right edge).
    return app.screen._compositor.render_strips()[-1].text.strip()


async def help_rows(pilot, app) -> dict[str, list[str]]:
    """verb id -> the keys the `?` screen lists for it (a key shown twice would show up twice)."""
    await pilot.press("question_mark")
    await pilot.pause()
    assert isinstance(app.screen, HelpScreen)
    console = Console(width=250, file=io.StringIO(), record=True)
    console.print(app.screen.query_one("#help-table").content)
    rows: dict[str, list[str]] = {}
    for line in console.export_text().splitlines():
        m = re.match(r"^\s*(\S+)\s{2}.*\((\w+)\)\s*$", line)
        if m:
            rows.setdefault(m.group(2), []).append(m.group(1))
    await pilot.press("escape")
    return rows


def app_with(h, tmp_path, text: str):
    config = tmp_path / "config.toml"
    config.write_text(text)
    return h.make_app(h.FIXTURES / "review.json", config_path=config)


async def test_no_remap_footer_is_unchanged(h, tmp_path):
    app = app_with(h, tmp_path, "")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert footer_text(app).startswith("c Run/cont  n/s Step  p Pause  b Break")


async def test_remapped_step_keeps_its_place_in_the_footer(h, tmp_path):
    app = app_with(h, tmp_path, '[keys]\nstep = "f10"\n')
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert footer_text(app).startswith("c Run/cont  f10 Step  p Pause  b Break")
        rows = await help_rows(pilot, app)
        assert rows["step"] == ["f10"] and rows["run"] == ["c"]
        await pilot.press("f10")  # and the key works
        await h.settle(pilot, lambda: app.state.paused is not None)
        assert app.state.paused.point == "before-phase"
        app.ctl.stop()
        await h.settle(pilot, lambda: not app.ctl.running)


async def test_swapped_keys_both_apply(h, tmp_path):
    app = app_with(h, tmp_path, '[keys]\nrun = "n"\nstep = "c"\n')
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert footer_text(app).startswith("n Run/cont  c Step  p Pause")
        assert not any("remap ignored" in line for line in app.query_one(EventLog).lines)


async def test_remap_onto_another_verbs_key_is_reported_and_ignored(h, tmp_path):
    app = app_with(h, tmp_path, '[keys]\nrun = "x"\n')
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert footer_text(app).startswith("c Run/cont  n/s Step  p Pause")
        notes = [line for line in app.query_one(EventLog).lines if "remap ignored" in line]
        assert len(notes) == 1
        assert 'keys.run = "x": x is already the key of export_bundle — remap ignored, run stays on c' in notes[0]
        rows = await help_rows(pilot, app)
        assert rows["run"] == ["c"] and rows["export_bundle"] == ["x"]
        keys = [k for ks in rows.values() for k in ks]
        assert keys.count("x") == 1 and keys.count("c") == 1


async def test_palette_shows_the_key_in_effect(h, tmp_path):
    from tftui.tui.commands import VerbCommands

    app = app_with(h, tmp_path, '[keys]\nstep = "f10"\nrun = "x"\n')
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = [title for title, *_ in VerbCommands(app.screen)._entries()]
        assert "Step  \\[f10]" in titles and "Run / cont  \\[c]" in titles


def test_messages_name_the_default_keys_without_a_remap():
    from tftui.verbs import key_said, run_keys

    assert run_keys() == "c runs, n steps"  # the first of n,s: a message names one key
    assert key_said("rerun_stale") == "u" and key_said("gate_prev") == ","


# QA: with keys.step = "f10", `p` with no run said "No run in progress (c runs, n steps)."
REMAPPED = '[keys]\nstep = "f10"\nrun = "f9"\nrerun_gate = "f7"\nwhat_if = "f6"\ngate_prev = "f4"\n'


async def test_messages_name_the_keys_as_bound(h, tmp_path):
    app = app_with(h, tmp_path, REMAPPED)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("p")  # no run in progress
        await pilot.pause()
        toasts = [n.message for n in app._notifications]
        assert "No run in progress (f9 runs, f10 steps)." in toasts
        trace = app.screen.trace_tab_text(None, 80).plain
        assert trace == "No run yet: the trace appears here as the run goes (f9 runs, f10 steps)."
        left, _ = app.screen.gate_tab_panes("review", 80)
        assert "review: not evaluated yet — f9 runs the flow, f7 re-runs this gate." in left.plain
        assert "f4 . history · f7 re-run · f6 what-if" in left.plain
        assert " c runs" not in left.plain + trace and "n steps" not in trace
