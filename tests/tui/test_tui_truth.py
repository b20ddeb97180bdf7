"""Issue 15: screens that must not say something untrue (items 4, 5, 11, 12, 15, 16, 17),
checked on what the screen shows at 80x24 and 120x40, in Unicode and --ascii."""

from __future__ import annotations

import pytest

from tftui.agents.base import AgentRequest, AgentResult

SIZES = [(80, 24), (120, 40)]
LOOKS = [False, True]


class UnmeteredRunner:
    """A CLI agent's kind of runner: answers, reports no usage and no cost."""

    reports_usage = False
    reports_cost = False

    async def run(self, request: AgentRequest) -> AgentResult:
        return AgentResult(output=f"answer for {request.node_path}")


# -- item 16: unknown cost / usage ----------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_unknown_usage_reads_unknown_in_header_tree_and_info(h, size, ascii):
    app = h.make_app(h.FIXTURES / "review.json", runner=UnmeteredRunner(), ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        lines = h.screen_lines(app)
        header = lines[0]
        assert "? tok" in header, header
        assert "$0.00" not in h.screen_text(app) and " 0 tok" not in header
        row = next(line for line in lines if " fetch " in line)
        assert "?t" in row, row
        info = app.main.detail.text("overview")
        assert "Usage: unknown" in info


# -- item 4: one guard state: ctrl+s applies and writes ----------------------------------------
async def _edit_guard(pilot, app, expr: str, key: str) -> None:
    from textual.widgets import Input

    from tftui.tui.screens.guard_editor import GuardEditorScreen

    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, GuardEditorScreen)
    app.screen.query_one(Input).value = expr
    await pilot.pause()
    await pilot.press(key)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_guard_saved_with_ctrl_s_is_the_guard_the_run_uses(h, workdir, size, ascii):
    flow = workdir / "guarded.json"
    app = h.make_app(flow, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.main.dag.select_phase("quick-summary")
        await pilot.pause()
        await _edit_guard(pilot, app, "{steps.triage.json.severity} == high", "enter")  # apply
        await h.run_to_end(pilot, app)
        assert app.state.phases["quick-summary"].status == "done"  # the applied guard ran it
        await _edit_guard(pilot, app, "{steps.triage.json.severity} == low", "ctrl+s")  # save
        await h.run_to_end(pilot, app)
        await pilot.pause()
        assert "{steps.triage.json.severity} == low" in flow.read_text()
        # the run, Info and u use the saved guard: no session override is left behind
        assert "quick-summary" not in app.ctl.guard_overrides
        assert app.state.phases["quick-summary"].status == "skipped"
        info = app.main.detail.text("overview")
        assert "== low" in info and "== high" not in info.split("Guard:")[1].splitlines()[0]
        assert "edited in this session" not in info
        shown = h.screen_text(app)
        assert "quick-summary" in shown
        await pilot.press("u")  # nothing stale: the saved file is what ran
        await pilot.pause()
        assert not app.state.stale


# -- item 5: a stray key does not wipe a finished run's view ----------------------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
@pytest.mark.parametrize("key", ["n", "s", "c", "R"])
async def test_run_keys_after_the_end_ask_before_replacing_the_view(h, size, ascii, key):
    from tftui.tui.screens.confirm import ConfirmNewRunScreen

    app = h.make_app(h.FIXTURES / "review.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        run_id = app.state.run_id
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmNewRunScreen)
        shown = h.screen_text(app)
        assert "The run has ended (COMPLETED, 5/5)" in shown, shown
        assert "y / enter: start it" in shown
        await pilot.press(key if key in "ns" else "n")  # the same stray key again says no
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmNewRunScreen)
        assert app.state.run_id == run_id and app.state.status == "completed" and not app.ctl.running
        assert "publish" in h.screen_text(app)
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("y")
        await h.settle(pilot, lambda: app.state.run_id != run_id)
        if key in "ns":  # a stepped run stops before its first phase
            await h.settle(pilot, lambda: app.state.paused is not None)
        else:
            await h.run_to_end(pilot, app)
            assert app.state.status == "completed"


# -- item 11: what will stop the run is always on screen; B checks names ----------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_header_always_says_what_will_stop_the_run(h, size, ascii):
    from textual.widgets import Input

    app = h.make_app(h.FIXTURES / "review.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert "no b" in h.screen_lines(app)[0]  # `no breakpoints` / `no bp`
        await pilot.press("f")
        app.main.dag.select_phase("review")
        await pilot.press("b")
        await pilot.press("B")
        await pilot.pause()
        app.screen.query_one(Input).value = "{phase.attempt} >= 2"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("c")
        await h.settle(pilot, lambda: app.state.paused is not None)
        await pilot.press("F")
        await pilot.pause()
        header = h.screen_lines(app)[0]
        assert "RUNNING" in header or "PAUSED" in header, header
        if size[0] >= 120:
            assert "on failure" in header
        stop = header[header.index("stop"):]
        for mark in ("b1", "f", "B1", "F") if "stop b1" in stop else ("breakpoint", "on failure", "data", "backoff"):
            assert mark in stop, (mark, header)
        assert len(header.rstrip()) <= size[0]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_data_breakpoint_with_a_misspelt_field_is_refused_with_a_hint(h, size, ascii):
    from textual.widgets import Input

    from tftui.tui.screens.databreak import DataBreakpointScreen

    app = h.make_app(h.FIXTURES / "review.json", ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("B")
        await pilot.pause()
        app.screen.query_one(Input).value = "{phase.atempt} >= 2"
        await pilot.pause()
        shown = h.screen_text(app)
        assert "syntax OK" not in shown
        assert "has no field 'atempt'" in shown and "did you mean" in shown and "{phase.attempt}?" in shown, shown
        await pilot.press("enter")  # refused: the dialog stays
        await pilot.pause()
        assert isinstance(app.screen, DataBreakpointScreen) and app.ctl.data_breakpoints == []
        assert app.ctl.add_data_breakpoint("{run.cost} > 1") is not None  # the same check behind the verb
