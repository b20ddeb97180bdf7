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
from tftui.lang.jsonish import lenient_parse
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

_Run = Callable[[str, "float | None", bool], "str | None"]


class _TimedOut(Exception):
    """A regex match cut at its budget (docs/trust.md §3); `args[0]` is the detail users see."""


def _exact_match(scorer: ScorerSpec) -> _Run:
    value = scorer.get("value")
    expected = "" if value is None else value

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        if isinstance(expected, str) and target == expected:
            return None
        return f"target ({len(target)} chars) !== value ({len(js_string(expected))} chars)"

    return run


def _contains(scorer: ScorerSpec) -> _Run:
    value = _text_field(scorer, "value")

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        if value in target:
            return None
        quoted = js_json_stringify(value, None)
        return f"target does not contain {quoted[:80] + '…' if len(quoted) > 80 else quoted}"

    return run


def _regex(scorer: ScorerSpec) -> _Run:
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
        return run

    def run_fast(target: str, budget_s: float | None, offload: bool) -> str | None:
        if len(target) <= FAST_MAX_TEXT and fast(target) is not None:  # the common case, in one step
            return None
        return run(target, budget_s, offload)

    return run_fast


# The last few parsed targets: re-scoring the same text (onBlock rounds with an unchanged
# output, a gate re-run after editing its scorers, several json-schema scorers on one
# target) parses it once. Values are only read, never handed out. Full, it starts again
# empty: each step is one dict operation, safe without a lock for the what-if answers that
# score in worker threads beside the run (a lock and dropping the oldest cost 0.9 us a miss,
# as much as parsing a short target).
_PARSED: dict[str, JSONValue] = {}
_PARSED_MAX = 8
_UNSEEN: JSONValue = object()


def _parse_target(target: str) -> JSONValue:
    value = _PARSED.get(target, _UNSEEN)  # (a KeyError raised and caught costs more than the parse)
    return _parse_new(target) if value is _UNSEEN else value


def _parse_new(target: str) -> JSONValue:
    value = lenient_parse(target)  # docs/language.md §3.4, the whole target first
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[target] = value
    return value


def _json_schema(scorer: ScorerSpec) -> _Run:
    schema = scorer.get("schema")
    try:
        check: Check | None
        check, keys = plan_contract(schema)
    except Exception:  # too deep: it fails in the run, after the target's parse, as it always did
        check, keys = None, None

    def run(target: str, budget_s: float | None, offload: bool) -> str | None:
        parsed = _PARSED.get(target, _UNSEEN)
        if parsed is _UNSEEN:
            parsed = _parse_new(target)
        if keys is not None and type(parsed) is dict and parsed.keys() >= keys:
            return None  # a plain object contract that holds: no violations to list (lang.contract)
        if parsed is MISSING:
            return "target is not valid JSON"
        violations: list[str] = []
        (check if check is not None else plan_contract(schema).check)(parsed, "$", violations)
        return "; ".join(violations) if violations else None

    return run


def _length_range(scorer: ScorerSpec) -> _Run:
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
        return run

    def run_between(target: str, budget_s: float | None, offload: bool) -> str | None:
        return None if low <= len(target) <= high else run(target, budget_s, offload)

    return run_between


def _impure_run(target: str, budget_s: float | None, offload: bool) -> str | None:
    return IMPURE_DETAIL


def _impure(scorer: ScorerSpec) -> _Run:
    return _impure_run


_COMPILERS: dict[str, Callable[[ScorerSpec], _Run]] = {
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

    __slots__ = ("spec", "snapshot", "type", "name", "run", "cacheable", "index", "result")

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
        compiler = _COMPILERS.get(type_)
        if compiler is None:
            self.run: _Run = _unknown(type_)
        else:
            try:
                self.run = compiler(scorer)
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
    scorer: JSONValue, index: int, target: str, *, regex_budget_s: float | None = None, offload: bool = False
) -> ScorerResult:
    """Run one pure scorer on `target`; never raises.

    A `regex` match gets `regex_budget_s` (default: `tftui.lang.jsregex.default_budget()`);
    `offload` says the call runs in a worker thread (the match then releases the GIL)."""
    plan = _PLANS.get(id(scorer))
    if plan is None or plan.spec is not scorer or plan.snapshot != scorer:  # (only dicts are cached)
        if type(scorer) is dict:
            plan = _cached_plan(scorer)
        elif isinstance(scorer, Mapping):  # (the abc check is slow)
            plan = _Plan(scorer)
        else:
            return ScorerResult(
                f"undefined-{index}", "undefined", False, 0, "scorer must be an object with a 'type'"
            )
    try:
        if type(target) is not str:
            target = js_string(target)
        detail = plan.run(target, regex_budget_s, offload)
    except _TimedOut as cut:
        return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, cut.args[0], True)
    except Exception as exc:  # scorers never raise (docs/gates.md §4)
        return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, f"scorer error: {exc}")
    if detail is None:
        return plan.result if plan.index == index else plan.passed(index)  # type: ignore[return-value]
    return ScorerResult(plan.name or f"{plan.type}-{index}", plan.type, False, 0, detail)
