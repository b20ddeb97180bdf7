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
        assert "RUNNING" in header and "paused at fetch: attempt 2 (failure)" in header, header
        # the stop part, shortened at both sizes: breakpoint 1, on failure, data breakpoint 1, the F key
        assert header[header.index("stop"):].split() == ["stop", "b1", "f", "B1", "F"], header
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


# -- item 15: answers stream into the Output tab and the tree's live sub-line ---------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_streamed_answer_shows_while_it_arrives(h, tmp_path, fake_provider, size, ascii):
    import json

    from tftui.agents.openai import OpenAIRunner
    from tftui.config import ProviderConfig
    from tftui.present.live import LiveText

    flow = tmp_path / "stream.json"
    flow.write_text(json.dumps({"name": "stream", "phases": [{"id": "write", "agent": "writer", "task": "Write."}]}))
    # The loopback server streams the pieces, then holds the answer's end until the test has read
    # the screen with the answer half in (tests/fake_provider.py, `hold_at`).
    events = fake_provider.stream_events(["The quick ", "brown fox ", "jumps over ", "the lazy dög"], usage=(5, 7))
    fake_provider.add("sse", events=events, hold_at=len(events) - 2)  # before finish_reason and usage
    live = LiveText()
    runner = OpenAIRunner(ProviderConfig(name="loop", base_url=fake_provider.url, model="m", stream=True),
                          env={}, on_chunk=live.add)
    app = h.make_app(flow, runner=runner, ascii=ascii, live_text=live)
    sentence = "The quick brown fox jumps over the"
    async with app.run_test(size=size) as pilot:
        app.main.detail.active = "output"
        await pilot.press("c")
        await h.settle(pilot, lambda: fake_provider.holding.is_set()
                       and "lazy" in (app.main.dag.live_line("write") or ""), limit=2000)
        # the next live tick draws it (at most 10 a second): wait for the screen, not the clock. The
        # tree's sub-line may show the sentence a tick before the Output tab does: wait for the tab's
        # own "(streaming: …)" note too, not just the sentence somewhere on screen.
        await h.settle(pilot, lambda: sentence in h.screen_text(app) and "streaming" in h.screen_text(app))
        shown = h.screen_text(app)
        assert "(no output yet)" not in shown
        assert "streaming" in shown and sentence in shown, shown
        assert ("lazy dög" if not ascii else "lazy dog") in shown
        sub_line = next(line for line in h.screen_lines(app) if "over the lazy d" in line and "write" not in line)
        assert ("┆" in sub_line) != ascii and (":" in sub_line or not ascii)
        assert app.state.phases["write"].output is None  # still in flight: the text is the stream's
        fake_provider.release.set()
        await h.run_to_end(pilot, app)
        # the sub-line goes once the answer is in (on the next live tick)
        await h.settle(pilot, lambda: app.main.dag.live_line("write") is None)
        await h.settle(pilot, lambda: "streaming" not in h.screen_text(app))
        final = h.screen_text(app)
        assert "streaming" not in final and "The quick brown fox" in final


# -- item 12: clocks that agree: pauses are nobody's time; --no-animations still ticks ----------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_paused_time_counts_in_no_clock_and_clocks_tick_without_animations(h, size, ascii):
    from tftui.engine.clock import InstantClock

    clock = InstantClock()
    app = h.make_app(h.FIXTURES / "review.json", clock=clock, ascii=ascii)
    app.show_times = True  # make_app turns times off for stable labels; this test is about them
    async with app.run_test(size=size) as pilot:
        app.main.dag.show_times = True
        await pilot.press("n")  # a stepped run: paused before fetch
        await h.settle(pilot, lambda: app.state.paused is not None)
        await pilot.press("n")  # fetch has started, paused before its first attempt
        await h.settle(pilot, lambda: app.state.paused is not None and app.state.paused.point == "before-attempt")
        clock.now += 3600  # an hour spent reading while paused
        app.main._tick_clock()  # the 1 s clock tick (animations are off: no spinner tick)
        await pilot.pause()
        row = next(line for line in h.screen_lines(app) if " fetch " in line)
        header = h.screen_lines(app)[0]
        assert "1h" not in row and "60m" not in row, row  # the pause is not the phase's time
        assert "1h" not in header, header
        clock.now += 2.5  # running time after the pause... is counted once it resumes
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        header = h.screen_lines(app)[0]
        assert "1h" not in header, header
