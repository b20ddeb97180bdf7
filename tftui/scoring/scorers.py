"""The pure scorers of a scoring gate (docs/gates.md §4).

`evaluate_scorer` never raises: a bad configuration fails that scorer with a detail.
It also accepts scorers that never went through shape validation and then behaves
like the reference (a missing `value`/`pattern` counts as "", a non-object `schema`
only requires the target to parse, non-numeric length bounds are ignored).
`code-compiles` is impure: the runtime runs it through `tftui.scoring.compile`;
the pure evaluator fails it with the documented message (docs/gates.md §4.4).

Regex patterns are JavaScript patterns, translated and compiled once per pattern
text (`tftui.lang.jsregex`, which documents the remaining dialect differences); a match that
runs out of its time budget fails the scorer (docs/trust.md §3).
Contracts are compiled once per schema object (`tftui.lang.contract`). The `score`
block's shape errors are part of the flow format (`tftui.flow.score_shape`, re-exported
here).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from tftui.flow.score_shape import ScorerSpec, is_num, score_shape_errors
from tftui.lang.contract import compile_contract
from tftui.lang.jsonish import lenient_parse, strict_json
from tftui.lang.jsregex import FAST_MAX_TEXT, compile_js_regex, default_budget, search_within, timeout_detail
from tftui.lang.values import MISSING, JSONValue, js_json_stringify, js_number_str, js_trim

__all__ = [
    "IMPURE_DETAIL", "ScorerResult", "ScorerSpec", "evaluate_scorer", "js_string", "score_shape_errors", "scorer_name",
]

IMPURE_DETAIL = "code-compiles must be evaluated by the runtime (impure scorer)"



class ScorerResultJSON(TypedDict):
    """A `ScorerResult` as stored in the gate's `json.results` and in traces."""

    name: str
    type: str
    passed: bool
    score: int
    detail: NotRequired[str]


@dataclass(slots=True)
class ScorerResult:
    name: str
    type: str
    passed: bool
    score: int  # 1 or 0
    detail: str | None = None

    def to_json(self) -> ScorerResultJSON:
        """`{name, type, passed, score, detail?}` as stored in the gate's `json.results`."""
        data: ScorerResultJSON = {
            "name": self.name,
            "type": self.type,
            "passed": self.passed,
            "score": self.score,
        }
        if self.detail is not None:
            data["detail"] = self.detail
        return data


