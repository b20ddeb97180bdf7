"""The pure functions' fast paths give exactly what the general paths give (issue 18):
JSON read by msgspec equals JSON read by `json` (docs/language.md §3.4), and a regex pattern
proven linear, matched by `re` without a budget, matches exactly where the budgeted `regex`
match does (docs/trust.md §3). Catastrophic patterns keep the budget."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.lang import jsonish
from tftui.lang.jsonish import lenient_parse, strict_json
from tftui.lang.jsregex import compile_js_regex, default_budget, linear_time, set_default_budget
from tftui.lang.values import MISSING

# --- JSON ----------------------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
_RAW = st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', "01",
                        "1.", ".5", "-0", "-0.0", "1E2", "[1,]", '{"a":1,"a":2}', "\t", "\u00a0", "\ufeff", "\x00",
                        '"\\x"', '"\\/"', "true", "tru", "]", "}", " ",
                        # lone surrogate characters (not escapes): a reply decoded from a split emoji
                        '"a\ud83db"', "\udc00"])


def _reference(text: str) -> Any:
    """`json`'s reading, as strict_json read every text before msgspec."""
    return jsonish._strict_json_slow(text)


@settings(max_examples=80, deadline=None)
@given(_JSON, st.booleans(), st.lists(st.tuples(st.integers(0, 40), _RAW), max_size=2), st.integers(0, 3))
def test_strict_json_reads_every_text_as_json_does(value: Any, ascii_only: bool, edits: list[Any], cut: int) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    for at, raw in edits:
        text = text[:at] + raw + text[at:]
    if cut:
        text = text[:-cut]
    got, want = strict_json(text), _reference(text)
    assert (got is MISSING) == (want is MISSING)
    if want is not MISSING:
        assert repr(got) == repr(want)  # the same types too: 1 is not 1.0, -0.0 is not 0


def test_a_lone_surrogate_character_in_a_reply_reads_as_json_reads_it() -> None:
    # A provider stream can cut an emoji's escape pair; json.loads of the reply keeps the lone half.
    reply = json.loads('"{\\"x\\": \\"hi \\ud83d\\"}"')
    assert strict_json(reply) == {"x": "hi \ud83d"}
    assert lenient_parse("here: " + reply) == {"x": "hi \ud83d"}
    assert strict_json('{"x": 1} \ud83d') is MISSING


def test_deep_nesting_reads_the_same_well_inside_the_recursion_limit() -> None:
    for depth in (50, 400):
        text = "[" * depth + "]" * depth
        assert strict_json(text) == _reference(text) != MISSING
    text = "[" * 100_000 + "]" * 100_000
    assert strict_json(text) is MISSING and _reference(text) is MISSING


@settings(max_examples=80, deadline=None)
@given(_JSON, st.sampled_from(["```json\n{}\n```", "Here:\n```\n{}\n```\nok", "x {} y", "{}", "```js\n[1\n```{}",
                              "```JSON\r\n{}```", "{} trailing"]), _RAW)
def test_lenient_parse_reads_replies_as_it_did_with_json(value: Any, frame: str, raw: str) -> None:
    for reply in (frame.replace("{}", json.dumps(value)), frame.replace("{}", raw)):
        fast = lenient_parse(reply)
        saved = jsonish.strict_json
        jsonish.strict_json = _reference  # every step of docs/language.md §3.4 read by `json`
        try:
            slow = lenient_parse(reply)
        finally:
            jsonish.strict_json = saved
        assert repr(fast) == repr(slow)


# --- regex -----------------------------------------------------------------------------------------

_PIECES = ["a", "b", "x", "-", "\\.", "\\d", "\\w", "\\s", "\\S", "\\D", ".", "[a-c]", "[^a]", "[\\d_]", "[^\\s]",
           "\\u00e9", "\\x41", "^", "$", "\\b", "(", ")", "(?:", "|"]
_QUANTS = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}"]
_TEXT = st.text(alphabet="abx-._ 0123\n\u00e9A\u00a0", max_size=14)


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_QUANTS)), min_size=1, max_size=6))
    return "".join(piece + (quant if piece not in "()(?:|^$\\b" else "") for piece, quant in parts)


