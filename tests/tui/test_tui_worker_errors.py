"""Worker errors have one route (MainScreen.on_worker_state_changed): a run worker that crashes
ends the run with a note and a toast and leaves the UI usable; a watcher that dies says so."""

from __future__ import annotations

import pytest

from tftui.tui.main_screen import RUN_WORKERS
from tftui.tui.reload import WATCH_WORKERS


async def test_a_crashed_run_worker_ends_the_run_and_the_ui_goes_on(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.main

        async def engine_bug() -> None:
            raise KeyError("no such phase")

        app.ctl.running = True
        main.run_worker(engine_bug(), group=RUN_WORKERS, exit_on_error=False)
        await h.settle(pilot, lambda: not app.ctl.running)
        assert any("run crashed: KeyError: 'no such phase'" in e.text for e in main.event_log.entries)
        assert any("KeyError" in n.message for n in app._notifications)
        await pilot.press("c")  # still usable: a real run goes
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


async def test_a_dead_watcher_is_reported(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.main

        async def watcher() -> None:
            raise OSError("inotify limit reached")

        main.run_worker(watcher(), group=WATCH_WORKERS, exit_on_error=False)
        await h.settle(pilot, lambda: any("file watching stopped" in e.text for e in main.event_log.entries))
        assert any("inotify limit reached" in e.text for e in main.event_log.entries)


async def test_an_error_folding_events_is_shown_as_a_handler_error_is(h, monkeypatch):
    """The fold steps run as loop callbacks, not messages: a bug in one still reaches the app,
    which shows it and exits, instead of vanishing into the loop's log with the UI frozen."""
    from tftui.engine import events as ev
    from tftui.tui.messages import EngineEvents

    app = h.make_app(h.FIXTURES / "review.json")
    with pytest.raises(KeyError, match="folding bug"):
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main

            def broken(events: list[ev.Event]) -> None:
                raise KeyError("folding bug")

            monkeypatch.setattr(main, "_fold", broken)
            main.post_message(EngineEvents([ev.RunStarted(flow_name="review", phase_ids=[])]))
            await pilot.pause(0.2)
    assert app.return_code == 1
