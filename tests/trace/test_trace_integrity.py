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
    # issue 17, fault 9: loops in the parent links and integers beyond 2**53
    ("self-parent", lambda s: s[2].update(parentId="b"), "step b is its own parent"),
    ("a two-step cycle beside the root", lambda s: (s[1].update(parentId="b"), s[2].update(parentId="a")),
     "parent cycle through step a"),
    ("sequence 2**70", lambda s: s[2].update(sequence=2**70), "sequence out of range on step b (above 2**53)"),
    ("tokens 2**53 + 1", lambda s: s[1].update(inputTokens=2**53 + 1), "inputTokens out of range on step a (above 2**53)"),
    ("huge metadata number", lambda s: s[1]["metadata"].update(n=1e300), "metadata.n out of range on step a (above 2**53)"),
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


def test_a_100k_long_cycle_is_found_in_linear_time() -> None:
    """A root, and 100,000 steps whose parents form one loop (listed in an order that defeats the fast path)."""
    n = 100_000
    steps = [{"id": "r", "parentId": None, "sequence": 0, "name": "flow", "kind": "run", "status": "ok"}]
    steps += [{"id": f"s{i}", "parentId": f"s{(i + 1) % n}", "sequence": i + 1, "name": "x", "kind": "tool",
               "status": "ok"} for i in range(n)]
    problems = check_integrity(cols(steps))
    assert problems and problems[0].startswith("parent cycle through step s")


def test_out_of_order_parents_without_a_cycle_pass() -> None:
    steps = good_steps()
    steps.append({"id": "c", "parentId": "d", "sequence": 3, "name": "c", "kind": "tool", "status": "ok"})
    steps.append({"id": "d", "parentId": "r", "sequence": 4, "name": "d", "kind": "tool", "status": "ok"})
    assert check_integrity(cols(steps)) == []
    assert check_integrity(cols(good_steps()[:1] + [{**good_steps()[1], "sequence": 2**53}])) == []  # the bound itself is fine


@pytest.mark.parametrize("change", [
    lambda s: (s[1].update(parentId="b"), s[2].update(parentId="a")),
    lambda s: s[2].update(sequence=2**70),
])
def test_tftui_gate_exits_3_on_cycles_and_huge_integers(tmp_path, change, capsys) -> None:  # noqa: ANN001
    import json

    from tftui.cli import main

    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": mutate(change)}))
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\nid = "required_steps"\nnames = ["a"]\n')
    assert main(["gate", str(trace), "--rules", str(rules)]) == 3
    assert capsys.readouterr().out.startswith("ERROR ")