@settings(max_examples=80, deadline=None)
@given(_patterns(), st.lists(_TEXT, min_size=1, max_size=3))
def test_a_linear_pattern_matches_with_re_exactly_where_the_budgeted_match_does(pattern: str,
                                                                                 texts: list[str]) -> None:
    compiled = compile_js_regex(pattern)
    if compiled.regex is None:
        assert compiled.fast is None
        return
    assert (compiled.fast is not None) == linear_time(pattern)
    if compiled.fast is None:
        return
    for text in texts:
        fast, slow = compiled.fast.search(text), compiled.regex.search(text, timeout=5.0)
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            assert fast.span() == slow.span()


@pytest.mark.parametrize("pattern", ['"status"\\s*:\\s*"success"', "error", "^\\d+$", "x\\d+\\.\\d+", "\\bfoo\\b",
                                     "^.*$", "a\\s*b", "\\d{3}-\\d{4}", "^\\s*x"])
def test_common_scorer_patterns_are_proven_linear(pattern: str) -> None:
    assert linear_time(pattern) and compile_js_regex(pattern).fast is not None


@pytest.mark.parametrize("pattern", ["^(a|a)*$", "^(\\w+\\s?)+$", "(a+)+b", "\\s*\\s*x", ".*x", "a\\w*x",
                                     "x[^y]*y", "a?a?aa", "(a|ab)*c", "(\\w)\\1", "a+?b", "(?=a)a", "\\Ba",
                                     "[\\S]+x", "[a-z]+@[a-z]+\\.com"])
def test_patterns_that_can_backtrack_for_long_keep_the_budgeted_match(pattern: str) -> None:
    """Nested quantifiers, overlapping neighbours, a first character a later run also takes
    (quadratic over search start points), alternation, backreferences, lookarounds: not proven."""
    assert not linear_time(pattern)
    assert compile_js_regex(pattern).fast is None


def test_a_catastrophic_pattern_still_hits_the_budget() -> None:
    from tftui.scoring.scorers import evaluate_scorer

    before = default_budget()
    set_default_budget(0.05)
    try:
        result = evaluate_scorer({"type": "regex", "pattern": "^(a|a)*$"}, 0, "a" * 48 + "!")
    finally:
        set_default_budget(before)
    assert result.detail == "regex timed out after 50ms (catastrophic backtracking?): /^(a|a)*$/"


def test_a_long_pattern_or_a_long_text_keeps_the_budget() -> None:
    # Linear is not enough: a search costs text length x positions, so both stay small.
    long_pattern = "x\\d*" * 40 + "z"
    assert not linear_time(long_pattern) and linear_time("x\\d*" * 8 + "z")
    from tftui.scoring.scorers import evaluate_scorer

    budgeted: list[str] = []
    import tftui.scoring.scorers as scorers

    real = scorers.search_within
    def spy(*args: Any, **kwargs: Any) -> bool:
        budgeted.append("budget")
        return real(*args, **kwargs)

    scorers.search_within = spy  # type: ignore[assignment]
    try:
        evaluate_scorer({"type": "regex", "pattern": "x\\d*z"}, 0, "x1z")
        assert budgeted == []
        evaluate_scorer({"type": "regex", "pattern": "x\\d*z"}, 0, "x1" * 40_000 + "z")
        assert budgeted == ["budget"]
    finally:
        scorers.search_within = real  # type: ignore[assignment]


_SURROGATES = st.sampled_from(['"\\ud800"', '"\\uDC00"', '"a\\ud83d\\ude00b"', '"\\\\ud800"', '"\\ud83d\\u0041"', '"é"', '1'])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["", "Here: ", "é ", "[", "{\"k\": ", "\\ud800 "]), st.lists(_SURROGATES, min_size=1, max_size=3),
       st.sampled_from(["", "]", "}", " trailing", ", x]", " \\u"]))
