"""Fast-forward (F) cuts a real backoff wait short: a 60 s retry delay ends on the key press."""

from __future__ import annotations

from tftui.engine.clock import Clock


async def test_fast_forward_skips_backoff(h):
    clock = Clock()  # a real clock: without F this run would wait a minute
    app = h.make_app(h.FIXTURES / "slow_retry.json", clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: clock.sleeping > 0)
        attempt = app.state.phases["flaky"].attempt_log[0]
        assert attempt.status == "failed" and attempt.delay_ms == 60000
        await pilot.press("F")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        assert app.state.phases["flaky"].attempts == 2
