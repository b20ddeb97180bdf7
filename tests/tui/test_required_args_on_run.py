"""The debugger opened without --arg checks a flow's required args when a run starts, as `tftui run`
does (flow/checks.invocation_refusals): the run does not start, and the screen names the missing
arg and how to give it (issue 15)."""

from __future__ import annotations

import json

import pytest

from tftui.agents.scripted import ScriptedRunner

LOOKS = [((80, 24), False), ((120, 40), True)]


@pytest.mark.parametrize(("size", "ascii"), LOOKS)
async def test_a_run_missing_a_required_arg_is_not_started_and_says_how_to_give_it(h, tmp_path, size, ascii):
    flow = tmp_path / "needs.json"
    flow.write_text(json.dumps({
        "name": "needs-topic",
        "args": {"topic": {"type": "string", "required": True}, "tone": {"type": "string", "default": "dry"}},
        "phases": [{"id": "write", "task": "Write about {args.topic}, {args.tone}."}],
    }))
    runner = ScriptedRunner({"write": "done"})
    app = h.make_app(flow, runner=runner, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: "not run" in h.screen_text(app))
        shown = " ".join(h.screen_text(app).split())
        assert "not run: Missing required argument 'topic' (a string)" in shown, shown
        assert "--arg topic=text" in shown
        assert "tone" not in shown.split("not run:")[1]  # a default needs nothing
        assert app.state.status == "pending" and app.last_result is None and not app.ctl.running
        assert app.state.phases.get("write") is None or app.state.phases["write"].output is None

        # given the arg (what `tftui FLOW --arg topic=owls` hands the run), the same flow runs
        app.ctl.args = {"topic": "owls"}
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.phases["write"].output == "done"
