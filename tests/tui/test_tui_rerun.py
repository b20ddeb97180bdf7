"""`r` re-runs a gate (and what depends on it) against the current upstream outputs;
`e` edits a guard for the session and re-runs the phase and its downstream."""

from __future__ import annotations

from textual.widgets import Input

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.widgets.dag_tree import DagTree


async def test_rerun_gate_calls_only_gate_and_downstream(h):
    runner = ScriptedRunner.from_file(h.FIXTURES / "review.replies.json")
    app = h.make_app(h.FIXTURES / "review.json", runner=runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        before = len(runner.calls)
        app.query_one(DagTree).select_phase("review")
        await pilot.press("r")
        await h.run_to_end(pilot, app)
        assert [c.node_path for c in runner.calls[before:]] == ["review", "publish"]
        assert h.statuses(app)["review"] == "done"
        assert app.state.status == "completed"


async def test_edit_guard_reruns_phase_and_downstream(h):
    # applying a guard on a finished run re-evaluates the phase and its downstream at once
    runner = ScriptedRunner.from_file(h.FIXTURES / "review.replies.json")
    app = h.make_app(h.FIXTURES / "review.json", runner=runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase("notes")
        await pilot.press("e")
        await h.settle(pilot, lambda: bool(app.screen.query(Input)))
        app.screen.query_one(Input).value = "{args.never} == 'yes'"
        before = len(runner.calls)
        await pilot.press("enter")
        await h.settle(pilot, lambda: h.statuses(app)["notes"] == "skipped")
        await h.run_to_end(pilot, app)
        assert [c.node_path for c in runner.calls[before:]] == []
        got = h.statuses(app)
        assert got["notes"] == "skipped" and got["publish"] == "skipped"
        assert app.state.phases["notes"].error.startswith("Condition not met")
        assert app.state.phases["notes"].guard["overridden"] is True
