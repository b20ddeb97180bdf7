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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from tftui.flow.score_shape import ScorerSpec, is_num, score_shape_errors
from tftui.lang.contract import Check, plan_contract, snapshot
from tftui.lang.jsonish import lenient_parse_recent
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


@dataclass(frozen=True, slots=True)
class ScorerResult:
    """One scorer's verdict on one target. Frozen: a passing scorer hands out one shared result."""

    name: str
    type: str
    passed: bool
    score: int  # 1 or 0
    detail: str | None = None
    # A regex match cut at its time budget (docs/trust.md §3); `detail` says so in words.
    timed_out: bool = False

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


# Each scorer object is compiled once into a plan: its name and type, and a run function
# `(target, regex budget or None, offload) -> None when it passes, else the detail`, with the
# scorer's fields already read, its pattern translated and its contract compiled. Details are
# built only on failure. A plan is cheap to build (a flow's scorers are mostly evaluated once per
# run, a gate each), and cached by the scorer object from its second evaluation (its id,
# confirmed by equality with a snapshot, so an in-place edit is planned again: docs/gates.md §4).
#
# The common scorers also get a quick check: their passing test, made in `evaluate_scorer`
# itself from the plan's arguments, without a call (a third of a four-scorer round went to
# calls). The run function stays the whole rule: a quick check only ever says "passes" where
# the run function passes; otherwise the run function decides, and words the failure.

_Run = Callable[[str, "float | None", bool], "str | None"]
_NO_QUICK, _QUICK_CONTAINS, _QUICK_LENGTH, _QUICK_SEARCH, _QUICK_KEYS, _QUICK_MANY_KEYS = range(6)
# (run function, quick check, its two arguments)
_Compiled = tuple[_Run, int, object, object]


class _TimedOut(Exception):
    """A regex match cut at its budget (docs/trust.md §3); `args[0]` is the detail users see."""


def _exact_match(scorer: ScorerSpec) -> _Compiled:
    value = scorer.get("value")
    expected = "" if value is None else value

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        if isinstance(expected, str) and target == expected:
            return None
        return f"target ({len(target)} chars) !== value ({len(js_string(expected))} chars)"

    return run, _NO_QUICK, None, None


def _contains(scorer: ScorerSpec) -> _Compiled:
    value = _text_field(scorer, "value")

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        if value in target:
            return None
        quoted = js_json_stringify(value, None)
        return f"target does not contain {quoted[:80] + '…' if len(quoted) > 80 else quoted}"

    return run, _QUICK_CONTAINS, value, None


def _regex(scorer: ScorerSpec) -> _Compiled:
    pattern = _text_field(scorer, "pattern")
    compiled = compile_js_regex(pattern)
    fast = compiled.fast.search if compiled.fast is not None else None
    slow, error = compiled.regex, compiled.error
    negate = scorer.get("negate")
    negated = negate is not None and negate is not False and _js_truthy(negate)

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        if fast is not None and len(target) <= FAST_MAX_TEXT:  # proven linear, small: no budget (docs/trust.md §3)
            matched = fast(target) is not None
        elif slow is None:
            return error
        else:
            budget = default_budget() if budget_s is None else budget_s
            try:
                matched = search_within(slow, target, budget, offload=offload)
            except TimeoutError:  # docs/trust.md §3: the match is cut at its budget, negated or not
                raise _TimedOut(timeout_detail(pattern, budget)) from None
        if matched != negated:
            return None
        return f"/{pattern}/ matched (negated)" if negated else f"/{pattern}/ did not match"

    if fast is None or negated:
        return run, _NO_QUICK, None, None
    return run, _QUICK_SEARCH, fast, None  # passes when len(target) <= FAST_MAX_TEXT and fast(target) matches


