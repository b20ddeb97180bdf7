"""A scorer's type and name are worked out once per scorer object (issue 18) and again when the
object is edited in place: the result always reflects the scorer as it is now."""

from __future__ import annotations

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
