"""Why a failed attempt is its node's last: the attempt loop decides it (engine/retry.py,
docs/retry.md §3) and says it in `AttemptFailed.stop`; the Calls tab only words that reason."""

from __future__ import annotations

import itertools

from tftui.agents.scripted import ScriptedRunner
from tftui.engine import events as ev
from tftui.engine import retry
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.engine.timeline import TimelineBuilder
from tftui.flow.model import Flow
from tftui.tui import timeline_text


def test_the_decision_retries_exactly_when_the_policy_does_and_names_why_not():
    for attempt, limit, transient, idempotent in itertools.product(range(6), (None, 0, 2, 4), (True, False),
                                                                  (True, False)):
        policy = None if limit is None else {"max": limit}
        again, stop = retry.retry_decision(attempt=attempt, retry=policy, transient=transient, idempotent=idempotent)
        assert again == retry.should_retry(attempt=attempt, retry=policy, transient=transient, idempotent=idempotent)
        assert (stop == "") == again
    decide = retry.retry_decision
    assert decide(attempt=0, retry=None, transient=True, idempotent=False) == (False, retry.STOP_NOT_IDEMPOTENT)
    assert decide(attempt=3, retry=None, transient=True, idempotent=True) == (False, retry.STOP_RETRIES_USED)
    assert decide(attempt=0, retry=None, transient=False, idempotent=True) == (False, retry.STOP_NOT_TRANSIENT)
    assert decide(attempt=0, retry=None, transient=False, idempotent=True, contract=True) == (False, retry.STOP_CONTRACT)
    assert decide(attempt=0, retry={"max": 5}, transient=True, idempotent=True, over_budget=True) == (
        False, retry.STOP_BUDGET)


async def test_the_engine_says_why_and_the_calls_tab_words_it():
    flow = Flow.model_validate({"name": "t", "phases": [
        {"id": "deploy", "task": "ship", "idempotent": False},
        {"id": "fetch", "task": "get", "retry": {"max": 1, "backoffMs": 0}},
    ]})
    runner = ScriptedRunner({"deploy": {"error": "503 service unavailable"}, "fetch": {"error": "400 bad request"}})
    result = await run_flow(flow, runner=runner, clock=InstantClock(), keep_events=True)
    stops = {(e.phase_id, e.attempt): e.stop for e in result.events if isinstance(e, ev.AttemptFailed)}
    assert stops == {("deploy", 0): retry.STOP_NOT_IDEMPOTENT, ("fetch", 0): "", ("fetch", 1): retry.STOP_NOT_TRANSIENT}
    timelines = TimelineBuilder().feed_all(result.events)
    assert "→ not retried: idempotent: false" in timeline_text.calls(timelines.get("deploy")).plain
    fetch = timeline_text.calls(timelines.get("fetch")).plain
    assert fetch.count("→ not retried") == 1 and "not transient, and retry.max (if any) allows no more" in fetch


def test_the_calls_tab_words_the_engines_reason_not_its_own_guess():
    # attempt 4 of a transient error: a guess from the attempt number alone would say the
    # automatic retries are used up; the engine said idempotent: false, and that is what shows
    events: list[ev.Event] = [ev.PhaseStarted(phase_id="p")]
    for k in range(5):
        events += [ev.AttemptStarted(phase_id="p", node_path="p", attempt=k),
                   ev.AgentReturned(phase_id="p", node_path="p", attempt=k, error="503"),
                   ev.AttemptFailed(phase_id="p", node_path="p", attempt=k, error="503", transient=True, why="error",
                                    will_retry=k < 4, stop="" if k < 4 else retry.STOP_NOT_IDEMPOTENT)]
    text = timeline_text.calls(TimelineBuilder().feed_all(events).get("p")).plain
    assert "→ not retried: idempotent: false" in text and "used up" not in text