def _json_schema(scorer: ScorerSpec) -> _Compiled:
    schema = scorer.get("schema")
    try:
        check: Check | None
        check, keys = plan_contract(schema)
    except Exception:  # too deep: it fails in the run, after the target's parse, as it always did
        check, keys = None, None

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        parsed = lenient_parse_recent(target)  # docs/language.md §3.4, the whole target first
        if parsed is MISSING:
            return "target is not valid JSON"
        violations: list[str] = []
        (check if check is not None else plan_contract(schema).check)(parsed, "$", violations)
        return "; ".join(violations) if violations else None

    # a plain object contract holds when the parsed target is a dict with these keys (lang.contract)
    if keys is None:
        return run, _NO_QUICK, None, None
    if len(keys) > 2:
        return run, _QUICK_MANY_KEYS, tuple(keys), None
    first, second = (*keys, None, None)[:2]  # (None: no key; two `in` cost half a loop over them)
    return run, _QUICK_KEYS, first, second


def _length_range(scorer: ScorerSpec) -> _Compiled:
    given_low, given_high = scorer.get("min"), scorer.get("max")
    low = given_low if type(given_low) is int or is_num(given_low) else None
    high = given_high if type(given_high) is int or is_num(given_high) else None

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        length = len(target)  # code points (tftui decision R7; JS counts UTF-16 units)
        if (low is None or length >= low) and (high is None or length <= high):
            return None
        bounds = f"[{js_number_str(low if low is not None else 0)}, {'∞' if high is None else js_number_str(high)}]"
        return f"length {length} outside {bounds}"

    if low is None or high is None:
        return run, _NO_QUICK, None, None
    return run, _QUICK_LENGTH, low, high  # passes when low <= len(target) <= high


def _impure_run(target: str, budget_s: float | None, offload: bool) -> str | None:
    return IMPURE_DETAIL


def _impure(scorer: ScorerSpec) -> _Compiled:
    return _impure_run, _NO_QUICK, None, None


_COMPILERS: dict[str, Callable[[ScorerSpec], _Compiled]] = {
    "exact-match": _exact_match,
    "contains": _contains,
    "regex": _regex,
    "json-schema": _json_schema,
    "length-range": _length_range,
    "code-compiles": _impure,
}


def _unknown(type_: str) -> _Run:
    detail = f"unknown scorer type '{type_}'"

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        return detail

    return run


def _raising(exc: Exception) -> _Run:
    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        raise exc

    return run


# The passing result of each (name, type), shared by every scorer that has them (results are
# frozen): a gate evaluated once per run does not build one.
_PASSING: dict[tuple[str, str], ScorerResult] = {}


class _Plan:
    """What evaluating one scorer object needs, worked out once."""

    __slots__ = ("spec", "snapshot", "type", "name", "run", "quick", "arg", "arg2", "cacheable", "index", "result")

    def __init__(self, scorer: ScorerSpec) -> None:
        type_ = scorer.get("type")
        if type(type_) is not str:
            type_ = js_string(MISSING if type_ is None and "type" not in scorer else type_)
        name = scorer.get("name")
        if type(name) is not str or not (name := js_trim(name)):
            name = None  # "<type>-<index>"
        self.spec: object = None
        self.snapshot: object = None
        self.type: str = type_
        self.name: str | None = name
        self.cacheable = True
        self.quick, self.arg, self.arg2 = _NO_QUICK, None, None
        compiler = _COMPILERS.get(type_)
        if compiler is None:
            self.run: _Run = _unknown(type_)
        else:
            try:
                self.run, self.quick, self.arg, self.arg2 = compiler(scorer)
            except Exception as exc:  # a field that cannot be read fails the run, as when read per call
                self.run, self.cacheable = _raising(exc), False
        self.index = -1  # the index of the last passing result handed out (the name may need it)
        self.result: ScorerResult | None = None

    def passed(self, index: int) -> ScorerResult:
        key = (self.name or f"{self.type}-{index}", self.type)
        result = _PASSING.get(key)
        if result is None:
            if len(_PASSING) >= _PLANS_MAX:
                _PASSING.clear()
            result = _PASSING[key] = ScorerResult(key[0], key[1], True, 1)
        self.index, self.result = index, result
        return result


_PLANS: dict[int, _Plan] = {}
_PLANS_MAX = 4096
# The last cached plan evaluated at each index (a list read costs a tenth of the id lookup);
# confirmed like a plan found by id. `_NO_PLAN` is no scorer's.
_AT_INDEX_MAX = 64
_NO_PLAN = _Plan({})
_NO_PLAN.spec = object()
_AT_INDEX: list[_Plan] = [_NO_PLAN] * _AT_INDEX_MAX