def js_string(value: JSONValue) -> str:
    """JavaScript `String(value)` for the values a flow file can hold."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is MISSING:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_str(value)
    if isinstance(value, list):
        return ",".join("" if v is None or v is MISSING else js_string(v) for v in value)
    return "[object Object]"


def scorer_name(scorer: JSONValue, index: int) -> str:
    """Trimmed `name` if non-empty, else `<type>-<index>`."""
    if isinstance(scorer, Mapping):
        name = scorer.get("name")
        if isinstance(name, str) and js_trim(name):
            return js_trim(name)
        return f"{js_string(scorer.get('type', MISSING))}-{index}"
    return f"undefined-{index}"


def _js_truthy(value: JSONValue) -> bool:
    if isinstance(value, (str, bool, int, float)) or value is None or value is MISSING:
        return bool(value) and not (isinstance(value, float) and math.isnan(value))
    return True  # objects and arrays, even empty ones


def _text_field(scorer: ScorerSpec, key: str) -> str:
    value = scorer.get(key)
    return value if type(value) is str else ("" if value is None else js_string(value))


# Each check returns (passed, detail-or-None); details are built only on failure.


def _exact_match(scorer: ScorerSpec, target: str) -> tuple[bool, str | None]:
    value = scorer.get("value")
    expected = "" if value is None else value
    if isinstance(expected, str) and target == expected:
        return True, None
    return False, f"target ({len(target)} chars) !== value ({len(js_string(expected))} chars)"


def _contains(scorer: ScorerSpec, target: str) -> tuple[bool, str | None]:
    value = _text_field(scorer, "value")
    if value in target:
        return True, None
    quoted = js_json_stringify(value, None)
    return False, f"target does not contain {quoted[:80] + '…' if len(quoted) > 80 else quoted}"


def _regex(
    scorer: ScorerSpec, target: str, budget_s: float | None = None, offload: bool = False
) -> tuple[bool, str | None]:
    pattern = _text_field(scorer, "pattern")
    compiled = compile_js_regex(pattern)
    if compiled.fast is not None and len(target) <= FAST_MAX_TEXT:  # proven linear, small: no budget (docs/trust.md §3)
        matched = compiled.fast.search(target) is not None
    elif compiled.regex is None:
        return False, compiled.error
    else:
        budget = default_budget() if budget_s is None else budget_s
        try:
            matched = search_within(compiled.regex, target, budget, offload=offload)
        except TimeoutError:  # docs/trust.md §3: the match is cut at its budget
            return False, timeout_detail(pattern, budget)
    negate = scorer.get("negate")
    if negate is not None and negate is not False and _js_truthy(negate):
        return (True, None) if not matched else (False, f"/{pattern}/ matched (negated)")
    return (True, None) if matched else (False, f"/{pattern}/ did not match")


# The last few parsed targets: re-scoring the same text (onBlock rounds with an unchanged
# output, a gate re-run after editing its scorers, several json-schema scorers on one
# target) parses it once. Values are only read, never handed out.
_PARSED: dict[str, JSONValue] = {}
_PARSED_MAX = 8
_PARSED_LOCK = threading.Lock()


def _parse_target(target: str) -> JSONValue:
    try:
        return _PARSED[target]
    except KeyError:
        pass
    value = strict_json(js_trim(target))  # the common case: the whole target is JSON (docs/language.md §3.4 step 1)
    if value is MISSING:
        value = lenient_parse(target)  # empty, fenced blocks, bracket slice (and step 1 again)
    with _PARSED_LOCK:  # what-if answers score in worker threads beside the run
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)), None)
        _PARSED[target] = value
    return value


def _json_schema(scorer: ScorerSpec, target: str) -> tuple[bool, str | None]:
    parsed = _parse_target(target)
    if parsed is MISSING:
        return False, "target is not valid JSON"
    violations: list[str] = []
    compile_contract(scorer.get("schema"))(parsed, "$", violations)
    return (False, "; ".join(violations)) if violations else (True, None)


def _length_range(scorer: ScorerSpec, target: str) -> tuple[bool, str | None]:
    given_low, given_high = scorer.get("min"), scorer.get("max")
    low = given_low if type(given_low) is int or is_num(given_low) else None
    high = given_high if type(given_high) is int or is_num(given_high) else None
    length = len(target)  # code points (tftui decision R7; JS counts UTF-16 units)
    if (low is None or length >= low) and (high is None or length <= high):
        return True, None
    bounds = (
        f"[{js_number_str(low if low is not None else 0)}, {'∞' if high is None else js_number_str(high)}]"
    )
    return False, f"length {length} outside {bounds}"


def _impure(scorer: ScorerSpec, target: str) -> tuple[bool, str | None]:
    return False, IMPURE_DETAIL


_CHECKS = {
    "exact-match": _exact_match,
    "contains": _contains,
    "regex": _regex,
    "json-schema": _json_schema,
    "length-range": _length_range,
    "code-compiles": _impure,
}


_Check = Callable[[ScorerSpec, str], tuple[bool, str | None]]
_PLANS: dict[int, tuple[ScorerSpec, dict[str, JSONValue], tuple[str, str | None, _Check | None]]] = {}
_PLANS_MAX = 4096
_PLAIN = (str, type(None))  # `type` and `name` values a shallow copy can tell apart from edits


def _plan(scorer: ScorerSpec) -> tuple[str, str | None, _Check | None]:
    """(type, trimmed name or None for "<type>-<index>", check or None for an unknown type)."""
    type_ = scorer.get("type")
    if type(type_) is not str:
        type_ = js_string(MISSING if type_ is None and "type" not in scorer else type_)
    name = scorer.get("name")
    if type(name) is not str or not (name := js_trim(name)):
        name = None
    return type_, name, _CHECKS.get(type_)


def regex_timed_out(result: ScorerResult, scorer: JSONValue, budget_s: float) -> bool:
    """Whether `result` is a `regex` scorer that ran out of a `budget_s` budget."""
    if result.type != "regex" or result.passed or not isinstance(scorer, Mapping):
        return False
    return result.detail == timeout_detail(_text_field(scorer, "pattern"), budget_s)


def evaluate_scorer(
    scorer: JSONValue, index: int, target: str, *, regex_budget_s: float | None = None, offload: bool = False
) -> ScorerResult:
    """Run one pure scorer on `target`; never raises.

    A `regex` match gets `regex_budget_s` (default: `tftui.lang.jsregex.default_budget()`);
    `offload` says the call runs in a worker thread (the match then releases the GIL)."""
    if type(scorer) is dict:
        entry = _PLANS.get(id(scorer))
        if entry is not None and entry[0] is scorer and entry[1] == scorer:
            type_, name, check = entry[2]
        else:
            type_, name, check = _plan(scorer)
            if type(scorer.get("type")) in _PLAIN and type(scorer.get("name")) in _PLAIN:
                if len(_PLANS) >= _PLANS_MAX:
                    _PLANS.clear()
                # keep the object (its id is not reused) and a shallow copy: an edited scorer is planned again
                _PLANS[id(scorer)] = (scorer, dict(scorer), (type_, name, check))
    elif isinstance(scorer, Mapping):  # (the abc check is slow)
        type_, name, check = _plan(scorer)
    else:
        return ScorerResult(
            f"undefined-{index}", "undefined", False, 0, "scorer must be an object with a 'type'"
        )
    if name is None:
        name = f"{type_}-{index}"
    if check is None:
        return ScorerResult(name, type_, False, 0, f"unknown scorer type '{type_}'")
    try:
        if type(target) is not str:
            target = js_string(target)
        if type_ == "regex":
            passed, detail = _regex(scorer, target, regex_budget_s, offload)
        else:
            passed, detail = check(scorer, target)
    except Exception as exc:  # scorers never raise (docs/gates.md §4)
        return ScorerResult(name, type_, False, 0, f"scorer error: {exc}")
    return ScorerResult(name, type_, passed, 1 if passed else 0, detail)
