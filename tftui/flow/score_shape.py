"""The shape of a gate's `score` block (docs/gates.md §4): which scorers, keys and values a flow may hold.

Part of the flow format, so `tftui check` (via `tftui.flow.checks_phase`) and the gate
pipeline (`tftui.scoring`) report the same errors. Messages carry no `Phase '<id>': `
prefix; the caller adds it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeGuard

from tftui.lang.contract import contract_shape_errors
from tftui.lang.values import JSONValue, js_number_str, js_trim

SCORER_TYPES = ("exact-match", "contains", "regex", "json-schema", "length-range", "code-compiles")
LANGUAGES = ("javascript", "typescript", "python")
SCORE_KEYS = ("target", "scorers", "combine", "weights", "threshold", "judge")
COMBINE_MODES = ("all", "any", "weighted")
ALLOWED_FIELDS: dict[str, tuple[str, ...]] = {
    "exact-match": ("type", "name", "value"),
    "contains": ("type", "name", "value"),
    "regex": ("type", "name", "pattern", "negate"),
    "json-schema": ("type", "name", "schema"),
    "length-range": ("type", "name", "min", "max"),
    "code-compiles": ("type", "name", "language"),
}

# One entry of a gate's `score.scorers`, as the flow file has it: evaluation also accepts
# scorers that never went through shape validation, so the values are any JSON.
ScorerSpec = Mapping[str, JSONValue]


def is_num(value: object) -> TypeGuard[int | float]:
    """A finite JSON number (booleans are not numbers, as in JS)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True  # Python ints are finite (math.isfinite would overflow on huge ones)
    return isinstance(value, float) and math.isfinite(value)


def _scorer_shape_errors(scorer: JSONValue, i: int) -> list[str]:
    at = f"score.scorers[{i}]"
    if not isinstance(scorer, Mapping) or "type" not in scorer:
        return [f"{at}: must be an object with a 'type'"]
    type_ = scorer["type"]
    if type_ not in SCORER_TYPES:
        return [f"{at}.type: must be one of {'|'.join(SCORER_TYPES)}"]
    errors: list[str] = []
    if "name" in scorer and not isinstance(scorer["name"], str):
        errors.append(f"{at}.name: must be a string")
    allowed = ALLOWED_FIELDS[type_]
    for key in scorer:
        if key not in allowed:
            errors.append(f"{at}.{key}: not applicable to '{type_}' scorers (allowed: {', '.join(allowed)})")
    if type_ in ("exact-match", "contains"):
        if not isinstance(scorer.get("value"), str):
            errors.append(f"{at}.value: required string for '{type_}'")
    elif type_ == "regex":
        if not isinstance(scorer.get("pattern"), str):
            errors.append(f"{at}.pattern: required string for 'regex'")
        if "negate" in scorer and not isinstance(scorer["negate"], bool):
            errors.append(f"{at}.negate: must be a boolean")
    elif type_ == "json-schema":
        if "schema" not in scorer:
            errors.append(f"{at}.schema: required for 'json-schema'")
        else:
            errors.extend(contract_shape_errors(scorer["schema"], f"{at}.schema"))
    elif type_ == "length-range":
        errors.extend(_length_range_errors(scorer, at))
    elif scorer.get("language") not in LANGUAGES:
        errors.append(f"{at}.language: must be one of {'|'.join(LANGUAGES)}")
    return errors


def _length_range_errors(scorer: ScorerSpec, at: str) -> list[str]:
    if "min" not in scorer and "max" not in scorer:
        return [f"{at}: 'length-range' requires 'min' and/or 'max'"]
    errors: list[str] = []
    for key in ("min", "max"):
        if key in scorer and not (is_num(scorer[key]) and scorer[key] >= 0):
            errors.append(f"{at}.{key}: must be a number >= 0")
    low, high = scorer.get("min"), scorer.get("max")
    if not errors and is_num(low) and is_num(high) and low > high:
        errors.append(f"{at}: min ({js_number_str(low)}) must be <= max ({js_number_str(high)})")
    return errors


def score_shape_errors(score: JSONValue) -> list[str]:
    """Shape errors of a gate's `score` block ([] when well-formed)."""
    if not isinstance(score, Mapping):
        return ["score: must be an object ({scorers: [...], combine?, threshold?, judge?})"]
    errors: list[str] = []
    for key in score:
        if key not in SCORE_KEYS:
            errors.append(f"score.{key}: unknown score keyword (supported: {', '.join(SCORE_KEYS)})")
    if "target" in score and not isinstance(score["target"], str):
        errors.append('score.target: must be a string interpolation ref (e.g. "{steps.gen.output}")')
    scorers = score.get("scorers")
    if not isinstance(scorers, list) or not scorers:
        errors.append("score.scorers: must be a non-empty array of scorers")
        scorers = []
    for i, scorer in enumerate(scorers):
        errors.extend(_scorer_shape_errors(scorer, i))
    mode = score.get("combine", "all")
    if mode not in COMBINE_MODES:
        errors.append("score.combine: must be one of all|any|weighted")
    judge = score.get("judge")
    has_judge = "judge" in score
    if mode == "weighted":
        errors.extend(_weighted_errors(score, len(scorers), has_judge))
    elif mode in COMBINE_MODES:
        for key in ("weights", "threshold"):
            if key in score:
                errors.append(f'score.{key}: only valid with combine:"weighted"')
    if has_judge:
        if not isinstance(judge, Mapping):
            errors.append("score.judge: must be an object ({agent?, task})")
        else:
            task = judge.get("task")
            if not isinstance(task, str) or not js_trim(task):
                errors.append("score.judge.task: required non-empty string")
            if "agent" in judge and not isinstance(judge["agent"], str):
                errors.append("score.judge.agent: must be a string agent name")
    return errors


def _weighted_errors(score: ScorerSpec, n: int, has_judge: bool) -> list[str]:
    errors: list[str] = []
    expected = n + (1 if has_judge else 0)
    weights = score.get("weights")
    if not isinstance(weights, list):
        what = "one per scorer, then the judge's" if has_judge else "one per scorer"
        errors.append(f'score.weights: required array for combine:"weighted" ({expected} entries: {what})')
    else:
        if len(weights) != expected:
            errors.append(
                f"score.weights: expected {expected} entries (scorers{' + judge' if has_judge else ''}), got {len(weights)}"
            )
        for i, weight in enumerate(weights):
            if not (is_num(weight) and weight > 0):
                errors.append(f"score.weights[{i}]: must be a number > 0")
    if "threshold" in score:
        threshold = score["threshold"]
        if not (is_num(threshold) and 0 < threshold <= 1):
            errors.append("score.threshold: must be a number in (0, 1]")
    return errors
