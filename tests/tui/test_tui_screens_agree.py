"""Issue 15 items 12 and 17 (what is left): screens that say the same fact the same way, checked
on what the screen shows at 80x24 (and 120x40 / --ascii where it matters)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tftui.engine.clock import Clock

SAMPLES = Path(__file__).parents[2] / "sample_flows"


def _detail_shown(h, app) -> str:
    """The detail pane's rows on screen, joined and with runs of spaces collapsed (the text wraps)."""
    detail = app.main.detail
    rows = h.pane_lines(app, detail.scroller)
    return re.sub(r"\s+", " ", " ".join(rows))


async def _show(pilot, app, pid: str, tab: str) -> None:
    app.main.dag.select_phase(pid)
    await pilot.pause()
    app.main.detail.active = tab
    await pilot.pause()


# -- item 12: after F, the Calls tab says the time really waited ----------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_calls_tab_after_fast_forward_shows_the_time_waited(h, size, ascii):
    clock = Clock()  # a real clock: the 60 s backoff is cut short by F
    app = h.make_app(h.FIXTURES / "slow_retry.json", clock=clock, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: clock.sleeping > 0)
        await pilot.press("F")
        await h.run_to_end(pilot, app)
        await _show(pilot, app, "flaky", "attempts")
        shown = _detail_shown(h, app)
        waited = re.search(r"retried after (\d+) ms: the planned 60000 ms backoff was skipped \(fast-forward\)", shown)
        assert waited is not None, shown
        assert int(waited.group(1)) < 60000
        assert "after a 60000 ms backoff" not in shown


# -- item 11/12: F before a run arms that run, says so, and the header shows it ----------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_fast_forward_pressed_before_a_run_skips_that_runs_backoffs(h, size, ascii):
    clock = Clock()  # a real clock: only F keeps the 60 s backoff from being waited
    app = h.make_app(h.FIXTURES / "slow_retry.json", clock=clock, ascii=ascii)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("F")
        await pilot.pause()
        header = h.screen_lines(app)[0]
        assert header.rstrip().endswith(" F") or header.rstrip().endswith("backoffs skipped"), header
        assert "next run" in " ".join(n.message for n in app._notifications)
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await _show(pilot, app, "flaky", "attempts")
        assert "the planned 60000 ms backoff was skipped (fast-forward)" in _detail_shown(h, app)
        header = h.screen_lines(app)[0]
        assert not header.rstrip().endswith(" F") and "backoffs skipped" not in header, header  # one run