def test_strict_json_reads_surrogate_escapes_around_prose_as_json_does(prefix: str, values: list[str],
                                                                       suffix: str) -> None:
    """msgspec names where it failed; the escapes before that place decide whether `json` is asked."""
    for text in (prefix + ", ".join(values) + suffix, prefix + "[" + ", ".join(values) + "]" + suffix):
        got, want = strict_json(text), _reference(text)
        assert (got is MISSING) == (want is MISSING), text
        if want is not MISSING:
            assert repr(got) == repr(want)


_SPACE = st.sampled_from(["", " ", "\n", "\r\n", "\t", " \n ", "\u00a0", "\ufeff", "\v", "\n\u3000", "\f ", " " * 70])


def _reference_lenient(text: str) -> Any:
    """docs/language.md §3.4 spelled out with `json`, JS trim and the fence regex: the oracle."""
    import re

    from tftui.lang.values import js_trim

    body = js_trim(text)
    if not body:
        return MISSING
    value = _reference(body)
    if value is not MISSING:
        return value
    blocks = [(m.group(1), m.group(2)) for m in re.finditer(r"```([^`\n]*?)\r?\n([\s\S]*?)```", body)]
    for _info, block in [b for b in blocks if b[0].strip().lower() == "json"] + [
            b for b in blocks if b[0].strip().lower() != "json"]:
        value = _reference(js_trim(block))
        if value is not MISSING:
            return value
    starts = [i for i in (body.find("["), body.find("{")) if i >= 0]
    if starts:
        end = body.rfind("]" if body[min(starts)] == "[" else "}")
        if end > min(starts):
            return _reference(body[min(starts): end + 1])
    return MISSING


@settings(max_examples=120, deadline=None)
@given(st.one_of(_JSON.map(json.dumps), _RAW), _SPACE, _SPACE,
       st.sampled_from(["{}", "```json\n{}\n```", "```json\n{}```", "Sure:\n```\n{}\n```\nok", "x {} y", "{} z"]))
def test_lenient_parse_trims_as_javascript_does(body: str, before: str, after: str, frame: str) -> None:
    """Whitespace around a reply or a fenced block, JSON's own or only JavaScript's (U+00A0,
    U+FEFF, \\v, long runs): the parse reads what the reference reads, read by `json`."""
    for reply in (before + body + after, frame.replace("{}", before + body + after), before + frame.replace("{}", body)):
        assert repr(lenient_parse(reply)) == repr(_reference_lenient(reply)), reply


# --- contracts -------------------------------------------------------------------------------------

_SCHEMAS = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["object", "array", "string", "bogus", 3]),
    "required": st.one_of(st.lists(st.sampled_from(["a", "b", "toString", "constructor", 7]), max_size=3),
                          st.just("a")),
    "properties": st.one_of(st.just({}), st.just({"a": {"type": "string"}}), st.just([])),
    "items": st.just({"type": "number"}),
    "enum": st.one_of(st.just([]), st.just([{"a": 1}]), st.just("x")),
})
_VALUES = st.one_of(st.dictionaries(st.sampled_from(["a", "b", "c", "toString"]), st.integers(0, 2) | st.text(max_size=2),
                                    max_size=4), st.lists(st.integers(0, 3), max_size=2), st.integers(), st.none())


@settings(max_examples=300, deadline=None)
@given(_SCHEMAS, _VALUES)
def test_a_plain_object_contract_skips_its_check_only_when_it_holds(schema: dict, value: Any) -> None:
    """The shortcut of a plain object contract (lang.contract.plan_contract) says "holds" exactly
    when the full check finds no violation, for any object; other contracts get no shortcut."""
    from tftui.lang.contract import contract_violations, plan_contract

    keys = plan_contract(schema).object_keys
    violations = contract_violations(value, schema)
    if keys is not None and type(value) is dict:
        assert (value.keys() >= keys) == (violations == [])
    if schema.get("type") in ("object", None) and not schema.get("properties") and "enum" not in schema and (
            "items" not in schema or "required" in schema or schema.get("type") == "object"):
        assert keys is not None  # a plain object contract gets its shortcut
