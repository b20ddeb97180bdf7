"""`tftui gate` reads a trace file with one parse and a columnar schema check (tftui.trace.fileload):
whatever the file, the result is what the schema check and the strict loader say."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace.fileload import conforming_columns, load_trace_file
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


def test_a_conforming_trace_takes_the_shortcut() -> None:
    decoded = {"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": [_good(i) for i in range(4)]}
    cols = conforming_columns(decoded)
    assert cols is not None and cols == load_columns(json.dumps(decoded)).columns


def test_not_json_and_surrogates_are_worded_by_the_strict_loader() -> None:
    assert load_trace_file(b"{nope").error == load_columns(b"{nope").error
    text = json.dumps({"schemaVersion": 1, "fixture": "f", "status": "ok", "steps": [_good(0)]})
    surrogate = text.replace('"p0"', '"p\\ud800"').encode()
    assert load_trace_file(surrogate).error == load_columns(surrogate).error