# -- item 12: the Gate tab and the Calls tab give the same reason for a round ---------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_gate_and_calls_tabs_give_one_reason_for_an_onblock_round(h, size, ascii):
    app = h.make_app(SAMPLES / "onblock_rework.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        cause = "evaluation 1 blocked: No tests cover slugify."
        await _show(pilot, app, "quality", "gate")
        gate = _detail_shown(h, app)
        assert f"round started because {cause}" in gate and "no reason given" not in gate
        await _show(pilot, app, "quality", "attempts")
        assert f"started because {cause}" in _detail_shown(h, app)


# -- item 12: a reworked phase's Info counts the calls its Calls tab lists -----------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_a_reworked_phase_counts_every_call_in_info_as_in_calls(h, size, ascii):
    app = h.make_app(SAMPLES / "onblock_rework.json", ascii=ascii)  # implement runs again in round 1
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await _show(pilot, app, "implement", "attempts")
        listed = re.search(r"Calls: (\d+) D: diff", _detail_shown(h, app))
        assert listed is not None and listed.group(1) == "2"
        await _show(pilot, app, "implement", "overview")
        info = _detail_shown(h, app)
        assert "Calls: 2 (1 this round) attempts: 1" in info, info  # the usage beside it sums both calls too
        rows = h.pane_lines(app, app.main.detail.scroller)
        assert any("Calls: 2 (1 this round)  attempts: 1" in row for row in rows), rows  # one row at 80x24 too
        assert "Usage: 120 in / 75 out tokens" in info


# -- the tree's live sub-line goes when the attempt fails / the phase ends ------------------
class _StreamThenFail:
    """Streams two pieces of an answer, then fails (no retry): a CLI agent exiting non-zero."""

    def __init__(self, live) -> None:
        self.live = live

    async def run(self, request):
        from tftui.agents.base import AgentResult

        self.live.add(request.node_path, "half an answer ")
        self.live.add(request.node_path, "and then the agent died")
        return AgentResult(error="exit status 3: crashed", exit_code=3)


@pytest.mark.parametrize("ascii", [False, True])
async def test_live_sub_line_goes_when_the_attempt_fails_and_stays_gone(h, tmp_path, ascii):
    import json

    from tftui.present.live import LiveText

    flow = tmp_path / "fails.json"
    flow.write_text(json.dumps({"name": "fails", "phases": [
        {"id": "write", "agent": "writer", "task": "Write.", "idempotent": False}]}))
    live = LiveText()
    app = h.make_app(flow, runner=_StreamThenFail(live), ascii=ascii, live_text=live)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.phases["write"].status == "failed"
        live.add("write", " a late piece the agent's pipe still held")  # drained after the exit
        await pilot.pause(0.2)  # a live tick
        app.main._tick_live()
        await pilot.pause()
        assert app.main.dag.live_line("write") is None
        shown = h.screen_text(app)
        assert "late piece" not in shown and "and then the agent died" not in shown, shown


# -- one-line cells: a newline in user text cannot break a row -----------------------------
@pytest.mark.parametrize("ascii", [False, True])
async def test_a_newline_in_an_id_or_name_stays_on_its_row(h, tmp_path, ascii):
    import json

    flow = tmp_path / "lines.json"
    flow.write_text(json.dumps({"name": "two\nlines", "phases": [
        {"id": "first\nsecond", "agent": "writer", "task": "Write."},
        {"id": "after", "agent": "writer", "dependsOn": ["first\nsecond"], "task": "Then: {steps.first\nsecond.output}"},
    ]}))
    (tmp_path / "lines.replies.json").write_text(json.dumps({"first\nsecond": "one", "after": "two"}))
    app = h.make_app(flow, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        lines = h.screen_lines(app)
        assert lines[0].startswith(" two\\nlines ") and "COMPLETED" in lines[0], lines[0]
        row = next(i for i, line in enumerate(lines) if "first\\nsecond agent" in line)
        assert "after agent" in lines[row + 1], lines[row : row + 2]  # the next row is the next phase
        assert not any(line.strip().startswith("second") for line in lines), lines
        log = app.main.event_log
        assert all("\n" not in entry for entry in log.lines)
        assert any("first\\nsecond: done" in entry for entry in log.lines), log.lines


# -- item 17: `/` takes the kind words a person uses, and lists them -----------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_log_filter_takes_kind_words_and_lists_the_kinds(h, size, ascii):
    from tftui.tui.screens.modals import LineInputScreen

    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.press("slash")
        await h.settle(pilot, lambda: isinstance(app.screen, LineInputScreen))
        shown = " ".join(h.screen_lines(app))
        assert "kinds: run, start, guard" in shown and "verdict" in shown, shown
        h.type_fast(app, "kind:verdicts\r")  # no such kind: the dialog says so and stays
        await h.settle(pilot, lambda: "did you mean kind:verdict?" in " ".join(h.screen_lines(app)))
        assert isinstance(app.screen, LineInputScreen)
        h.type_fast(app, "\b\r")  # kind:verdict
        await h.settle(pilot, lambda: not isinstance(app.screen, LineInputScreen))
        log = app.main.event_log
        assert log.query_text == "kind:verdict"
        assert log.lines and all(": verdict " in line for line in log.lines), log.lines
        rows = " ".join(h.pane_lines(app, log))
        assert "review: verdict BLOCK" in rows and "run finished" not in rows, rows


# -- item 17: j/k move in the tree -----------------------------------------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_j_and_k_move_the_tree_selection(h, size, ascii):
    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        dag = app.main.dag
        first = dag.selected_phase()
        await pilot.press("j")
        second = dag.selected_phase()
        assert second != first
        assert f"{second}  (" in " ".join(h.pane_lines(app, app.main.detail.query_one("#detail-scroll")))
        await pilot.press("j", "k")
        assert dag.selected_phase() == second
        await pilot.press("k")
        assert dag.selected_phase() == first


# -- item 17: ctrl+p lists tftui's commands first; Theme and Quit once ---------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_palette_lists_tftui_commands_first_and_theme_once(h, size, ascii):
    from textual.command import CommandList, CommandPalette

    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("ctrl+p")
        await h.settle(pilot, lambda: isinstance(app.screen, CommandPalette)
                       and app.screen.query_one(CommandList).option_count > 20)
        options = app.screen.query_one(CommandList)
        titles = [str(options.get_option_at_index(i).prompt).split("\n")[0].strip()
                  for i in range(options.option_count)]
        assert titles[0].startswith("Run / cont"), titles[:5]
        assert sum(t == "Theme" or t.startswith("Theme  ") for t in titles) == 1, titles
        assert sum(t == "Quit" or t.startswith("Quit  ") for t in titles) == 1, titles
        assert titles.index("Keys") > titles.index("Quit  [q]")  # Textual's own come after ours
        await pilot.pause()
        rows = [line.strip() for line in h.screen_lines(app)]
        search = next(i for i, row in enumerate(rows) if "Search for commands" in row)
        assert next(row for row in rows[search + 1 :] if row.strip("|+- ")).startswith("Run / cont"), rows[:10]  # past an --ascii border


# -- item 17: `t` writes the user config once the presses stop, and at exit ----------------
async def test_theme_cycle_writes_the_config_once(h, tmp_path, monkeypatch):
    import tftui.tui.app as app_module

    writes: list[str] = []
    real = app_module.save_theme
    monkeypatch.setattr(app_module, "save_theme", lambda name, path=None: writes.append(name) or real(name, path))
    monkeypatch.setattr(app_module, "THEME_SAVE_AFTER_S", 60)  # the pause after the presses (fired below)
    config = tmp_path / "config.toml"
    app = h.make_app(h.FIXTURES / "gate_block.json", config_path=config)
    async with app.run_test(size=(80, 24)) as pilot:
        h.type_fast(app, "ttt")  # three presses in a row
        await h.settle(pilot, lambda: app.theme != "tftui-dark", limit=50)
        await pilot.pause()
        assert writes == []  # not on every press
        chosen = app.theme
        timer = app._theme_timer
        assert timer is not None  # one write is due once the presses have stopped
        app._theme_timer_done()  # ... it fires
        assert writes == [chosen] and chosen in config.read_text()
        await pilot.press("t")  # chosen right before quitting: written at exit
        last = app.theme
    assert writes == [chosen, last] and f'"{last}"' in config.read_text()


# -- item 17: `x` writes the bundle beside the runs and says where -------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_export_writes_beside_the_runs_and_shows_the_path(h, tmp_path, size, ascii):
    from tftui.tui.screens.modals import LineInputScreen

    runs = tmp_path / ".tftui" / "runs"
    app = h.make_app(h.FIXTURES / "gate_block.json", runs_root=runs, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        run_dir = app.run_dir
        await pilot.press("x")
        await h.settle(pilot, lambda: isinstance(app.screen, LineInputScreen))
        expected = runs / f"{run_dir.name}.tftui.zip"
        assert "enter writes · esc cancels".replace("·", "|" if ascii else "·") in " ".join(h.screen_lines(app))
        assert app.screen.query_one("#line-input").value == str(expected)
        await pilot.press("enter")
        await h.settle(pilot, lambda: expected.is_file())
        await pilot.pause()
        assert any(f"repro bundle written: {expected}" in line for line in app.main.event_log.lines)
        assert not (Path.cwd() / f"{run_dir.name}.tftui.zip").exists()


# -- keys typed in a burst right after a field is emptied reach every dialog in order -------
async def test_guard_editor_and_data_breakpoint_take_a_burst_of_keys_in_order(h):
    from textual.widgets import Input

    from tftui.tui.screens.databreak import DataBreakpointScreen
    from tftui.tui.screens.guard_editor import GuardEditorScreen

    app = h.make_app(h.FIXTURES / "guarded.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.main.dag.select_phase("quick-summary")
        await pilot.pause()
        await pilot.press("e")
        await h.settle(pilot, lambda: isinstance(app.screen, GuardEditorScreen))
        box = app.screen.query_one(Input)
        assert box.value.endswith(" != high")
        await pilot.press("end")  # the value is selected on opening: to its end
        h.type_fast(app, "\b\b\b\blow")  # the value emptied back to `!= `, the new one typed at once
        await h.settle(pilot, lambda: box.value.endswith("low"))
        assert box.value == "{steps.triage.json.severity} != low"
        await pilot.press("escape")
        await h.settle(pilot, lambda: not isinstance(app.screen, GuardEditorScreen))
        await pilot.press("B")
        await h.settle(pilot, lambda: isinstance(app.screen, DataBreakpointScreen))
        box = app.screen.query_one(Input)
        h.type_fast(app, "{phase.atempt}" + "\b" * 7 + "attempt} >= 2")
        await h.settle(pilot, lambda: box.value.endswith("2"))
        assert box.value == "{phase.attempt} >= 2"
        assert "syntax OK" in " ".join(h.screen_lines(app))


async def test_answer_and_approval_boxes_take_a_burst_of_keys_in_order(h):
    from textual.widgets import TextArea

    from tftui.tui.screens.modals import AnswerScreen, ApprovalScreen

    app = h.make_human_app(h.FIXTURES / "human.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        area = app.screen.query_one(TextArea)
        h.type_fast(app, "red\b\b\bteal")
        await h.settle(pilot, lambda: area.text.endswith("l"))
        assert area.text == "teal"
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        area = app.screen.query_one(TextArea)
        h.type_fast(app, "no\b\bfine by me")
        await h.settle(pilot, lambda: area.text.endswith("me"))
        assert area.text == "fine by me"


# -- item 12: the run's clock never lags behind a running phase's --------------------------
async def test_the_header_clock_moves_with_the_running_rows(h):
    import re as _re

    from tftui.engine.clock import InstantClock
    from tftui.tui.screens.modals import AnswerScreen

    clock = InstantClock()
    app = h.make_human_app(h.FIXTURES / "human.json", clock=clock)
    app.show_times = True  # make_app turns times off for stable labels; this test is about them
    async with app.run_test(size=(80, 24)) as pilot:
        app.main.dag.show_times = True
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))  # idea runs: a person answers
        clock.now += 3.0
        app.main._tick_spinner()  # the spinner's tick (every 0.25 s), before the header's 1 s tick
        await pilot.pause()
        lines = h.screen_lines(app)
        row = next(line for line in lines if " idea agent " in line)
        assert "3.0s" in row, row
        header = lines[0]
        assert _re.search(r"· 3\.0s ·", header), header
