"""Conformance vectors for the language core: every case must match `expect` (normative)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tftui.lang.condition import evaluate
from tftui.lang.interpolate import Context, StepView, interpolate, interpolate_value
from tftui.lang.values import MISSING
from tftui.lang.verdict import parse_gate_verdict, parse_judge_output, parse_tournament_winner

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def load_cases(kind: str) -> list[dict[str, Any]]:
    return json.loads((CONFORMANCE / f"{kind}.json").read_text(encoding="utf-8"))["cases"]


def cases(kind: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in load_cases(kind)]


def make_context(raw: dict[str, Any]) -> Context:
    """Vector ctx → Context. An absent `json` is undefined (lenient parse of output); `json: null`
    falls back the same way (the reference uses `??`), which StepView does itself."""
    steps = {
        step_id: StepView(
            output=step.get("output", ""),
            json=step["json"] if "json" in step else MISSING,
            status=step.get("status", "done"),
            error=step.get("error"),
        )
        for step_id, step in raw.get("steps", {}).items()
    }
    return Context(
        args=raw.get("args", {}),
        steps=steps,
        previous_output=raw.get("previousOutput"),
        locals=raw.get("locals", {}),
        reflexion=raw.get("reflexion"),
    )


def same_json(actual: Any, expected: Any) -> bool:
    """Equality that also tells bool from int (JSON true is not 1)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same_json(actual[k], expected[k]) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same_json(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return actual == expected


@pytest.mark.parametrize("case", cases("condition"))
def test_condition(case: dict[str, Any]) -> None:
    result = evaluate(case["input"]["expr"], make_context(case["input"]["ctx"]))
    expect = case["expect"]
    assert result.value is expect["value"]
    assert (result.error is not None) is expect["error"]
    if "error_message" in expect:
        assert result.error == expect["error_message"]


@pytest.mark.parametrize("case", cases("interpolate"))
def test_interpolate(case: dict[str, Any]) -> None:
    result = interpolate(case["input"]["template"], make_context(case["input"]["ctx"]))
    assert result.text == case["expect"]["text"]
    assert result.missing == case["expect"]["missing"]


@pytest.mark.parametrize("case", cases("interpolate_value"))
def test_interpolate_value(case: dict[str, Any]) -> None:
    value = interpolate_value(case["input"]["value"], make_context(case["input"]["ctx"]))
    assert (value is MISSING) is case["expect"]["is_undefined"]
    if value is not MISSING:
        assert same_json(value, case["expect"]["value"])


@pytest.mark.parametrize("case", cases("gate_verdict"))
def test_gate_verdict(case: dict[str, Any]) -> None:
    result = parse_gate_verdict(case["input"]["text"])
    assert result.verdict == case["expect"]["verdict"]
    if result.verdict == "pass" and not result.parsed:
        assert result.reason == "unparseable gate verdict (fail-open)"


@pytest.mark.parametrize("case", cases("tournament_winner"))
def test_tournament_winner(case: dict[str, Any]) -> None:
    result = parse_tournament_winner(case["input"]["text"], case["input"]["count"])
    assert result.index == case["expect"]["winner"]
    if "reference_reason" in case:
        assert result.reason == case["reference_reason"]


@pytest.mark.parametrize("case", cases("judge_output"))
def test_judge_output(case: dict[str, Any]) -> None:
    result = parse_judge_output(case["input"]["text"])
    expect = case["expect"]
    assert math.isclose(result.score, expect["score"], abs_tol=1e-12)
    assert result.verdict == expect["verdict"]
    assert result.parsed is expect["parsed"]
    if not result.parsed:
        assert result.reason == "unparseable judge output (fail-open)"
