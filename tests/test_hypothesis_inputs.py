"""Property tests for what reads outside input (issue 17): contracts, combine's explanation, trace
integrity, the journal and bundle readers, event decoding and the fold, the loader and the
terminal sanitiser never raise on any input, and say what is wrong in their own words.

Seeded by the suite's settings profile (tests/conftest.py: derandomize), so a failure reproduces
on every machine; together with the other property tests of the suite it runs well within 60 s.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tftui.bundle import BundleError, open_bundle
from tftui.engine.events import event_from_json
from tftui.engine.journal import JournalDamaged, load_events
from tftui.engine.state import fold
from tftui.flow.load import load_flow_text
from tftui.lang.contract import contract_shape_errors, contract_violations
from tftui.present.terminal import drop_unsafe, is_term_safe, term_line, term_text
from tftui.scoring.combine import combine, explain
from tftui.trace.integrity import check_integrity, schema_problems
from tftui.trace.model import parse_trace

NUMBERS = st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=True, allow_infinity=True)
SCALARS = st.none() | st.booleans() | NUMBERS | st.text(max_size=8)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=15,
)

# -- contracts ------------------------------------------------------------------------------------

CONTRACT_KEYS = st.sampled_from(["type", "properties", "required", "items", "enum", "x"])
CONTRACTS = st.recursive(
    st.dictionaries(CONTRACT_KEYS, SCALARS | st.sampled_from(["object", "array", "string", "number"]), max_size=3),
    lambda children: st.dictionaries(
        CONTRACT_KEYS, children | st.lists(children | SCALARS, max_size=3)
        | st.dictionaries(st.text(max_size=3), children, max_size=3), max_size=4),
    max_leaves=12,
)


def _deep(levels: int, key: str) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", key: {"a": schema}} if key == "properties" else {"type": "array", key: schema}
    return schema


@settings(max_examples=100)
@given(CONTRACTS | JSON, JSON)
def test_contracts_never_raise(schema, value) -> None:  # noqa: ANN001
    assert all(isinstance(e, str) for e in contract_shape_errors(schema))
    violations = contract_violations(value, schema)
    assert len(violations) <= 9 and all(v.startswith("$") for v in violations)


@settings(max_examples=4)
@given(st.integers(min_value=3000, max_value=6000), st.sampled_from(["properties", "items"]))
def test_contracts_too_deep_to_walk_are_one_message(levels: int, key: str) -> None:
    schema = _deep(levels, key)
    assert contract_shape_errors(schema) == ["$: contract too deeply nested to check"]
    assert contract_violations("x", schema) in ([], ["$: contract too deeply nested to check"])


# -- combine --------------------------------------------------------------------------------------

RESULTS = st.lists(st.fixed_dictionaries({"passed": st.booleans() | SCALARS}), max_size=6)


@settings(max_examples=100)
@given(RESULTS, st.sampled_from(["all", "any", "weighted", "bogus"]), st.lists(NUMBERS, max_size=7) | JSON,
       NUMBERS | JSON, st.none() | st.fixed_dictionaries({"score": NUMBERS, "verdict": st.sampled_from(["pass", "block"]),
                                                         "parsed": st.booleans()}))
def test_combine_and_its_explanation_never_raise(results, mode, weights, threshold, judge) -> None:  # noqa: ANN001
    from tftui.lang.verdict import JudgeOutput

    parsed = None if judge is None else JudgeOutput(score=judge["score"], verdict=judge["verdict"], reason="",
                                                     parsed=judge["parsed"])
    combined = combine(results, mode, weights, threshold, parsed)
    assert isinstance(combined.passed, bool)
    assert isinstance(explain(combined), str)


# -- trace integrity ------------------------------------------------------------------------------

IDS = st.sampled_from(["r", "a", "b", "c"])
STEPS = st.lists(
    st.fixed_dictionaries(
        {"id": IDS | SCALARS, "parentId": st.none() | IDS | SCALARS, "sequence": NUMBERS | SCALARS,
         "name": st.text(max_size=4) | SCALARS, "kind": st.sampled_from(["run", "model", "tool", "policy", "x"]),
         "status": st.sampled_from(["ok", "error", "blocked", "cancelled", "?"])},
        optional={"attempt": NUMBERS | SCALARS, "inputTokens": NUMBERS, "outputTokens": NUMBERS,
                  "durationMs": NUMBERS, "metadata": st.dictionaries(st.text(max_size=6), SCALARS, max_size=3)},
    ),
    max_size=8,
)
TRACES = st.fixed_dictionaries(
    {"schemaVersion": st.just(1) | SCALARS, "fixture": st.text(max_size=4) | SCALARS,
     "status": st.sampled_from(["ok", "error", "blocked", "cancelled"]) | SCALARS, "steps": STEPS | JSON},
)


@settings(max_examples=150)
@given(TRACES | JSON)
def test_trace_readers_never_raise(data) -> None:  # noqa: ANN001
    assert all(isinstance(p, str) for p in schema_problems(data))
    loaded = parse_trace(data) if isinstance(data, dict) else parse_trace(json.dumps(data, allow_nan=True))
    if loaded.trace is not None:
        problems = check_integrity(loaded.trace)
        steps = loaded.trace.steps
        ids = [s.id for s in steps]
        by_id = {s.id: s for s in steps}
        if not problems:  # a sound trace: one root, every chain of parents reaches it, no huge numbers
            assert sum(s.parent_id is None for s in steps) == 1
            for step in steps:
                seen, at = set(), step
                while at.parent_id is not None:
                    assert at.id not in seen
                    seen.add(at.id)
                    at = by_id[at.parent_id]
                assert abs(step.sequence) <= 2**53
            assert len(set(ids)) == len(ids)


# -- journals, events, the fold -------------------------------------------------------------------

SMALL_OBJECTS = SCALARS | st.dictionaries(
    st.sampled_from(["input", "output", "costUSD", "verdict", "reason", "combined", "scorers"]), SCALARS, max_size=3)
KINDS = st.sampled_from(["run_started", "phase_started", "attempt_started", "agent_returned", "attempt_failed",
                         "phase_finished", "phase_skipped", "run_finished", "gate_verdict", "mystery"])
ROWS = st.lists(
    st.fixed_dictionaries(
        {"kind": KINDS},
        optional={"seq": NUMBERS | SCALARS, "ts": NUMBERS | SCALARS,
                  "phase_id": st.sampled_from(["a", "b"]) | SCALARS | st.just({"a": 1}) | st.just(["a"]),
                  "node_path": st.sampled_from(["a", "b", "a#item-0"]) | SCALARS, "attempt": NUMBERS | SCALARS,
                  "status": st.sampled_from(["done", "failed", "completed", "blocked", "weird"]) | SCALARS,
                  "output": st.text(max_size=6) | SCALARS, "error": SCALARS, "usage": SMALL_OBJECTS,
                  "phase_ids": st.lists(st.sampled_from(["a", "b"]) | SCALARS, max_size=3) | SCALARS,
                  "phase_types": st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["agent", "map"]) | SCALARS,
                                                 max_size=2),
                  "gate": SMALL_OBJECTS, "warnings": st.lists(st.text(max_size=4) | SCALARS, max_size=2) | SCALARS},
    ),
    max_size=8,
)


@settings(max_examples=80)
@given(ROWS)
def test_decoded_events_fold_without_raising(rows) -> None:  # noqa: ANN001
    events = []
    for row in rows:
        try:
            events.append(event_from_json(row))
        except (TypeError, ValueError):
            continue  # refused: a damaged journal (the readers report it)
    fold(events)


# Health checks named here replace the suite profile's list (tests/conftest.py): too_slow is named
# again (each example writes files, which a loaded machine makes slow, not wrong), and the
# function-scoped autouse config isolation may be shared by the examples (each makes its own directory).
@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(ROWS.map(lambda rows: "\n".join(json.dumps(r, allow_nan=True) for r in rows))
                | st.binary(max_size=60).map(lambda b: b.decode("latin-1")), max_size=3).map("\n".join))
def test_the_journal_reader_reads_or_says_damaged(tmp_path_factory, text: str) -> None:  # noqa: ANN001
    run_dir = tmp_path_factory.mktemp("run")
    (run_dir / "events.jsonl").write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        events, _meta, _warnings = load_events(run_dir)
    except JournalDamaged as exc:
        assert str(exc).startswith("damaged journal: ")
    else:
        fold(events)


# Health checks named here replace the suite profile's list (tests/conftest.py): too_slow is named
# again (each example writes files, which a loaded machine makes slow, not wrong), and the
# function-scoped autouse config isolation may be shared by the examples (each makes its own directory).
@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["bundle.json", "events.jsonl", "meta.json", "flow.json", "trace.json",
                                        "answers.replies.json", "other"]),
                       st.binary(max_size=40) | JSON.map(lambda v: json.dumps(v, allow_nan=True).encode())
                       | st.just(b'{"format": "tftui-bundle", "version": 1}'), max_size=7),
       st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2]))
def test_the_bundle_reader_reads_or_says_why_not(tmp_path_factory, members, compression) -> None:  # noqa: ANN001
    path = Path(tmp_path_factory.mktemp("bundle")) / "b.tftui.zip"
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    try:
        recording = open_bundle(path)
    except BundleError as exc:
        assert str(exc).startswith(str(path))
    else:
        fold(recording.events)


# -- the loader and the sanitiser -----------------------------------------------------------------


@settings(max_examples=100)
@given(st.fixed_dictionaries({"name": st.text(max_size=6) | SCALARS,
                              "phases": st.lists(st.fixed_dictionaries(
                                  {"id": st.text(max_size=4) | SCALARS, "type": st.sampled_from(["agent", "gate", "flow"]),
                                   "task": st.text(max_size=6) | SCALARS},
                                  optional={"expect": CONTRACTS | JSON, "contextLimit": NUMBERS, "timeout": NUMBERS,
                                            "def": JSON, "when": st.text(max_size=8)}), max_size=3)}))
def test_the_loader_never_raises_on_valid_json(flow) -> None:  # noqa: ANN001
    text = json.dumps(flow, allow_nan=False) if _finite(flow) else json.dumps(flow, allow_nan=True)
    result = load_flow_text(text)
    assert result.flow is not None or result.errors


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


@settings(max_examples=200)
@given(st.text())
def test_sanitised_text_is_terminal_safe_and_keeps_its_printable_characters(text: str) -> None:
    shown, line = term_text(text), term_line(text)
    assert is_term_safe(shown) and is_term_safe(line) and "\n" not in line
    assert term_text(shown) == shown  # idempotent: escaping twice shows the same
    clean = text.replace("\ufffd", "")
    assert is_term_safe(drop_unsafe(clean))
    assert [c for c in clean if c.isprintable()] == [c for c in drop_unsafe(clean) if c.isprintable() and c != "\ufffd"]
    shown.encode("utf-8")  # no lone surrogate is left to crash a UTF-8 stream
