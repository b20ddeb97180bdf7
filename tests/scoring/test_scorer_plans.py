"""A scorer's type and name are worked out once per scorer object (issue 18) and again when the
object is edited in place: the result always reflects the scorer as it is now."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.scoring.scorers import evaluate_scorer


def test_an_edited_scorer_is_read_again() -> None:
    scorer: dict = {"type": "contains", "value": "ok", "name": "  first  "}
    assert (evaluate_scorer(scorer, 0, "ok").name, evaluate_scorer(scorer, 0, "ok").passed) == ("first", True)
    scorer["name"] = "second"
    scorer["value"] = "nope"
    result = evaluate_scorer(scorer, 0, "ok")
    assert (result.name, result.passed) == ("second", False)
    del scorer["name"]
    assert evaluate_scorer(scorer, 3, "ok").name == "contains-3"
    scorer["type"] = "regex"
    scorer["pattern"] = "^o"
    result = evaluate_scorer(scorer, 3, "ok")
    assert (result.name, result.type, result.passed) == ("regex-3", "regex", True)
    scorer["type"] = "bogus"
    assert evaluate_scorer(scorer, 3, "ok").detail == "unknown scorer type 'bogus'"


def test_equal_scorers_in_two_objects_each_get_their_own_index_name() -> None:
    a, b = {"type": "length-range", "min": 1}, {"type": "length-range", "min": 1}
    assert [evaluate_scorer(s, i, "x").name for i, s in enumerate((a, b, a))] == [
        "length-range-0", "length-range-1", "length-range-2"]


def test_an_edit_inside_a_schema_is_read_again() -> None:
    scorer: dict = {"type": "json-schema", "schema": {"type": "object", "required": ["a"]}}
    assert evaluate_scorer(scorer, 0, '{"a": 1}').passed
    scorer["schema"]["required"].append("b")
    assert evaluate_scorer(scorer, 0, '{"a": 1}').detail == "$.b: required key is missing"


def test_a_regex_cut_at_its_budget_says_so_in_a_flag_and_in_words() -> None:
    result = evaluate_scorer({"type": "regex", "pattern": "^(a|a)*$"}, 0, "a" * 40 + "!", regex_budget_s=0.01)
    assert result.timed_out and result.detail == "regex timed out after 10ms (catastrophic backtracking?): /^(a|a)*$/"
    assert not evaluate_scorer({"type": "regex", "pattern": "^(a|a)*$"}, 0, "aa!", regex_budget_s=1).timed_out


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 90), st.floats(allow_nan=False),
                    st.sampled_from(["", "a", "ok", "\\d+", "^o", "(", "x|y", "  nm  "]),
                    st.lists(st.sampled_from(["a", "k"]), max_size=2))
_SCORERS = st.fixed_dictionaries(
    {"type": st.sampled_from(["contains", "exact-match", "regex", "json-schema", "length-range", "code-compiles",
                              "bogus"])},
    optional={"name": _VALUES, "value": _VALUES, "pattern": _VALUES, "negate": _VALUES, "min": _VALUES,
              "max": _VALUES,
              "schema": st.fixed_dictionaries({}, optional={"type": st.sampled_from(["object", "array", "string"]),
                                                            "required": st.lists(st.sampled_from(["a", "k"]))})})
_TARGETS = st.sampled_from(["", "ok", "a1", '{"a": 1}', '{"k": "ok"}', "[1]", " x ", "```json\n{\"a\": 2}\n```"])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(_SCORERS, _TARGETS, st.integers(0, 3)), min_size=1, max_size=4),
       st.lists(st.tuples(st.sampled_from(["name", "value", "pattern", "min", "type"]), _VALUES), max_size=3))
def test_a_planned_scorer_answers_as_one_read_afresh(cases: list[tuple[dict, str, int]],
                                                     edits: list[tuple[str, object]]) -> None:
    """The cached plan of a scorer object equals a scorer read on every call (a read-only view
    of it is never cached), before and after in-place edits."""
    for scorer, target, index in cases:
        for key, value in [("", None), *edits]:
            if key:
                scorer[key] = value
            cached, afresh = evaluate_scorer(scorer, index, target), evaluate_scorer(MappingProxyType(scorer), index, target)
            assert cached == afresh


@settings(max_examples=60, deadline=None)
@given(_SCORERS, _TARGETS | st.text(alphabet='ok{}"a:1 \n`', max_size=12), st.integers(0, 3))
def test_a_quick_check_passes_exactly_where_the_run_function_does(scorer: dict, target: str, index: int) -> None:
    """evaluate_scorer decides the common scorers without calling their run function; its verdict
    and detail are the run function's (the whole rule) on every scorer and target."""
    from tftui.scoring.scorers import _Plan

    plan = _Plan(scorer)
    try:
        detail = plan.run(target, None, False)
    except Exception:  # a field that cannot be read or a timeout: worded by evaluate_scorer
        return
    for _ in range(2):  # planned afresh, then cached
        result = evaluate_scorer(scorer, index, target)
        assert (result.passed, result.detail) == (detail is None, detail)