_SEEN: dict[int, object] = {}  # scorer objects planned once, without a snapshot


def _cached_plan(scorer: dict[str, JSONValue]) -> _Plan:
    """The plan of a scorer object, cached from its second evaluation on: a flow's scorers are
    mostly evaluated once per run (a gate each), where a snapshot would cost more than it saves."""
    key = id(scorer)
    if _SEEN.get(key) is not scorer:
        if len(_SEEN) >= _PLANS_MAX:
            _SEEN.clear()
        _SEEN[key] = scorer  # kept alive: its id is not reused
        return _Plan(scorer)
    try:
        copy = snapshot(scorer)
    except RecursionError:  # too deep to copy: planned on every call
        return _Plan(scorer)
    plan = _Plan(scorer)
    if plan.cacheable:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        plan.spec, plan.snapshot = scorer, copy  # the object is kept alive: its id is not reused
        _PLANS[id(scorer)] = plan
    return plan


def evaluate_scorer(
    scorer: JSONValue, index: int, target: str, regex_budget_s: float | None = None, offload: bool = False
) -> ScorerResult:
    """Run one pure scorer on `target`; never raises.

    A `regex` match gets `regex_budget_s` (default: `tftui.lang.jsregex.default_budget()`);
    `offload` says the call runs in a worker thread (the match then releases the GIL).
    (The two options are not keyword-only: a call then costs a fifth less.)"""
    try:
        plan = _AT_INDEX[index]  # the plan last cached at this index: a gate's scorers, in order
    except (IndexError, TypeError):
        plan = _NO_PLAN
    if plan.spec is not scorer or plan.snapshot != scorer:
        plan = _PLANS.get(id(scorer))  # type: ignore[assignment]
        if plan is None or plan.spec is not scorer or plan.snapshot != scorer:  # (only dicts are cached)
            if type(scorer) is dict:
                plan = _cached_plan(scorer)
            elif isinstance(scorer, Mapping):  # (the abc check is slow)
                plan = _Plan(scorer)
            else:
                return ScorerResult(
                    f"undefined-{index}", "undefined", False, 0, "scorer must be an object with a 'type'"
                )
        if plan.spec is scorer and type(index) is int and 0 <= index < _AT_INDEX_MAX:
            _AT_INDEX[index] = plan
    try:
        if type(target) is not str:
            target = js_string(target)
        quick = plan.quick
        if quick:  # (tested in halves: two compares a scorer)
            if quick < _QUICK_SEARCH:
                if quick == _QUICK_CONTAINS:
                    passed = plan.arg in target  # type: ignore[operator]
                else:  # _QUICK_LENGTH
                    passed = plan.arg <= len(target) <= plan.arg2  # type: ignore[operator]
            elif quick == _QUICK_SEARCH:  # proven linear, small: no budget (docs/trust.md §3)
                search = plan.arg  # (an attribute read, then a call: no method lookup)
                passed = len(target) <= FAST_MAX_TEXT and search(target) is not None  # type: ignore[operator]
            else:  # a dict holding each key (`keys() >= set` costs more than a loop, a loop twice two `in`)
                parsed = lenient_parse_recent(target)
                passed = type(parsed) is dict
                if passed and quick == _QUICK_KEYS:
                    first, second = plan.arg, plan.arg2
                    passed = (first is None or first in parsed) and (second is None or second in parsed)
                elif passed:  # _QUICK_MANY_KEYS
                    for key in plan.arg:  # type: ignore[attr-defined]
                        if key not in parsed:
                            passed = False
                            break
            if passed:
                return plan.result if plan.index == index else plan.passed(index)  # type: ignore[return-value]
        detail = plan.run(target, regex_budget_s, offload)
    except _TimedOut as cut:
        return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, cut.args[0], True)
    except Exception as exc:  # scorers never raise (docs/gates.md §4)
        return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, f"scorer error: {exc}")
    if detail is None:
        return plan.result if plan.index == index else plan.passed(index)  # type: ignore[return-value]
    return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, detail)
