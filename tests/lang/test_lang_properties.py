"""Property tests: the language functions are total — they never raise on arbitrary input."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.lang.condition import evaluate, evaluate_eval_entry, explain, parse, syntax_error
from tftui.lang.interpolate import PLACEHOLDER_RE, Context, StepView, interpolate, interpolate_value, resolve
from tftui.lang.values import MISSING
from tftui.lang.verdict import parse_gate_verdict, parse_judge_output, parse_tournament_winner

KEYS = st.sampled_from(["a", "b", "n", "items", "0", "1", "length", "toString", "__proto__", "x y", ""])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=12,
)
STEPS = st.dictionaries(
    st.sampled_from(["s", "t", "gen"]),
    st.builds(
        StepView,
        output=st.text(max_size=30) | JSON.map(str),
        json=st.just(MISSING) | JSON,
        status=st.sampled_from(["done", "failed"]),
        error=st.none() | st.text(max_size=8),
    ),
    max_size=3,
)
CONTEXTS = st.builds(
    Context,
    args=st.dictionaries(KEYS, JSON, max_size=4),
    steps=STEPS,
    previous_output=st.none() | st.text(max_size=8),
    locals=st.dictionaries(st.sampled_from(["item", "loop", "args"]), JSON, max_size=2),
    reflexion=st.none() | st.text(max_size=8),
)
# Text biased toward the language's own alphabet so the parser goes deep, not just "unexpected char".
ALPHABET = st.sampled_from(
    list("{}()!=<>&|\"'\\ .-_0123456789eE abnst") + ["args.", "steps.s.json.", "\u00a0", "\u3000"]
)
EXPRS = st.lists(ALPHABET, max_size=40).map("".join) | st.text(max_size=40)
REFS = st.lists(
    KEYS | st.sampled_from(["args", "steps", "s", "json", "output", "error", "previous", "item"]), max_size=5
)


@settings(max_examples=150, deadline=None)
@given(EXPRS, CONTEXTS)
def test_evaluate_never_raises(expr: str, ctx: Context) -> None:
    result = evaluate(expr, ctx)
    assert isinstance(result.value, bool)
    error = syntax_error(expr)
    if error is not None:
        assert result.value is True and result.error == error.message
    else:
        parse(expr)
    explain(expr, ctx)
    assert isinstance(evaluate_eval_entry(expr, ctx).passed, bool)


@settings(max_examples=150, deadline=None)
@given(EXPRS, REFS, CONTEXTS)
def test_interpolate_never_raises(template: str, segments: list[str], ctx: Context) -> None:
    ref = ".".join(segments)
    full = template + "{" + ref + "}"
    result = interpolate(full, ctx)
    assert isinstance(result.text, str)
    value = resolve(ref, ctx)
    if value is MISSING and PLACEHOLDER_RE.fullmatch("{" + ref + "}"):
        assert result.missing[-1] == ref
    interpolate_value("{" + ref + "}", ctx)
    interpolate_value(full, ctx)


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=80) | JSON.map(str), st.integers(min_value=-3, max_value=30) | st.floats(allow_nan=False)
)
def test_verdict_parsers_never_raise(text: str, count: float) -> None:
    gate = parse_gate_verdict(text)
    assert gate.verdict in ("pass", "block")
    judge = parse_judge_output(text)
    assert judge.verdict in ("pass", "block") and 0 <= judge.score <= 1
    winner = parse_tournament_winner(text, count)
    assert winner.index >= 1
    if math.isfinite(count):
        assert winner.index <= max(1, count)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["VERDICT", "verdict", "SCORE", "WINNER", "Score"]),
    st.sampled_from([":", "=", " :", "\u00a0=\u00a0"]),
    st.sampled_from(["", "**", "_", "`"]),
    st.sampled_from(["PASS", "block", "Ok", "0.7", "1", "2", "#3", "halt"]),
    st.text(max_size=20),
)
def test_marker_text_never_raises(word: str, sep: str, emphasis: str, value: str, noise: str) -> None:
    text = f"{noise}{word}{sep}{emphasis}{value}{emphasis}"
    parse_gate_verdict(text)
    parse_judge_output(text)
    parse_tournament_winner(text, 3)
