"""The loader never raises, whatever text or bytes it is given."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tftui.flow.load import load_flow_text

KEYS = [
    "name",
    "phases",
    "id",
    "type",
    "task",
    "dependsOn",
    "from",
    "when",
    "retry",
    "max",
    "score",
    "branches",
    "over",
    "until",
    "eval",
    "run",
    "expect",
    "final",
    "budget",
    "chain",
    "tasks",
    "args",
    "join",
    "def",
]
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["agent", "gate", "map", "loop", "script", "{steps.a.output}", "a", "b"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=12,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text):
    result = load_flow_text(text)
    assert result.flow is None or not result.errors


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise(data):
    result = load_flow_text(data)
    assert result.flow is None or not result.errors


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(JSONISH)
def test_arbitrary_json_documents_never_raise(value):
    text = json.dumps(value)
    result = load_flow_text(text)
    for d in result.diagnostics:
        assert d.line is not None and d.line >= 1 and d.col >= 1
    load_flow_text(text, args={})


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(KEYS), JSONISH, max_size=6), max_size=5))
def test_arbitrary_phases_never_raise(phases):
    result = load_flow_text(json.dumps({"name": "p", "phases": phases}), args={"a": 1})
    for d in result.diagnostics:
        assert d.line is not None and d.col is not None


def test_deep_nesting_is_a_diagnostic():
    result = load_flow_text("[" * 100000)
    assert result.flow is None and result.diagnostics
