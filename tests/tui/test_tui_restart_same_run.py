"""`R` (restart) is a fresh run: with a replies file it gets the same answers as the first run
(the scripted replies start over), so the gate blocks, reworks and passes exactly as before."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).parents[2] / "sample_flows"


def _summary(app) -> dict[str, tuple[str, int]]:
    return {pid: (str(st.status), st.attempts) for pid, st in app.state.phases.items()}


async def test_restart_replays_the_same_answers(h) -> None:
    app = h.make_app(SAMPLES / "onblock_rework.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        first = (_summary(app), dict(app.state.usage), app.state.status)
        rounds = len(app.main.gate_tools.records("quality"))
        assert rounds >= 2  # blocked once, reworked, passed: the sample's point

        await pilot.press("R")
        await pilot.press("y")  # confirm replacing the finished run's view (issue 15 item 5)
        await h.run_to_end(pilot, app)
        assert (_summary(app), dict(app.state.usage), app.state.status) == first
        assert len(app.main.gate_tools.records("quality")) == rounds

        await pilot.press("n")  # step after a finished run: again a fresh run from the first answers
        await pilot.press("y")  # confirm replacing the finished run's view (issue 15 item 5)
        await h.settle(pilot, lambda: app.state.paused is not None)
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert (_summary(app), dict(app.state.usage), app.state.status) == first
