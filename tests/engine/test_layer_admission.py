"""A layer's phases are admitted together: a gate that blocks mid-layer never skips a sibling
that taskflow would already have started (SPEC §3.1, §3.4), even with an instant runner."""

from __future__ import annotations

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.run import run_flow
from tftui.flow.model import Flow


async def test_sibling_of_blocking_gate_in_same_layer_still_runs():
    flow = Flow.model_validate(
        {
            "name": "layer",
            "phases": [
                {"id": "draft", "task": "write"},
                {"id": "review", "type": "gate", "task": "judge {steps.draft.output}", "dependsOn": ["draft"]},
                {"id": "notes", "task": "notes on {steps.draft.output}", "dependsOn": ["draft"]},
                {"id": "publish", "task": "ship", "dependsOn": ["review", "notes"]},
            ],
        }
    )
    runner = ScriptedRunner({"draft": "d", "review": "VERDICT: BLOCK", "notes": "n", "publish": "p"})
    result = await run_flow(flow, runner=runner)
    assert result.status == "blocked"
    assert result.phases["notes"].status == "done"  # started with the gate, so it finishes normally
    assert result.phases["publish"].status == "skipped"


async def test_with_concurrency_one_the_block_skips_later_siblings():
    flow = Flow.model_validate(
        {
            "name": "layer",
            "concurrency": 1,
            "phases": [
                {"id": "draft", "task": "write"},
                {"id": "review", "type": "gate", "task": "judge", "dependsOn": ["draft"]},
                {"id": "notes", "task": "notes", "dependsOn": ["draft"]},
            ],
        }
    )
    runner = ScriptedRunner({"draft": "d", "review": "VERDICT: BLOCK", "notes": "n"})
    result = await run_flow(flow, runner=runner)
    assert result.phases["notes"].status == "skipped"
    assert result.phases["notes"].error.startswith("Gate blocked")
