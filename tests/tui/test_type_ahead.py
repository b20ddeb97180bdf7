"""Keys typed in one burst go where the keys before them led (tui/key_order.py): a key typed right
after one that opens a dialog goes to that dialog, and a dialog's own key (ctrl+s) acts on what
was typed before it. Found in tmux (`tmux send-keys` delivers a burst): `c y` after a run left
the "start a new run?" question open with the `y` lost, and `["a","b","c"]` then ctrl+s in the
answer dialog submitted an empty answer. Pilot's press waits for the app between keys, which
hides this: the bursts here are queued at once (as the conftest's type_fast)."""

from __future__ import annotations

import pytest
from textual import events

from tftui.tui.main_screen import MainScreen
from tftui.tui.screens.databreak import DataBreakpointScreen
from tftui.tui.screens.modals import AnswerScreen


def burst(app, *keys: tuple[str, str | None]) -> None:
    """Keys (name, character) queued at once, as a terminal delivers keys typed ahead."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


async def ended_run(h, pilot, app) -> int:
    await pilot.press("c")
    await h.run_to_end(pilot, app)
    return app.state.run_id


@pytest.mark.parametrize("asks", ["c", "R"], ids=["new-run", "restart"])
async def test_y_typed_with_the_key_that_asks_starts_the_new_run(h, asks):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        run_id = await ended_run(h, pilot, app)
        burst(app, (asks, asks), ("y", "y"))
        await h.settle(pilot, lambda: app.state.run_id != run_id and not app.ctl.running)
        assert isinstance(app.screen, MainScreen)  # the question took the y, and went


async def test_a_key_typed_after_the_answer_goes_to_the_screen_below(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        run_id = await ended_run(h, pilot, app)
        tab = app.screen.detail.active
        burst(app, ("c", "c"), ("n", "n"), ("right_square_bracket", "]"))
        await h.settle(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.detail.active != tab)
        assert app.state.run_id == run_id  # n kept the view; the question answered once


async def test_text_typed_with_the_key_that_opens_an_input_dialog_goes_into_it(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.post_message(events.Key("B", "B"))
        h.type_fast(app, "true")
        await h.settle(pilot, lambda: isinstance(app.screen, DataBreakpointScreen))
        field = app.screen.query_one("#databreak-input")
        await h.settle(pilot, lambda: field.value == "true")


async def test_ctrl_s_typed_with_the_answer_submits_the_answer(h):
    app = h.make_human_app(h.FIXTURES / "human.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        h.type_fast(app, '["a","b","c"]')
        app.post_message(events.Key("ctrl+s", None))
        await h.settle(pilot, lambda: app.state.phases["idea"].output is not None)
        assert app.state.phases["idea"].output == '["a","b","c"]'
