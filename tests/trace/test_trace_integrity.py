"""Trace integrity (SPEC §9.4): each broken trace is an instrumentation error, not a policy result."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tftui.trace.integrity import check_integrity, integrity_error
from tftui.trace.model import TraceColumns, parse_trace
from tftui.trace.report import evaluate_trace
from tftui.trace.rules import RequiredSteps


def good_steps() -> list[dict[str, Any]]:
    return [
        {"id": "r", "parentId": None, "sequence": 0, "name": "flow", "kind": "run", "status": "ok"},
        {"id": "a", "parentId": "r", "sequence": 1, "name": "a", "kind": "model", "status": "ok",
         "attempt": 1, "inputTokens": 1, "outputTokens": 2, "durationMs": 3, "metadata": {"n": 0}},
        {"id": "b", "parentId": "a", "sequence": 2, "name": "b", "kind": "tool", "status": "error"},
    ]


def cols(steps: list[dict[str, Any]], status: str | None = "ok") -> TraceColumns:
    return TraceColumns.from_dicts(steps, fixture="f", status=status)


def mutate(fn) -> list[dict[str, Any]]:  # noqa: ANN001
    steps = good_steps()
    fn(steps)
    return steps


CASES = [
    ("orphan parent", lambda s: s[2].update(parentId="zz"), "unknown parent zz for step b"),
    ("duplicate sequence", lambda s: s[2].update(sequence=1), "duplicate sequence 1"),
    ("duplicate id", lambda s: s[2].update(id="a"), "duplicate id a"),
    ("two roots", lambda s: s[2].update(parentId=None), "expected exactly one root step, found 2"),
    ("no root", lambda s: s[0].update(parentId="b"), "expected exactly one root step, found 0"),
    ("negative tokens", lambda s: s[1].update(inputTokens=-1), "non-finite or negative inputTokens on step a"),
    ("NaN output tokens", lambda s: s[1].update(outputTokens=math.nan),
     "non-finite or negative outputTokens on step a"),
    ("infinite duration", lambda s: s[1].update(durationMs=math.inf), "non-finite or negative durationMs on step a"),
    ("negative sequence", lambda s: s[2].update(sequence=-4), "non-finite or negative sequence on step b"),
    ("attempt zero", lambda s: s[1].update(attempt=0), "attempt 0 below 1 on step a"),
    ("negative metadata number", lambda s: s[1]["metadata"].update(n=-2),
     "non-finite or negative metadata.n on step a"),
    ("forbidden key, any case", lambda s: s[1]["metadata"].update(Prompt="hi"),
     "forbidden payload key 'Prompt' on step a"),
    ("api key", lambda s: s[2].update(metadata={"api_key": "sk-1"}), "forbidden payload key 'api_key' on step b"),
]


@pytest.mark.parametrize(("label", "change", "expected"), CASES, ids=[c[0] for c in CASES])
def test_integrity_failures(label, change, expected) -> None:
    problems = check_integrity(cols(mutate(change)))
    assert problems[0] == expected
    assert integrity_error(problems) == f"trace integrity: {expected}"


def test_sound_trace_has_no_problems() -> None:
    assert check_integrity(cols(good_steps())) == []
    # booleans in metadata are not numbers; null is fine; unsorted arrays are fine (normalization sorts)
    steps = good_steps()
    steps[1]["metadata"] = {"flag": False, "x": None}
    assert check_integrity(cols(list(reversed(steps)))) == []


def test_missing_terminal_status() -> None:
    assert check_integrity(cols(good_steps(), status=None)) == ["missing terminal status"]


def test_evaluate_trace_reports_integrity_error_without_results() -> None:
    data = {"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": mutate(lambda s: s[2].update(parentId="q"))}
    report = evaluate_trace(parse_trace(data).trace, [RequiredSteps(names=("a",))])
    assert report.error == "trace integrity: unknown parent q for step b"
    assert report.results == [] and not report.passed and report.exit_code == 3
    assert report.to_json()["error"] == "trace integrity: unknown parent q for step b"
    assert report.rules == ["required_steps@1"]
