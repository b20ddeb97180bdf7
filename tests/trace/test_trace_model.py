"""Trace loading (pydantic boundary) and normalization (SPEC §9.1)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace.integrity import check_integrity
from tftui.trace.model import (
    AgentTrace,
    TraceColumns,
    dump_trace,
    normalize,
    parse_trace,
    trace_to_json,
)
from tftui.trace.normalize import volatile_metadata


def raw_trace(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schemaVersion": 1,
        "fixture": "f",
        "status": "ok",
        "steps": [
            {"id": "c-77", "parentId": "r-1", "sequence": 9, "name": "b", "kind": "tool", "status": "ok",
             "durationMs": 12.5, "startedAt": 1714561200.1, "stdout": "raw payload"},
            {"id": "r-1", "parentId": None, "sequence": 2, "name": "flow", "kind": "run", "status": "ok",
             "metadata": {"skippedCount": 1, "runId": "20240501-xyz"}},
            {"id": "k-3", "parentId": "r-1", "sequence": 5, "name": "a", "kind": "model", "status": "ok",
             "attempt": 2, "inputTokens": 10, "outputTokens": 3, "requestId": "req_1",
             "metadata": {"phase": "a", "cacheReadTokens": 4, "requestId": "req_1", "createdAt": 5,
                          "workdir": "/tmp/tftui-abc/x", "note": None}},
            {"id": "g-9", "parentId": "k-3", "sequence": 7, "name": "a#judge", "kind": "model", "status": "error"},
        ],
    }
    data.update(over)
    return data


def test_parse_accepts_extra_fields_and_keeps_types() -> None:
    loaded = parse_trace(json.dumps(raw_trace()))
    assert loaded.error is None and loaded.trace is not None
    s = loaded.trace.steps[2]
    assert (s.attempt, s.input_tokens, s.metadata["cacheReadTokens"], s.metadata["note"]) == (2, 10, 4, None)
    assert loaded.trace.steps[0].model_extra == {"startedAt": 1714561200.1, "stdout": "raw payload"}


def test_parse_errors_are_reported_not_raised() -> None:
    assert parse_trace(b"{not json").error.startswith("trace parse: ")
    bad_kind = raw_trace()
    bad_kind["steps"][0]["kind"] = "agent"
    assert parse_trace(bad_kind).error.startswith("trace schema: steps[0].kind: ")
    nested = raw_trace()
    nested["steps"][1]["metadata"] = {"x": {"deep": 1}}
    err = parse_trace(nested).error
    assert err == ("trace schema: steps[1].metadata.x: metadata values must be a string, number, boolean or null "
                   "(flat, no nested objects)")
    assert parse_trace(raw_trace(schemaVersion=2)).error.startswith("trace schema: schemaVersion: ")
    float_seq = raw_trace()
    float_seq["steps"][0]["sequence"] = 1.5
    assert parse_trace(float_seq).error.startswith("trace schema: steps[0].sequence: ")


def test_parse_reads_nan_so_integrity_can_report_it() -> None:
    text = json.dumps(raw_trace()).replace('"inputTokens": 10', '"inputTokens": NaN')
    loaded = parse_trace(text)
    assert loaded.error is None and loaded.trace.steps[2].input_tokens != loaded.trace.steps[2].input_tokens


def test_normalize_sorts_renames_and_drops_volatile_fields() -> None:
    trace = parse_trace(raw_trace()).trace
    norm = trace_to_json(normalize(trace))
    steps = norm["steps"]
    assert [s["sequence"] for s in steps] == [2, 5, 7, 9]
    assert [s["id"] for s in steps] == ["s2", "s5", "s7", "s9"]
    assert [s["parentId"] for s in steps] == [None, "s2", "s5", "s2"]  # parent links preserved
    assert steps[0]["metadata"] == {"skippedCount": 1}  # runId dropped
    assert steps[1]["metadata"] == {"phase": "a", "cacheReadTokens": 4, "note": None}  # raw usage dims kept
    assert "durationMs" not in steps[3]  # real clock: durations are not deterministic
    assert set(steps[3]) == {"id", "parentId", "sequence", "name", "kind", "status"}  # payload/timestamps gone
    assert steps[1]["attempt"] == 2 and steps[1]["inputTokens"] == 10


def test_normalize_keeps_duration_with_fake_clock() -> None:
    data = raw_trace()
    data["steps"][1]["metadata"]["fakeClock"] = True
    norm = normalize(parse_trace(data).trace)
    assert norm.steps[-1].duration_ms == 12.5
    forced = normalize(parse_trace(raw_trace()).trace, fake_clock=True)
    assert forced.steps[-1].duration_ms == 12.5


def test_normalize_is_idempotent_and_deterministic() -> None:
    trace = parse_trace(raw_trace()).trace
    once = normalize(trace)
    assert trace_to_json(normalize(once)) == trace_to_json(once)
    other = raw_trace()
    for s, new_id in zip(other["steps"], ["q1", "q2", "q3", "q4"], strict=True):
        old = s["id"]
        s["id"] = new_id
        for t in other["steps"]:
            if t["parentId"] == old:
                t["parentId"] = new_id
    other["steps"][2]["requestId"] = "req_999"
    assert trace_to_json(normalize(parse_trace(other).trace)) == trace_to_json(once)


def test_forbidden_metadata_survives_normalization_for_integrity() -> None:
    data = raw_trace()
    data["steps"][2]["metadata"]["prompt"] = "secret text"
    assert "prompt" in normalize(parse_trace(data).trace).steps[1].metadata


def test_dump_trace_round_trips() -> None:
    norm = normalize(parse_trace(raw_trace()).trace)
    text = dump_trace(norm)
    again = parse_trace(text).trace
    assert trace_to_json(again) == trace_to_json(norm)
    assert text.count("\n") == len(norm.steps) + 7  # one step per line


def test_columns_from_trace_and_dicts_agree() -> None:
    norm = normalize(parse_trace(raw_trace()).trace)
    a = TraceColumns.from_trace(norm)
    b = TraceColumns.from_dicts(trace_to_json(norm)["steps"], fixture="f", status="ok")
    assert a == b and len(a) == 4


def test_volatile_metadata_keys() -> None:
    for key in ("startedAt", "created_at", "requestId", "request_id", "traceId", "timestamp", "ts", "runId"):
        assert volatile_metadata(key, 1), key
    for key in ("phase", "format", "chat", "cacheReadTokens", "outcome", "skippedCount", "verdict"):
        assert not volatile_metadata(key, "x"), key
    assert volatile_metadata("cwd", "/tmp/x/y") and volatile_metadata("when", "2024-05-01T10:00:00Z")


def test_agent_trace_by_field_name() -> None:
    t = AgentTrace(schema_version=1, fixture="x", status="ok", steps=[])
    assert trace_to_json(t) == {"schemaVersion": 1, "fixture": "x", "status": "ok", "steps": []}


def test_load_columns_matches_pydantic_models() -> None:
    from tftui.trace.model import load_columns

    text = json.dumps(raw_trace())
    loaded = load_columns(text)
    assert loaded.error is None and loaded.columns == TraceColumns.from_trace(parse_trace(text).trace)
    for bad in (b"{not json", json.dumps(raw_trace(schemaVersion=2))):
        assert load_columns(bad).error == parse_trace(bad).error
    nested = raw_trace()
    nested["steps"][1]["metadata"] = {"x": [1]}
    assert load_columns(json.dumps(nested)).error == parse_trace(nested).error


_meta = st.dictionaries(st.sampled_from(["phase", "startedAt", "requestId", "cwd", "outcome", "n"]),
                        st.one_of(st.none(), st.booleans(), st.integers(0, 9), st.sampled_from(
                            ["a", "/tmp/x", "2024-05-01T10:00:00Z"])), max_size=4)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), _meta, st.integers(0, 5)), max_size=10), st.randoms())
def test_normalize_properties(raw, rnd) -> None:  # noqa: ANN001
    seqs = rnd.sample(range(1, 1000), len(raw))
    ids = [f"id-{rnd.randrange(10**9)}-{i}" for i in range(len(raw))]
    steps = [{"id": "root-x", "parentId": None, "sequence": 0, "name": "f", "kind": "run", "status": "ok"}]
    for i, ((name, meta, parent_pick), seq) in enumerate(zip(raw, seqs, strict=True)):
        parent = "root-x" if parent_pick == 0 or i == 0 else ids[parent_pick % i]
        steps.append({"id": ids[i], "parentId": parent, "sequence": seq, "name": name, "kind": "model",
                      "status": "ok", "durationMs": 5, "metadata": meta})
    rnd.shuffle(steps)
    trace = parse_trace({"schemaVersion": 1, "fixture": "p", "status": "ok", "steps": steps}).trace
    assert check_integrity(trace) == []
    once = normalize(trace)
    assert check_integrity(once) == []
    assert trace_to_json(normalize(once)) == trace_to_json(once)  # idempotent
    out = trace_to_json(once)["steps"]
    assert [s["sequence"] for s in out] == sorted(s["sequence"] for s in steps)
    assert all(s["id"] == f"s{s['sequence']}" and "durationMs" not in s for s in out)
    for s in out:  # volatile keys and values are gone, the rest is kept
        meta = s.get("metadata") or {}
        assert not {"startedAt", "requestId"} & set(meta)
        assert "/tmp/x" not in meta.values() and "2024-05-01T10:00:00Z" not in meta.values()
    # parent links are preserved under renaming
    by_old = {s["id"]: s["sequence"] for s in steps}
    for s_old in steps:
        new = next(s for s in out if s["sequence"] == s_old["sequence"])
        expected = None if s_old["parentId"] is None else f"s{by_old[s_old['parentId']]}"
        assert new["parentId"] == expected
