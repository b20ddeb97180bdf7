"""Pure scorer details beyond the vectors: JS regex dialect, contracts, report and arithmetic text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.lang.contract import contract_shape_errors, contract_violations
from tftui.lang.jsregex import compile_js_regex
from tftui.lang.values import MISSING
from tftui.scoring.combine import combine, explain, js_to_fixed, scorer_report
from tftui.scoring.scorers import ScorerResult, evaluate_scorer, score_shape_errors


def matches(pattern: str, target: str) -> bool:
    result = evaluate_scorer({"type": "regex", "pattern": pattern}, 0, target)
    assert result.detail is None or not result.detail.startswith("invalid"), result.detail
    return result.passed


@pytest.mark.parametrize(
    ("pattern", "target", "expected"),
    [
        ("(?<year>\\d{4})-\\k<year>", "2024-2024", True),
        ("\\d", "\u0663", False),  # Arabic-Indic digit: JS \d is ASCII
        ("\\w", "é", False),
        ("\\s", "\u00a0", True),  # JS \s includes NBSP
        ("[^\\S\\r\\n]", "\u00a0", True),
        ("[^\\S\\r\\n]", "\n", False),
        ("[\\S]", "\u00a0", False),
        ("end$", "the end\n", False),  # $ is the end of input, not before a final newline
        ("a.c", "a\u2028c", False),  # . excludes JS line terminators
        ("\\Z", "Z", True),  # unknown escape = the letter
        ("x{,2}", "x{,2}", True),  # not a quantifier in JS
        ("(a)?\\1b", "b", True),  # a group that did not match: backreference matches empty
        ("[]", "anything", False),
        ("[^]", "\n", True),
        ("\\u00e9", "é", True),
        ("\\x41", "A", True),
        ("[\\d-]", "-", True),
    ],
)
def test_js_regex_dialect(pattern: str, target: str, expected: bool) -> None:
    assert matches(pattern, target) is expected


@pytest.mark.parametrize(
    "pattern", ["(?i)ok", "(?P<y>a)", "(?>a)", "(?#c)", "a++", "a*+", "a{2}+", "[b-a]", "(", ")", "\\"]
)
def test_js_rejects_python_only_syntax(pattern: str) -> None:
    result = evaluate_scorer({"type": "regex", "pattern": pattern}, 0, "a")
    assert not result.passed and result.detail.startswith("invalid pattern: Invalid regular expression: /")


def test_python_compile_errors_keep_their_message() -> None:
    result = evaluate_scorer({"type": "regex", "pattern": "(?<=a+)b"}, 0, "ab")
    assert result.detail == "invalid pattern: look-behind requires fixed-width pattern"


def test_patterns_compile_once() -> None:
    compile_js_regex.cache_clear()
    for _ in range(5):
        evaluate_scorer({"type": "regex", "pattern": "abc+"}, 0, "abccc")
    info = compile_js_regex.cache_info()
    assert info.misses == 1 and info.hits == 4


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab()[]{}?*+\\^$|.-,:<>=!kdswDSWbBux0123PiZ", max_size=12), st.text(max_size=8))
def test_regex_scorer_never_raises(pattern: str, target: str) -> None:
    result = evaluate_scorer({"type": "regex", "pattern": pattern, "negate": True}, 0, target)
    assert result.score in (0, 1) and (result.passed or result.detail)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "value", "pattern", "schema", "min", "max", "name", "negate", "language"]),
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=5)
        | st.lists(st.integers(), max_size=2)
        | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
    st.text(max_size=20),
)
def test_any_scorer_config_never_raises(scorer: dict, target: str) -> None:
    result = evaluate_scorer(scorer, 2, target)
    assert isinstance(result, ScorerResult) and result.score in (0, 1)
    score_shape_errors({"scorers": [scorer]})


def test_unchecked_scorer_fallbacks() -> None:
    assert evaluate_scorer({"type": "regex"}, 0, "x").passed  # a missing pattern always matches
    assert evaluate_scorer({"type": "contains"}, 0, "x").passed
    assert evaluate_scorer({"type": "length-range", "min": "3"}, 0, "x").passed  # non-number bound ignored
    assert evaluate_scorer({"type": "regex", "pattern": "x", "negate": True}, 0, "y").passed
    long = evaluate_scorer({"type": "contains", "value": "v" * 100}, 0, "x").detail
    assert long == 'target does not contain "' + "v" * 79 + "…"


def test_contract_messages_and_order() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {"type": "string"}, "c": {"enum": [1, 2]}, "d": {"items": {"type": "integer"}}},
    }
    value = {"a": 3, "c": True, "d": [1, 2.0, 2.5, "x"]}
    assert contract_violations(value, schema) == [
        "$.b: required key is missing",
        "$.a: expected string, got number",
        "$.c: value is not one of the allowed enum literals",
        "$.d[2]: expected integer, got number",
        "$.d[3]: expected integer, got string",
    ]
    assert contract_violations(MISSING, {"type": "object"}) == [
        "$: expected object, got nothing (not valid JSON?)"
    ]
    assert contract_violations([1], {"required": ["x"]}) == ["$: expected object, got array"]
    assert contract_violations(None, "garbage") == []


def test_contract_compiled_once_per_schema_object() -> None:
    schema = {"type": "object", "required": ["x"]}
    assert contract_violations({}, schema) == ["$.x: required key is missing"]
    schema["required"] = ["y"]  # edited in place: the cache notices
    assert contract_violations({}, schema) == ["$.y: required key is missing"]


def test_contract_shape_errors() -> None:
    assert contract_shape_errors({"type": "object", "additionalProperties": False}) == [
        "$.additionalProperties: unknown contract keyword (supported: type, properties, required, items, enum)"
    ]
    assert contract_shape_errors({"properties": {"a": {"type": "strng"}}, "enum": []}, "expect") == [
        "expect.properties.a.type: must be one of object|array|string|number|integer|boolean|null",
        "expect.enum: must be a non-empty array of allowed literals",
    ]
    assert score_shape_errors({"scorers": [{"type": "json-schema", "schema": {"typ": "object"}}]}) == [
        "score.scorers[0].schema.typ: unknown contract keyword (supported: type, properties, required, items, enum)"
    ]


def test_score_shape_messages() -> None:
    assert score_shape_errors(
        {
            "scorers": [{"type": "length-range", "min": 5, "max": 2}],
            "combine": "all",
            "threshold": 0.5,
            "x": 1,
        }
    ) == [
        "score.x: unknown score keyword (supported: target, scorers, combine, weights, threshold, judge)",
        "score.scorers[0]: min (5) must be <= max (2)",
        'score.threshold: only valid with combine:"weighted"',
    ]
    assert score_shape_errors({"scorers": [{"type": "contains", "value": "x"}], "combine": "weighted"}) == [
        'score.weights: required array for combine:"weighted" (1 entries: one per scorer)'
    ]
    assert score_shape_errors(
        {"target": 3, "scorers": [{"type": "regex"}], "judge": {"task": "t", "agent": 1}}
    ) == [
        'score.target: must be a string interpolation ref (e.g. "{steps.gen.output}")',
        "score.scorers[0].pattern: required string for 'regex'",
        "score.judge.agent: must be a string agent name",
    ]


def test_report_text() -> None:
    results = [
        ScorerResult("a", "contains", True, 1),
        ScorerResult("b", "regex", False, 0, "/x/ did not match"),
    ]
    assert scorer_report(results, 0.0625, 0.7) == (
        "## Deterministic scorer report\n- [PASS] a (contains)\n- [FAIL] b (regex): /x/ did not match\n"
        "Combined score: 0.063 (threshold 0.7)"
    )
    assert scorer_report([], 0, unresolved=["steps.a.json.x", "args.b", "steps.a.json.x"]) == (
        "## Deterministic scorer report\n(scorers skipped — score.target did not resolve: steps.a.json.x, args.b)"
    )


def test_js_to_fixed_rounds_ties_up() -> None:
    assert js_to_fixed(0.0625, 3) == "0.063"  # Python's format gives 0.062
    assert js_to_fixed(1, 3) == "1.000" and js_to_fixed(0.7999999999999999, 3) == "0.800"


def test_arithmetic_lines() -> None:
    results = [{"passed": p} for p in (True, False, True, False)]
    weights = [0.2, 0.3, 0.4, 0.1]
    c = combine(results, "weighted", weights, 0.7)
    assert explain(c) == "combined 0.60 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·0)/1.0 < threshold 0.70 → fail"
    c = combine(results, "weighted", weights + [0.5], 0.7, judge_configured=True)
    assert c.needs_judge and not c.judge_ran and c.stage == "deterministic"
    assert (
        explain(c)
        == "lower bound 0.40 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·0)/(1.0 + 0.5 judge) < threshold 0.70 → judge"
    )
    c = combine([{"passed": True}] * 4, "weighted", weights + [0.1], 0.7, judge_configured=True)
    assert (
        explain(c)
        == "early cutoff: lower bound 0.91 = (0.2·1 + 0.3·1 + 0.4·1 + 0.1·1)/(1.0 + 0.1 judge) ≥ 0.70, judge skipped"
    )
    c = combine(results, "all", judge={"score": 0.9, "verdict": "pass"})
    assert (
        explain(c) == "all: 2/4 scorers passed → combined 0; judge verdict pass (score 0.90) decides → pass"
    )
    assert explain(combine(results, "any")) == "any: 2/4 scorers passed → combined 1 → pass"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=' {}[]"ab:,1\n`json\ufeff', max_size=30),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=4),
            lambda inner: (
                st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=6,
        ).map(lambda v: __import__("json").dumps(v)),
    )
)
def test_json_schema_parse_agrees_with_lenient_parse(text: str) -> None:
    from tftui.lang.jsonish import lenient_parse, lenient_parse_recent

    expected = lenient_parse(text)
    got = lenient_parse_recent(text)
    assert got is expected if expected is MISSING else got == expected
