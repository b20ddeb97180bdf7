"""Properties of the attempt loop (SPEC §7.3) over random retry policies and failure sequences."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.retry import backoff_ms, max_attempts
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

HARD = {"error": "400 bad request", "exitCode": 1}
TRANSIENT = {"error": "503 service unavailable", "exitCode": 1}

replies = st.lists(st.sampled_from(["hard", "transient", "ok"]), min_size=1, max_size=25)


def run(policy, idempotent, seq):
    phase = {"id": "p", "task": "p", "idempotent": idempotent}
    if policy is not None:
        phase["retry"] = policy
    script = [HARD if k == "hard" else TRANSIENT if k == "transient" else "done" for k in seq] + [HARD]
    flow = Flow.model_validate({"name": "r", "phases": [phase]})
    result = asyncio.run(run_flow(flow, runner=ScriptedRunner({"p": script}), clock=InstantClock()))
    return result.phases["p"]


policies = st.one_of(
    st.none(),
    st.builds(lambda m: {"max": m, "backoffMs": 0}, st.integers(0, 20)),
)


@settings(max_examples=60, deadline=None)
@given(policy=policies, idempotent=st.booleans(), seq=replies)
def test_attempt_budget_and_stop_rules(policy, idempotent, seq):
    state = run(policy, idempotent, seq)
    explicit = 1 + (policy["max"] if policy else 0)
    assert 1 <= state.attempts <= max(explicit, 4) == max_attempts(policy)
    made = seq[: state.attempts] if state.attempts <= len(seq) else seq + ["hard"]
    # every attempt but the last failed; the run stops at the first success
    assert "ok" not in made[:-1]
    if str(state.status) == "done":
        assert made[-1] == "ok"
    else:
        last = state.attempts - 1
        transient_ok = made[-1] == "transient" and idempotent and last < 3
        # a failed phase stopped because neither layer allowed another attempt
        assert not (last < explicit - 1) and not (transient_ok and state.attempts < max(explicit, 4))
    if not idempotent and policy is None:
        assert state.attempts == 1  # idempotent:false removes the transient layer


@given(base=st.integers(0, 60000), factor=st.integers(1, 10), attempt=st.integers(0, 30))
def test_backoff_is_capped_and_monotonic(base, factor, attempt):
    retry = {"max": 3, "backoffMs": base, "factor": factor}
    delay = backoff_ms(retry, attempt)
    assert 0 <= delay <= 60000
    assert backoff_ms(retry, attempt + 1) >= delay
    assert backoff_ms(retry, 0) == min(base, 60000)
