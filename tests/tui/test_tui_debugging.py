"""Stepping, breakpoints and break-on-failure through the TUI's keys."""

from __future__ import annotations

from tftui.tui.widgets.dag_tree import DagTree


async def next_stop(pilot, app, h, key: str, last_seq: int):
    """Press `key`, then wait for a new pause (returns the Paused event) or the end (None)."""
    await pilot.press(key)

    def moved() -> bool:
        p = app.state.paused
        return (p is not None and p.seq > last_seq) or app.last_result is not None

    await h.settle(pilot, moved)
    return app.state.paused


def body(app, tab: str) -> str:
    from tftui.tui.widgets.phase_detail import PhaseDetail

    return app.query_one(PhaseDetail).text(tab)


async def test_step_through_retry_attempt_by_attempt(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        stop = await next_stop(pilot, app, h, "n", 0)
        assert (stop.point, stop.phase_id) == ("before-phase", "fetch")
        assert h.tree_labels(app)["fetch"].startswith("▶○ fetch")
        assert "PENDING" in body(app, "overview")

        stop = await next_stop(pilot, app, h, "n", stop.seq)
        assert (stop.point, stop.node_path, stop.attempt) == ("before-attempt", "fetch", 0)
        assert h.tree_labels(app)["fetch"].startswith("▶◐ fetch")
        assert "RUNNING" in body(app, "overview")

        stop = await next_stop(pilot, app, h, "n", stop.seq)
        assert (stop.point, stop.node_path, stop.attempt) == ("before-attempt", "fetch", 1)
        calls = body(app, "attempts")
        assert "── fetch attempt 1 ✗" in calls and "error: 503 service unavailable" in calls
        assert 'transient: matched "503"' in calls
        assert "retried after a 1000 ms backoff" in calls
        assert "attempt 2" not in calls  # the second attempt has not started yet

        stop = await next_stop(pilot, app, h, "n", stop.seq)
        # The retry succeeded: fetch is done after two attempts.
        assert h.tree_labels(app)["fetch"].startswith(" ✓ fetch agent a2")
        assert stop is not None and stop.phase_id != "fetch"  # the cursor follows the pause...
        app.query_one(DagTree).select_phase("fetch")  # ...so go back to fetch to read its calls
        await pilot.pause()
        assert "── fetch attempt 2 ✓" in body(app, "attempts")


async def test_step_through_onblock_rounds(h):
    app = h.make_app(h.FIXTURES / "review.json")
    tree_stops = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one(DagTree).select_phase("review")
        await pilot.press("b")  # breakpoint on the gate, then run to it
        stop = await next_stop(pilot, app, h, "c", 0)
        assert (stop.point, stop.phase_id, stop.why) == ("before-phase", "review", "breakpoint")
        while stop is not None and stop.phase_id in ("review", "draft"):
            tree_stops.append((stop.point, stop.phase_id, stop.round, h.tree_labels(app)[stop.phase_id]))
            if (stop.point, stop.round) == ("after-verdict", 0):
                app.query_one(DagTree).select_phase("review")
                await pilot.pause()
                assert "BLOCK (source: task) — needs sources" in body(app, "gate")
                assert "Gate verdict: block — needs sources" in body(app, "overview")
            stop = await next_stop(pilot, app, h, "n", stop.seq)
        points = [(p, pid, r) for p, pid, r, _ in tree_stops]
        assert ("before-round", "review", 1) in points
        assert ("before-phase", "draft", 1) in points  # the round re-runs the gate's upstream
        assert ("after-verdict", "review", 1) in points
        labels = {(p, pid, r): text for p, pid, r, text in tree_stops}
        assert " r1" not in labels[("after-verdict", "review", 0)]
        assert "review gate r1" in labels[("after-verdict", "review", 1)]
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        assert app.state.phases["draft"].output == "draft v2"


async def test_breakpoint_stops_the_run(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        tree = app.query_one(DagTree)
        tree.select_phase("publish")
        await pilot.press("b")
        assert "publish" in app.ctl.breakpoints
        assert h.tree_labels(app)["publish"].startswith("●")
        stop = await next_stop(pilot, app, h, "c", 0)
        assert (stop.phase_id, stop.why) == ("publish", "breakpoint")
        got = h.statuses(app)
        assert got["review"] == "done" and got["notes"] == "done"
        assert got["publish"] == "pending"
        assert "paused at publish: start (breakpoint)" in str(app.query_one("#run-header").render())
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert h.statuses(app)["publish"] == "done"


async def test_break_on_failure_stops_after_failed_attempt(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f")
        assert app.ctl.break_on_failure
        stop = await next_stop(pilot, app, h, "c", 0)
        assert (stop.phase_id, stop.why, stop.attempt) == ("fetch", "failure", 1)
        stop = await next_stop(pilot, app, h, "c", stop.seq)
        assert (stop.phase_id, stop.why) == ("review", "block")  # the gate's first verdict blocks
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


async def test_restart_while_paused_runs_again_from_scratch(h):
    from tftui.agents.scripted import ScriptedRunner

    runner = ScriptedRunner.from_file(h.FIXTURES / "review.replies.json")
    app = h.make_app(h.FIXTURES / "review.json", runner=runner)
    async with app.run_test(size=(80, 24)) as pilot:
        stop = await next_stop(pilot, app, h, "n", 0)
        stop = await next_stop(pilot, app, h, "n", stop.seq)
        assert stop.point == "before-attempt"
        await pilot.press("R")  # cancels the paused run, then starts a fresh one (not stepping)
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        assert h.statuses(app) == {p: "done" for p in ("fetch", "draft", "review", "notes", "publish")}
        assert app.state.phases["fetch"].runs == 1  # a fresh state, not the cancelled run's
