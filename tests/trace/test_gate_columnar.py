"""`tftui gate`'s columnar path (issue 18) judges a trace file exactly as the strict path does.

The columnar path: the typed decode checks every number's range as it reads (`numbers_sound`),
integrity proves unique ids and sequences from the canonical shape (ids `s<sequence>`, sequences
ascending) and normalization reuses what integrity found. The strict path: the published schema,
the pydantic loader and every integrity check on fresh columns. Same report, same messages (the
step and the field they name), for sound traces and broken ones.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace.fileload import fast_columns, load_trace_file
from tftui.trace.integrity import check_columns, schema_error, schema_problems
from tftui.trace.model import TraceColumns, load_columns
from tftui.trace.report import GateReportJSON, error_report, evaluate_trace
from tftui.trace.ruleset import load_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
RULES = load_ruleset(str(FIXTURES / "rules.toml")).rules
TRACE_FILES = sorted(p.name for p in FIXTURES.glob("*.json")) + ["run_dir/trace.json"]


def _columnar(data: bytes) -> GateReportJSON:
    loaded = load_trace_file(data)
    if loaded.nonconforming is not None:
        return error_report(loaded.nonconforming[0], loaded.nonconforming[1], RULES, "t").to_json()
    if loaded.columns is None:
        return error_report("", loaded.error or "", RULES, "t").to_json()
    return evaluate_trace(loaded.columns, RULES, trace_path="t").to_json()


def _strict(data: bytes) -> GateReportJSON:
    """The path before the shortcuts: schema check, strict loader, every check on plain columns."""
    try:
        decoded = json.loads(data)
    except ValueError:
        decoded = None
    if decoded is not None:
        error = schema_error(schema_problems(decoded))
        if error is not None:
            fixture = decoded.get("fixture") if isinstance(decoded, dict) else None
            return error_report(fixture if isinstance(fixture, str) else "", error, RULES, "t").to_json()
    loaded = load_columns(data)
    if loaded.columns is None:
        return error_report("", loaded.error or "", RULES, "t").to_json()
    assert not loaded.columns.numbers_sound
    return evaluate_trace(loaded.columns, RULES, trace_path="t").to_json()


@pytest.mark.parametrize("name", TRACE_FILES)
def test_every_fixture_gets_the_same_report_on_both_paths(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    assert _columnar(data) == _strict(data)


def _step(i: int, parent: str | None = "s0") -> dict[str, Any]:
    return {"id": f"s{i}", "parentId": None if i == 0 else parent, "sequence": i, "name": "plan" if i % 2 else "build",
            "kind": "run" if i == 0 else "model", "status": "ok", "attempt": 1, "inputTokens": 10, "outputTokens": 5,
            "metadata": {"phase": "build", "outcome": "retry"}}


def _file(steps: list[dict[str, Any]]) -> bytes:
    return json.dumps({"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": steps}).encode()


# What a broken recorder writes: each edit breaks one fact integrity checks (docs/trace-gates.md §4).
BREAKS: dict[str, Any] = {
    "negative tokens": lambda s: s[2].update(inputTokens=-1),
    "negative float duration": lambda s: s[3].update(durationMs=-0.5),
    "tokens above 2**53": lambda s: s[1].update(outputTokens=2**53 + 1),
    "float tokens above 2**53": lambda s: s[1].update(outputTokens=1e17),
    "attempt 0": lambda s: s[2].update(attempt=0),
    "negative attempt": lambda s: s[2].update(attempt=-2),
    "negative sequence": lambda s: s[3].update(sequence=-3),
    "negative metadata number": lambda s: s[2]["metadata"].update(cost=-1.5),
    "huge metadata number": lambda s: s[2]["metadata"].update(n=2**60),
    "forbidden key": lambda s: s[1]["metadata"].update(Prompt="hi"),
    "duplicate id": lambda s: s[3].update(id="s2"),
    "duplicate sequence": lambda s: s[3].update(sequence=2),
    "unknown parent": lambda s: s[3].update(parentId="s99"),
    "unknown canonical-looking parent": lambda s: s[3].update(parentId="s02"),
    "two roots": lambda s: s[3].update(parentId=None),
    "self parent": lambda s: s[2].update(parentId="s2"),
    "parent cycle": lambda s: (s[1].update(parentId="s2"), s[2].update(parentId="s1")),
    "ids not canonical": lambda s: [step.update(id=f"x{step['sequence']}") for step in s],
    "out of order": lambda s: s.reverse(),
    "no terminal status": lambda s: s[0].update(status="nope"),
}


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_a_broken_trace_gets_the_same_error_on_both_paths(brk: str) -> None:
    steps = [_step(i) for i in range(6)]
    BREAKS[brk](steps)
    data = _file(steps)
    columnar, strict = _columnar(data), _strict(data)
    assert columnar == strict
    assert columnar["error"] is not None or brk in ("ids not canonical", "out of order"), columnar


def test_number_checks_are_skipped_only_when_the_decoder_proved_them() -> None:
    sound = fast_columns(_file([_step(i) for i in range(4)]))
    assert sound is not None and sound.numbers_sound and check_columns(sound) == []
    steps = [_step(i) for i in range(4)]
    steps[2]["inputTokens"] = -1
    unsound = fast_columns(_file(steps))  # read again without the ranges: integrity words the problem
    assert unsound is not None and not unsound.numbers_sound
    assert check_columns(unsound) == ["non-finite or negative inputTokens on step s2"]


SCALAR = st.one_of(st.integers(-2, 3), st.sampled_from([2**53, 2**53 + 1, 0.5, -0.0, 1e300]), st.booleans(),
                   st.none(), st.sampled_from(["a", "/tmp/x", "2024-05-01T12:00:00Z"]))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8), st.randoms(use_true_random=False),
       st.lists(st.tuples(st.integers(0, 7), st.sampled_from(["sequence", "attempt", "inputTokens", "durationMs",
                                                               "parentId", "id", "meta"]), SCALAR), max_size=3),
       st.booleans())
def test_random_traces_get_the_same_report_on_both_paths(n: int, rnd: random.Random, edits: list[Any],
                                                         shuffle: bool) -> None:
    steps = [_step(i, parent=f"s{rnd.randrange(i)}" if i else None) for i in range(n)]
    for index, key, value in edits:
        step = steps[index % n]
        if key == "meta":
            step["metadata"]["k"] = value
        elif key in ("parentId", "id"):
            step[key] = f"s{value}" if isinstance(value, int) and not isinstance(value, bool) else value
        else:
            step[key] = value
    if shuffle:
        rnd.shuffle(steps)
    data = _file(steps)
    assert _columnar(data) == _strict(data)


def test_normalized_columns_carry_what_integrity_proved() -> None:
    cols = fast_columns(_file([_step(i) for i in range(5)]))
    assert cols is not None
    report = evaluate_trace(cols, RULES)
    assert report.normalized is not None
    fresh = TraceColumns.from_dicts([
        {"id": i, "parentId": p, "sequence": q, "name": n, "kind": k, "status": s, "metadata": m}
        for i, p, q, n, k, s, m in zip(report.normalized.ids, report.normalized.parent_ids,
                                       report.normalized.sequences, report.normalized.names,
                                       report.normalized.kinds, report.normalized.statuses,
                                       report.normalized.metadata, strict=True)
    ])
    assert report.normalized.increasing() == fresh.increasing() is True
    assert report.normalized.canonical_ids() == fresh.canonical_ids() is True
