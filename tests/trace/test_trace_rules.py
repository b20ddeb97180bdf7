"""Table tests for each trace rule (SPEC §9.3), plus a property test against a naive reference."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace.model import TraceColumns
from tftui.trace.rules import (
    LoopSignature,
    MaxAttempts,
    MaxTotalTokens,
    NoExternalWorkAfterBlock,
    Order,
    RequiredSteps,
    Rule,
    RuleResult,
    evaluate_rules,
)


def step(seq: int, name: str, kind: str = "model", status: str = "ok", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": f"x{seq}",
        "parentId": None if seq == 0 else "x0",
        "sequence": seq,
        "name": name,
        "kind": kind,
        "status": status,
    }
    out.update(extra)
    return out


def root() -> dict[str, Any]:
    return step(0, "flow", "run")


def run1(rule: Rule, steps: list[dict[str, Any]]) -> RuleResult:
    return evaluate_rules(TraceColumns.from_dicts(steps), [rule])[0]


# --- required_steps -----------------------------------------------------------------------------------

REQUIRED_CASES = [
    ("all present", ["plan", "build"], [root(), step(1, "plan"), step(2, "build")], True,
     "All required steps ran", {"missingCount": 0}),
    ("any status counts", ["build"], [root(), step(1, "build", status="error")], True,
     "All required steps ran", {"missingCount": 0}),
    ("missing in required order", ["c", "a", "b"], [root(), step(1, "b")], False,
     "Missing required steps: c, a", {"missingCount": 2}),
    ("kind does not matter", ["lint"], [root(), step(1, "lint", "tool")], True,
     "All required steps ran", {"missingCount": 0}),
]


@pytest.mark.parametrize(("label", "names", "steps", "passed", "message", "evidence"), REQUIRED_CASES,
                         ids=[c[0] for c in REQUIRED_CASES])
def test_required_steps(label, names, steps, passed, message, evidence) -> None:
    r = run1(RequiredSteps(names=tuple(names)), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("required_steps@1", passed, message, evidence)
    assert (r.fix is None) == passed


# --- order ------------------------------------------------------------------------------------------------

ORDER_CASES = [
    ("in order", [root(), step(1, "a"), step(2, "b")], True, "a occurred before b",
     {"beforeSequence": 1, "afterSequence": 2}),
    ("reversed", [root(), step(1, "b"), step(2, "a")], False, "b occurred before required dependency a",
     {"beforeSequence": 2, "afterSequence": 1}),
    # parallel work interleaved: the *first* step of each name is compared, by sequence
    ("parallel interleaved", [root(), step(1, "a"), step(2, "x"), step(3, "b"), step(4, "a"), step(5, "x")],
     True, "a occurred before b", {"beforeSequence": 1, "afterSequence": 3}),
    ("before missing", [root(), step(1, "b")], False, "Cannot evaluate order: step missing", None),
    ("after missing", [root(), step(1, "a")], False, "Cannot evaluate order: step missing", None),
]


@pytest.mark.parametrize(("label", "steps", "passed", "message", "evidence"), ORDER_CASES,
                         ids=[c[0] for c in ORDER_CASES])
def test_order(label, steps, passed, message, evidence) -> None:
    r = run1(Order(before="a", after="b"), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("order:a:b@1", passed, message, evidence)


def test_order_uses_sequence_not_array_position() -> None:
    # An unsorted (not yet normalized) trace: the array puts b first, but a has the lower sequence.
    steps = [root(), step(7, "b"), step(3, "a")]
    r = run1(Order(before="a", after="b"), steps)
    assert r.passed and r.evidence == {"beforeSequence": 3, "afterSequence": 7}


# --- no_external_work_after_block ----------------------------------------------------------------------

BLOCK_CASES = [
    ("not blocked", [root(), step(1, "a"), step(2, "b", "tool")], True, "Run was not blocked", None),
    ("blocked, nothing after", [root(), step(1, "a"), step(2, "gate", "policy", "blocked")], True,
     "No model or tool work occurred after the block", {"forbiddenCount": 0}),
    ("policy and fallback after block are fine",
     [root(), step(1, "gate", "policy", "blocked"), step(2, "gate#fallback", "fallback"), step(3, "p", "policy")],
     True, "No model or tool work occurred after the block", {"forbiddenCount": 0}),
    ("model and tool after block",
     [root(), step(1, "gate", "policy", "blocked"), step(2, "write", "tool"), step(3, "retr", "retrieval"),
      step(4, "summarize")],
     False, "External work continued after block: write, summarize", {"forbiddenCount": 2}),
    # a blocked run's root step (kind run, sequence 0) is the run's outcome, not the block itself
    ("blocked root is not the block",
     [step(0, "flow", "run", "blocked"), step(1, "a"), step(2, "gate", "policy", "blocked")], True,
     "No model or tool work occurred after the block", {"forbiddenCount": 0}),
    ("blocked sub-flow run step is not the block either",
     [root(), step(1, "sub", "run", "blocked"), step(2, "a")], True, "Run was not blocked", None),
    ("first block counts",
     [root(), step(1, "a"), step(2, "g1", "policy", "blocked"), step(3, "b"), step(4, "g2", "policy", "blocked")],
     False, "External work continued after block: b", {"forbiddenCount": 1}),
]


@pytest.mark.parametrize(("label", "steps", "passed", "message", "evidence"), BLOCK_CASES,
                         ids=[c[0] for c in BLOCK_CASES])
def test_no_external_work_after_block(label, steps, passed, message, evidence) -> None:
    r = run1(NoExternalWorkAfterBlock(), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("no_external_work_after_block@1", passed, message,
                                                           evidence)


# --- max_attempts ---------------------------------------------------------------------------------------

ATTEMPT_CASES = [
    ("none named", 3, [root(), step(1, "a")], True, "build stayed within 3 attempts",
     {"maximumAttempt": 0, "limit": 3}),
    ("absent attempt counts as 1", 1, [root(), step(1, "build")], True, "build stayed within 1 attempts",
     {"maximumAttempt": 1, "limit": 1}),
    ("at limit", 3, [root(), step(1, "build", attempt=1), step(2, "build", attempt=3)], True,
     "build stayed within 3 attempts", {"maximumAttempt": 3, "limit": 3}),
    ("over limit, interleaved with others", 2,
     [root(), step(1, "build", attempt=1), step(2, "x", attempt=9), step(3, "build", attempt=4),
      step(4, "build", attempt=2)],
     False, "build reached attempt 4; limit is 2", {"maximumAttempt": 4, "limit": 2}),
]


@pytest.mark.parametrize(("label", "limit", "steps", "passed", "message", "evidence"), ATTEMPT_CASES,
                         ids=[c[0] for c in ATTEMPT_CASES])
def test_max_attempts(label, limit, steps, passed, message, evidence) -> None:
    r = run1(MaxAttempts(name="build", limit=limit), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("max_attempts:build@1", passed, message, evidence)


# --- max_total_tokens ------------------------------------------------------------------------------------

TOKEN_CASES = [
    ("within", [root(), step(1, "a", inputTokens=100, outputTokens=50), step(2, "b", inputTokens=10, outputTokens=0)],
     True, "Token usage 160 is within budget 1000", {"totalTokens": 160, "limit": 1000}),
    ("exactly at budget", [root(), step(1, "a", inputTokens=600, outputTokens=400)], True,
     "Token usage 1000 is within budget 1000", {"totalTokens": 1000, "limit": 1000}),
    ("over", [root(), step(1, "a", inputTokens=900, outputTokens=200)], False,
     "Token usage 1100 exceeds budget 1000", {"totalTokens": 1100, "limit": 1000}),
    ("missing output fails, never zero", [root(), step(1, "a", inputTokens=1), step(2, "b")], False,
     "Model usage is missing", {"missingUsageCount": 2}),
    ("non-model steps are ignored", [root(), step(1, "lint", "tool"), step(2, "a", inputTokens=1, outputTokens=2)],
     True, "Token usage 3 is within budget 1000", {"totalTokens": 3, "limit": 1000}),
    ("no model steps", [root(), step(1, "lint", "tool")], True, "Token usage 0 is within budget 1000",
     {"totalTokens": 0, "limit": 1000}),
    ("float tokens print as JS", [root(), step(1, "a", inputTokens=0.5, outputTokens=1000)], False,
     "Token usage 1000.5 exceeds budget 1000", {"totalTokens": 1000.5, "limit": 1000}),
]


@pytest.mark.parametrize(("label", "steps", "passed", "message", "evidence"), TOKEN_CASES,
                         ids=[c[0] for c in TOKEN_CASES])
def test_max_total_tokens(label, steps, passed, message, evidence) -> None:
    r = run1(MaxTotalTokens(limit=1000), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("max_total_tokens@1", passed, message, evidence)


# --- loop_signature ---------------------------------------------------------------------------------------


def planner(seq: int, state: str, tool: str = "search", outcome: Any = "retry") -> dict[str, Any]:
    return step(seq, "plan", metadata={"planner_state": state, "selected_tool": tool, "outcome": outcome})


LOOP_CASES = [
    ("distinct states", [root(), planner(1, "s1"), planner(2, "s2"), planner(3, "s3")], True,
     "No state signature repeated more than 2 times", {"maximumRepeat": 1, "limit": 2}),
    ("repeat over limit", [root(), planner(1, "s1"), planner(2, "s1"), planner(3, "s2"), planner(4, "s1")], False,
     "Signature plan|model|ok|s1|search|retry repeated 3 times; limit is 2", {"maximumRepeat": 3, "limit": 2}),
    ("absent key is empty, null is null",
     [root(), step(1, "p", metadata={"outcome": None}), step(2, "p", metadata={"outcome": None}),
      step(3, "p", metadata={"outcome": None})],
     False, "Signature p|model|ok|||null repeated 3 times; limit is 2", {"maximumRepeat": 3, "limit": 2}),
    ("status is part of the signature",
     [root(), planner(1, "s1"), step(2, "plan", status="error", metadata={"planner_state": "s1",
      "selected_tool": "search", "outcome": "retry"}), planner(3, "s1")],
     True, "No state signature repeated more than 2 times", {"maximumRepeat": 2, "limit": 2}),
]


@pytest.mark.parametrize(("label", "steps", "passed", "message", "evidence"), LOOP_CASES,
                         ids=[c[0] for c in LOOP_CASES])
def test_loop_signature(label, steps, passed, message, evidence) -> None:
    r = run1(LoopSignature(limit=2), steps)
    assert (r.rule_id, r.passed, r.message, r.evidence) == ("loop_signature@1", passed, message, evidence)


def test_loop_signature_custom_keys_and_number_format() -> None:
    steps = [root()] + [step(i, "loop", metadata={"iteration": 2.0, "ok": True}) for i in range(1, 4)]
    r = run1(LoopSignature(keys=("iteration", "ok"), limit=2), steps)
    assert r.message == "Signature loop|model|ok|2|true repeated 3 times; limit is 2"
    r = run1(LoopSignature(keys=(), limit=2), steps)
    assert r.message == "Signature loop|model|ok repeated 3 times; limit is 2"


def test_severity_override_and_fix_only_on_failure() -> None:
    r = run1(Order("warning", before="a", after="b"), [root(), step(1, "b"), step(2, "a")])
    assert r.severity == "warning" and not r.passed and r.fix and "dependsOn" in r.fix
    assert r.to_json()["fix"] == r.fix
    ok = run1(Order(before="a", after="b"), [root(), step(1, "a"), step(2, "b")])
    assert ok.fix is None and "fix" not in ok.to_json()


def test_rule_never_raises() -> None:
    class Broken(Rule):
        @property
        def id(self) -> str:
            return "broken"

        def check(self, facts):  # noqa: ANN001
            raise ValueError("boom")

    r = run1(Broken(), [root()])
    assert r.rule_id == "broken@1" and not r.passed and "ValueError: boom" in r.message


# --- property: the column evaluation equals a naive per-step reading of SPEC §9.3 -----------------------


def reference(steps: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    names = [s["name"] for s in steps]
    out: list[tuple[bool, str]] = []
    missing = [n for n in ("a", "b") if n not in names]
    out.append((not missing, "All required steps ran" if not missing else f"Missing required steps: {', '.join(missing)}"))
    left = next((s for s in steps if s["name"] == "a"), None)
    right = next((s for s in steps if s["name"] == "b"), None)
    if left is None or right is None:
        out.append((False, "Cannot evaluate order: step missing"))
    else:
        ok = left["sequence"] < right["sequence"]
        out.append((ok, "a occurred before b" if ok else "b occurred before required dependency a"))
    block = next((s for s in steps if s["status"] == "blocked" and s["kind"] != "run"), None)
    if block is None:
        out.append((True, "Run was not blocked"))
    else:
        bad = [s["name"] for s in steps if s["sequence"] > block["sequence"] and s["kind"] in ("model", "tool")]
        out.append((not bad, "No model or tool work occurred after the block" if not bad
                    else f"External work continued after block: {', '.join(bad)}"))
    attempts = [s.get("attempt") or 1 for s in steps if s["name"] == "a"]
    mx = max(attempts) if attempts else 0
    out.append((mx <= 2, "a stayed within 2 attempts" if mx <= 2 else f"a reached attempt {mx}; limit is 2"))
    models = [s for s in steps if s["kind"] == "model"]
    if any("inputTokens" not in s or "outputTokens" not in s for s in models):
        out.append((False, "Model usage is missing"))
    else:
        total = sum(s["inputTokens"] + s["outputTokens"] for s in models)
        out.append((total <= 50, f"Token usage {total} " + ("is within" if total <= 50 else "exceeds") + " budget 50"))
    return out


step_strategy = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["a", "b", "c"]),
        "kind": st.sampled_from(["model", "tool", "policy", "retrieval", "run"]),
        "status": st.sampled_from(["ok", "error", "blocked", "cancelled"]),
    },
    optional={
        "attempt": st.integers(1, 4),
        "inputTokens": st.integers(0, 20),
        "outputTokens": st.integers(0, 20),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(step_strategy, max_size=12), st.randoms())
def test_columns_match_reference(raw: list[dict[str, Any]], rnd) -> None:  # noqa: ANN001
    seqs = rnd.sample(range(1, 100), len(raw))
    steps = [root()] + [dict(s, id=f"x{q}", parentId="x0", sequence=q) for s, q in zip(raw, seqs, strict=True)]
    if rnd.random() < 0.5:  # normalized (sorted) traces take the fast path of no_external_work_after_block
        steps.sort(key=lambda s: s["sequence"])
    rules = [RequiredSteps(names=("a", "b")), Order(before="a", after="b"), NoExternalWorkAfterBlock(),
             MaxAttempts(name="a", limit=2), MaxTotalTokens(limit=50)]
    got = [(r.passed, r.message) for r in evaluate_rules(TraceColumns.from_dicts(steps), rules)]
    assert got == reference(steps)
