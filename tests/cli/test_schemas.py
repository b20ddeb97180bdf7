"""`tftui schema` (the flow format) and `tftui schema --trace` (the trace format) as a user checks them:
the flow schema accepts every sample flow and rejects broken ones; every trace a run writes conforms
to the trace schema; `tftui gate` rejects a trace that does not, naming the path and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tftui.trace.model import load_columns

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_flows"
FLOWS = Path(__file__).resolve().parent / "flows"
BROKEN = sorted((FLOWS / "broken").glob("*.json"))
SAMPLE_FLOWS = sorted(p for p in [*SAMPLES.glob("*.json"), *SAMPLES.glob("flows/*.json")]
                      if not p.name.endswith(".replies.json"))


def _validator(tftui: Any, *flags: str) -> Draft202012Validator:
    done = tftui("schema", *flags)
    assert done.code == 0, done.stderr
    schema = json.loads(done.stdout)
    Draft202012Validator.check_schema(schema)  # a schema an editor can load
    return Draft202012Validator(schema)


def test_flow_schema_accepts_every_sample_flow(tftui) -> None:
    validator = _validator(tftui)
    assert SAMPLE_FLOWS
    for path in SAMPLE_FLOWS:
        errors = [e.message for e in validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))]
        assert errors == [], path.name


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_flow_schema_rejects_what_check_rejects(tftui, path: Path) -> None:
    validator = _validator(tftui)
    assert not validator.is_valid(json.loads(path.read_text(encoding="utf-8")))
    assert tftui("check", str(path)).code == 1  # the fixture really is broken


def test_every_sample_run_writes_a_trace_that_conforms(tftui, runs_dir: Path) -> None:
    validator = _validator(tftui, "--trace")
    traces: list[Path] = []
    for path in SAMPLE_FLOWS:
        if path.parent.name == "flows":
            continue  # a saved sub-flow, run through its parent
        before = set(runs_dir.glob("*")) if runs_dir.is_dir() else set()
        done = tftui("run", str(path), "--no-wait", "--quiet")
        made = sorted(set(runs_dir.glob("*")) - before)
        assert done.code in (0, 1), (path.name, done.code, done.stderr)  # 1: the sample's run fails on purpose
        assert len(made) == 1 and (made[0] / "trace.json").is_file(), (path.name, made, done.stderr)
        traces.append(made[0] / "trace.json")
    for trace in traces:
        errors = [e.message for e in validator.iter_errors(json.loads(trace.read_text(encoding="utf-8")))]
        assert errors == [], trace


def _trace(**changes: Any) -> dict[str, Any]:
    steps = [
        {"id": "r", "parentId": None, "sequence": 0, "name": "run", "kind": "run", "status": "ok"},
        {"id": "m", "parentId": "r", "sequence": 1, "name": "draft", "kind": "model", "status": "ok",
         "attempt": 1, "inputTokens": 10, "outputTokens": 5, "metadata": {"model": "m1", "cached": False}},
    ]
    data: dict[str, Any] = {"schemaVersion": 1, "fixture": "schema-case", "status": "ok", "steps": steps}
    for where, value in changes.items():
        index, _, key = where.partition("__")
        if key:
            steps[int(index[1:])][key] = value
        else:
            data[where] = value
    return data


def test_gate_names_the_path_and_field_of_a_schema_violation(tftui, tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\nid = "required_steps"\nnames = ["draft"]\n', encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_trace()), encoding="utf-8")
    assert tftui("gate", str(good), "--rules", str(rules)).code == 0

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_trace(s1__kind="thinking", s1__metadata={"usage": {"input": 3}})), encoding="utf-8")
    report = tmp_path / "report.json"
    done = tftui("gate", str(bad), "--rules", str(rules), "--json", str(report))
    assert done.code == 3  # an instrumentation error, like a failed integrity check
    line = done.stdout.splitlines()[0]
    assert line.startswith("ERROR schema-case: trace schema: steps[1].kind: 'thinking' is not one of [")
    assert "(and 1 more)" in line
    assert "trace schema: steps[1].kind" in json.dumps(json.loads(report.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "changes",
    [
        {"schemaVersion": 2},
        {"fixture": 7},
        {"status": "done"},
        {"steps": {"r": {}}},
        {"s1__kind": "thinking"},
        {"s1__status": "passed"},
        {"s1__sequence": "1"},
        {"s1__sequence": 1.5},
        {"s1__attempt": True},
        {"s1__inputTokens": "10"},
        {"s1__parentId": 0},
        {"s1__metadata": {"nested": {"a": 1}}},
        {"s1__metadata": ["a"]},
    ],
    ids=repr,
)
def test_schema_and_loader_reject_the_same_traces(tftui, changes: dict[str, Any]) -> None:
    validator = _validator(tftui, "--trace")
    data = _trace(**changes)
    assert not validator.is_valid(data)
    assert load_columns(json.dumps(data)).error is not None
    assert validator.is_valid(_trace()) and load_columns(json.dumps(_trace())).error is None
