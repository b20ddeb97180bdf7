"""Bounded regex matching (docs/trust.md §3, issue 17 fault 2).

A catastrophic pattern fails its scorer with a clear detail once its budget is spent, the
event loop keeps running meanwhile, and the JS dialect is unchanged (the conformance vectors
run on the same engine).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from tftui.flow.model import GatePhase
from tftui.lang.interpolate import Context, StepView
from tftui.lang.jsregex import default_budget, nested_quantifier, set_default_budget
from tftui.scoring.gate import evaluate_gate
from tftui.scoring.scorers import evaluate_scorer

# A pattern the matcher cannot shortcut: every way of splitting the a's is tried on a near-miss.
CATASTROPHIC = "^(a|a)*$"
NEAR_MISS = "a" * 48 + "!"
GUARD_S = 60  # a guard against hangs, not a timing assertion


@pytest.fixture
def budget() -> Iterator[None]:
    before = default_budget()
    yield
    set_default_budget(before)


def regex(pattern: str, **extra: object) -> dict:
    return {"type": "regex", "pattern": pattern, **extra}


def test_a_catastrophic_pattern_fails_with_a_clear_detail_at_its_budget(budget: None) -> None:
    set_default_budget(0.2)
    result = evaluate_scorer(regex(CATASTROPHIC), 0, NEAR_MISS)
    assert not result.passed and result.score == 0
    assert result.detail == "regex timed out after 200ms (catastrophic backtracking?): /^(a|a)*$/"
    negated = evaluate_scorer(regex(CATASTROPHIC, negate=True), 0, NEAR_MISS)
    assert not negated.passed  # a match that never finished is not "did not match"


def test_the_issue_pattern_on_the_issue_reply_answers() -> None:
    reply = "hello world foo bar baz qux quux!!"  # 34 characters: ran 10 minutes on `re`
    result = evaluate_scorer(regex("^(\\w+\\s?)+$"), 0, reply)
    assert result.detail == "/^(\\w+\\s?)+$/ did not match"
    assert evaluate_scorer(regex("^(\\w+\\s?)+$"), 0, "hello world foo").passed


def test_the_budget_is_a_setting_and_bad_values_keep_the_default(budget: None) -> None:
    set_default_budget(0.3)
    assert default_budget() == 0.3
    for bad in (None, 0, -1, float("inf"), float("nan")):
        set_default_budget(bad)
        assert default_budget() == 1.0


def test_js_semantics_the_re_engine_missed() -> None:
    assert evaluate_scorer(regex("\\B"), 0, "").passed  # JS: /\B/.test("") is true


def test_nested_quantifiers_are_found() -> None:
    assert nested_quantifier("^(\\w+\\s?)+$") == "(\\w+\\s?)+"
    assert nested_quantifier("(?:a*)*b") == "(?:a*)*"
    assert nested_quantifier("([a-z]{2,})+") == "([a-z]{2,})+"
    for fine in ("(a|b)+", "(\\d+)-(\\d+)", "[(a+)]+", "\\(a+\\)+", "(ab?)+", "(a+){2}"):
        assert nested_quantifier(fine) is None, fine


async def test_a_redos_gate_ends_within_its_budget_and_the_loop_keeps_running(budget: None) -> None:
    set_default_budget(2.0)
    gate = GatePhase.model_validate(
        {"id": "g", "type": "gate", "score": {"target": "{steps.gen.output}", "scorers": [regex(CATASTROPHIC)]}}
    )
    ctx = Context(args={}, steps={"gen": StepView(output=NEAR_MISS)})
    task = asyncio.ensure_future(evaluate_gate(gate, ctx, runner=None))  # no model call is made
    ticks = 0
    while not any(t.name == "tftui-regex" for t in threading.enumerate()):
        await asyncio.sleep(0.005)  # the match has not moved off the loop yet
        assert not task.done()
    while not task.done():  # the match runs in its thread; the loop keeps answering
        ticks += 1
        await asyncio.sleep(0.01)
    outcome = await asyncio.wait_for(task, GUARD_S)
    assert ticks > 0
    assert outcome.verdict == "block"
    assert "regex timed out after 2000ms" in outcome.scores.results[0].detail
