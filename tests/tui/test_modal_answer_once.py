"""A dialog answers once (tui/screens/single_answer.py): keys typed faster than a dialog goes
(Enter pressed twice in an input, a burst of keys on the "start a new run?" question) used to
dismiss it a second time, which popped the debugger's own screen: the app crashed with
ScreenStackError (found in tmux: `c` after a run, then `[` `[` `[`; `B`, then Enter Enter Enter)."""

from __future__ import annotations

from textual import events

from tftui.tui.main_screen import MainScreen
from tftui.tui.screens.confirm import ConfirmNewRunScreen
from tftui.tui.screens.databreak import DataBreakpointScreen


def burst(app, key: str, character: str | None, times: int = 3) -> None:
    """`times` presses of `key` queued at once, as a terminal delivers keys typed ahead."""
    for _ in range(times):
        app.post_message(events.Key(key, character))


async def test_a_burst_of_keys_on_the_new_run_question_keeps_the_view_and_the_app(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        run_id = app.state.run_id
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmNewRunScreen)
        burst(app, "left_square_bracket", "[")
        await pilot.pause(0.2)
        assert isinstance(app.screen, MainScreen)
        assert app.return_code is None  # still running, no crash
        assert app.state.run_id == run_id and not app.ctl.running  # the view kept, no run started
        assert "publish" in h.screen_text(app)


async def test_enter_pressed_again_in_an_input_dialog_answers_it_once(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("B")
        await pilot.pause()
        assert isinstance(app.screen, DataBreakpointScreen)
        await pilot.press(*"true")
        burst(app, "enter", "\r")
        await pilot.pause(0.2)
        assert isinstance(app.screen, MainScreen)
        assert app.return_code is None
        assert app.ctl.data_breakpoints == ["true"]  # added once
