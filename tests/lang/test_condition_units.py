"""Hand-written checks of the condition language beyond the vectors: errors, depth, explanations."""

from __future__ import annotations

import pytest

from tftui.lang.condition import (
    ConditionSyntaxError,
    describe_skip,
    evaluate,
    evaluate_eval_entry,
    explain,
    parse,
    syntax_error,
    truthy,
)
from tftui.lang.interpolate import Context, StepView
from tftui.lang.values import MISSING


@pytest.fixture
def ctx() -> Context:
    return Context(
        args={"mode": "draft", "n": 5},
        steps={
            "triage": StepView('{"severity": "low", "tags": ["a", "b"]}'),
            "enrich": StepView("partial", status="failed", error="exit 1: boom"),
        },
    )


def test_syntax_error_message_and_position() -> None:
    error = syntax_error("{x} == == 1")
    assert error is not None
    assert (error.message, error.position) == ("unexpected operator '=='", 7)
    with pytest.raises(ConditionSyntaxError) as raised:
        parse("  (true")
    assert raised.value.message == "missing )"
    assert syntax_error("{a} == b && !{c}") is None
    assert syntax_error("   ") is None


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("a == (b) == c", "trailing tokens"),
        ("(a == b == c)", "missing )"),
        ("a == !b", "unexpected operator '!'"),
        ("{x} >", "unexpected end"),
        ("()", "unexpected operator ')'"),
        ("a\u00a0== a", "unexpected char '\u00a0'"),
        ("a & b", "unexpected char '&'"),
    ],
)
def test_parse_errors_fail_open(ctx: Context, expr: str, message: str) -> None:
    result = evaluate(expr, ctx)
    assert result.value is True
    assert result.error == message


def test_grouped_comparison_may_be_compared(ctx: Context) -> None:
    assert evaluate("(a == (b)) == false", ctx).value is True
    assert evaluate("!a == b", ctx).value is True  # ! binds looser than comparison: !(a == b)


def test_deep_nesting_does_not_overflow(ctx: Context) -> None:
    depth = 5000
    assert evaluate("(" * depth + "{args.n} == 5" + ")" * depth, ctx).value is True
    assert evaluate("!" * (depth + 1) + "true", ctx).value is False
    assert evaluate(" || ".join(["false"] * depth + ["{args.mode}"]), ctx).value is True


def test_failed_step_sentinel_and_error_extension(ctx: Context) -> None:
    assert evaluate('{steps.enrich.output} == "[previous phase failed]"', ctx).value is True
    assert evaluate("{steps.enrich.json}", ctx).value is False
    assert evaluate('{steps.enrich.error} == "exit 1: boom"', ctx).value is True
    assert evaluate("{steps.triage.error}", ctx).value is False


def test_truthy_table() -> None:
    assert [truthy(v) for v in (MISSING, None, 0, 0.0, "", " Off ", "NULL", [], {})] == [False] * 9
    assert [truthy(v) for v in ("0.0", "yes", -1, [0], {"a": None}, True)] == [True] * 6


def test_explain_lists_each_placeholder_once(ctx: Context) -> None:
    info = explain("{steps.triage.json.severity} == high || {steps.triage.json.severity} == {args.x}", ctx)
    assert info.value is False and info.error is None
    assert info.refs == [("{steps.triage.json.severity}", "low"), ("{args.x}", MISSING)]


def test_describe_skip_lines(ctx: Context) -> None:
    assert (
        describe_skip("{steps.triage.json.severity} == high", ctx)
        == 'skipped because {steps.triage.json.severity} == high was false: severity = "low"'
    )
    assert (
        describe_skip("{args.mode} == draft", ctx)
        == 'not skipped: {args.mode} == draft was true: mode = "draft"'
    )
    assert describe_skip("{args.zzz}", ctx) == "skipped because {args.zzz} was false: zzz = unresolved"
    assert (
        describe_skip("a b", ctx)
        == "not skipped: a b could not be evaluated (trailing tokens) — ran (fail-open)"
    )
    assert describe_skip("", ctx) == "not skipped: no condition"


def test_eval_entries(ctx: Context) -> None:
    assert evaluate_eval_entry("{args.n} >= 5", ctx).passed is True
    false_check = evaluate_eval_entry("{args.n} > 5", ctx)
    assert false_check.passed is False and "is false" in false_check.detail
    error_check = evaluate_eval_entry("{args.n} >", ctx)
    assert error_check.passed is False and "unexpected end" in error_check.detail
    assert evaluate_eval_entry(5, ctx).passed is False
    assert evaluate_eval_entry(None, ctx).passed is False


def test_eval_contains(ctx: Context) -> None:
    assert evaluate_eval_entry("{steps.triage.output} contains low", ctx).passed is True
    # The right side is literal: quotes are not removed.
    assert evaluate_eval_entry('{steps.triage.output} contains "low"', ctx).passed is True
    assert evaluate_eval_entry("{steps.triage.output} contains 'low'", ctx).passed is False
    missing = evaluate_eval_entry("{steps.nope.output} contains low", ctx)
    assert missing.passed is False and "{steps.nope.output}" in missing.detail
    # ` contains ` at index 0 is not a contains check: it is parsed as a condition (a trailing-tokens error).
    assert evaluate_eval_entry(" contains x", ctx).passed is False
    assert evaluate_eval_entry("Contains == Contains", ctx).passed is True


def test_parse_is_cached() -> None:
    assert parse("{a} == b && {c}") is parse("{a} == b && {c}")
