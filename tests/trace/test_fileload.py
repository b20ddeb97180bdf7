"""`tftui gate` reads a trace file with one typed decode into columns (tftui.trace.fileload):
whatever the file, the result is what the schema check and the strict loader say (same values,
same types, same error message)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace.fileload import fast_columns, load_trace_file
from tftui.trace.integrity import schema_error, schema_problems
from tftui.trace.model import load_columns

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["ok", "run", "model", "error", "x", "s0"]), st.just(3.0))
VALUES = st.one_of(SCALARS, st.dictionaries(st.sampled_from(["phase", "n"]), SCALARS, max_size=2),
                   st.lists(SCALARS, max_size=1))
FIELDS = ["id", "parentId", "sequence", "name", "kind", "status", "attempt", "inputTokens", "outputTokens",
          "durationMs", "metadata", "extra"]


def _good(i: int) -> dict[str, Any]:
    step: dict[str, Any] = {"id": f"s{i}", "parentId": None if i == 0 else "s0", "sequence": i, "name": f"p{i}",
                            "kind": "run" if i == 0 else "model", "status": "ok", "attempt": 1,
                            "inputTokens": 3, "outputTokens": 1.5, "metadata": {"phase": "p", "ok": True}}
    return step


def _slow(data: bytes) -> tuple[Any, Any]:
    """What gate did before: the schema check on json.loads, then the strict loader."""
    try:
        error = schema_error(schema_problems(json.loads(data)))
    except ValueError:
        error = None
    if error is not None:
        return "schema", error
    loaded = load_columns(data)
    return loaded.error, loaded.columns


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(FIELDS), VALUES, st.booleans()), max_size=3),
       st.sampled_from(["ok", None, "nope", 1]))
def test_the_shortcut_agrees_with_the_schema_and_the_strict_loader(edits: list[Any], status: Any) -> None:
    steps = [_good(i) for i in range(3)]
    for index, key, value, delete in edits:
        if delete:
            steps[index].pop(key, None)
        else:
            steps[index][key] = value
    data = json.dumps({"schemaVersion": 1, "fixture": "f", "status": status, "steps": steps}).encode()
    loaded = load_trace_file(data)
    slow = _slow(data)
    if slow[0] == "schema":
        assert loaded.columns is None and loaded.nonconforming is not None and loaded.nonconforming[1] == slow[1]
    else:
        assert (loaded.error, loaded.columns) == slow
        assert repr(loaded.columns) == repr(slow[1])  # the same types too: 1 is not 1.0, -0.0 is not 0


# Raw JSON text the fast path must refuse or read exactly as `json` and the strict loader do.
RAW_VALUES = ["1", "1.0", "-0", "-0.0", "1e2", "1e400", "-1e400", "1e-400", "NaN", "Infinity", "true", "null",
              "99999999999999999999999", "18446744073709551616", "2.2250738585072014e-308", '"x"', '"\\ud800"',
              '"\\ud83d\\ude00"', '"\\u00e9\\n"', '"caf\u00e9"', '"\t"', "{}", '{"a": 1, "a": "b"}', "[1]"]
RAW_FIELDS = ["sequence", "attempt", "inputTokens", "durationMs", "name", "parentId", "metadata", "extra"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(RAW_FIELDS), st.sampled_from(RAW_VALUES), st.booleans()), max_size=2),
       st.sampled_from(["", "\ufeff", " \n"]), st.booleans())
def test_raw_json_text_reads_the_same_on_both_paths(edits: list[Any], prefix: str, duplicate: bool) -> None:
    fields = [f'"{k}": {json.dumps(v)}' for k, v in _good(1).items()]
    for key, raw, in_metadata in edits:
        fields.append(f'"metadata": {{"k": {raw}}}' if in_metadata else f'"{key}": {raw}')
    if duplicate:
        fields.append('"sequence": 1')
    text = (prefix + '{"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": ['
            + json.dumps(_good(0)) + ", {" + ", ".join(fields) + "}]}")
    data = text.encode()
    loaded, slow = load_trace_file(data), _slow(data)
    if slow[0] == "schema":
        assert loaded.columns is None and loaded.nonconforming is not None and loaded.nonconforming[1] == slow[1]
    else:
        assert (loaded.error, repr(loaded.columns)) == (slow[0], repr(slow[1]))


def test_a_conforming_trace_takes_the_shortcut() -> None:
    decoded = {"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": [_good(i) for i in range(4)]}
    cols = fast_columns(json.dumps(decoded).encode())
    assert cols is not None and cols == load_columns(json.dumps(decoded)).columns


def test_the_fast_path_reads_the_fields_the_published_schema_lists() -> None:
    from tftui.trace.fileload import _Step
    from tftui.trace.integrity import trace_schema

    step = trace_schema()["$defs"]["step"]
    assert set(_Step.__struct_fields__) == set(step["properties"])
    assert set(_Step.__struct_fields__[: len(_Step.__struct_fields__) - len(_Step.__struct_defaults__)]) == set(
        step["required"])


def test_not_json_and_surrogates_are_worded_by_the_strict_loader() -> None:
    assert load_trace_file(b"{nope").error == load_columns(b"{nope").error
    text = json.dumps({"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": [_good(0)]})
    surrogate = text.replace('"p0"', '"p\\ud800"').encode()
    assert load_trace_file(surrogate).error == load_columns(surrogate).error
