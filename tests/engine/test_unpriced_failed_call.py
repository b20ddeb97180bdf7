"""A failed call that reported tokens but no cost makes its phase's and the run's cost a lower
bound (QA, sample_flows/transient_retry.json): the tokens were spent, and every attempt's usage
counts (docs/retry.md §3: "the call's usage always counts"), at a cost nobody reported. Unknown is
never a silent 0 (README "Cost and usage"): such a total reads `≥ $X (some calls unpriced)`."""

from __future__ import annotations

from tftui import present
from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.engine.state import METERED, Metering, add_usage, empty_usage, fold
from tftui.flow.model import Flow


def test_a_failed_calls_tokens_without_a_cost_are_unpriced() -> None:
    total = empty_usage()
    add_usage(total, {"input": 40, "output": 0}, answered=False)
    assert total["unpriced"] == 1 and total["input"] == 40


def test_a_failed_call_without_tokens_or_usage_adds_no_unknown() -> None:
    for metering in (METERED, Metering(usage=True, cost=False), Metering(usage=False, cost=False)):
        total = empty_usage()
        add_usage(total, None, answered=False, metering=metering)  # no answer: nothing known spent
        add_usage(total, {"input": 0, "output": 0}, answered=False, metering=metering)
        add_usage(total, {"input": 40, "output": 0, "costUSD": 0.0001}, answered=False, metering=metering)
        assert total["unpriced"] == 0 and total["untracked"] == 0, metering
        assert total["cost"] == 0.0001


async def test_transient_retry_total_is_a_lower_bound_in_the_engine_and_the_fold() -> None:
    # sample_flows/transient_retry.replies.json's shape
    f = Flow.model_validate({"name": "t", "phases": [
        {"id": "fetch", "task": "f"}, {"id": "summarize", "task": "s", "dependsOn": ["fetch"]}]})
    replies = {
        "fetch": [{"error": "429 Too Many Requests", "exitCode": 1, "usage": {"input": 40, "output": 0}},
                  {"error": "503 service unavailable", "exitCode": 1},
                  {"output": "F", "usage": {"input": 40, "output": 22, "costUSD": 0.0004}}],
        "summarize": [{"output": "S", "usage": {"input": 60, "output": 25, "costUSD": 0.0005}}],
    }
    result = await run_flow(f, runner=ScriptedRunner(replies), clock=InstantClock(), keep_events=True)
    assert result.status == "completed" and result.phases["fetch"].attempts == 3
    fetch = result.phases["fetch"].usage
    assert present.unpriced_calls(fetch) == 1 and not present.cost_known(fetch)
    assert present.usage_text(fetch) == f"102t ≥{present.format_cost(0.0004)}"  # the tree's row
    assert present.spend_cost_text(result.usage) == f"≥ {present.format_cost(0.0009)} (some calls unpriced)"
    assert present.cost_json(result.usage) is None
    # the journal's fold (a reopened run, `tftui runs`) reads the same
    state = fold(result.events)
    assert state.phases["fetch"].usage == fetch
    assert present.unpriced_calls(state.usage) == 1 and present.usage_tokens(state.usage) == 187
