"""copy_state (the copy a partial re-run continues and a replay keeps as a checkpoint): equal to
the original field for field, and sharing nothing that can change with it."""

from __future__ import annotations

import copy
from dataclasses import fields, is_dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.engine import events as ev
from tftui.engine.state import (
    Attempt,
    GateEvaluation,
    Metering,
    PhaseState,
    PhaseStatus,
    RunState,
    apply,
    copy_state,
)
from tftui.lang.values import MISSING

STATE_CLASSES = (RunState, PhaseState, Attempt, GateEvaluation)


def _nested(tag: str) -> dict[str, Any]:
    return {"tag": tag, "list": [1, 2.5, None, True, {"deep": [tag, {"deeper": [tag]}]}], "missing": MISSING}


def _value(cls: type, name: str, kind: str, depth: int) -> Any:
    """A value unlike the field's default, with mutable parts wherever the type allows."""
    tag = f"{cls.__name__}.{name}"
    simple: dict[str, Any] = {
        "str": tag, "str | None": tag, "int": 7, "int | None": 8, "float": 1.5, "float | None": 2.5,
        "PhaseStatus": PhaseStatus.FAILED, "Metering": Metering(usage=False, cost=False),
        "dict[str, Any]": _nested(tag), "dict[str, Any] | None": _nested(tag), "Any": [_nested(tag), tag],
        "list[str]": [tag, tag + "-2"], "set[str]": {tag, tag + "-2"}, "dict[str, str]": {tag: tag + "-v"},
        "ev.Paused | None": ev.Paused(point="before-phase", phase_id=tag, why="breakpoint", seq=3, ts=4.0),
    }
    if kind == "bool":
        default = cls.__dataclass_fields__[name].default
        return not default
    if kind in simple:
        return simple[kind]
    if kind == "list[Attempt]":
        return [rich(Attempt, depth), rich(Attempt, depth)]
    if kind == "list[GateEvaluation]":
        return [rich(GateEvaluation, depth)]
    if kind == "dict[str, PhaseState]":
        return {"a": rich(PhaseState, depth), "b": rich(PhaseState, depth)}
    if kind == "RunState | None":
        return rich(RunState, depth + 1) if depth < 1 else None
    raise AssertionError(f"{tag}: a field of a new type ({kind}): give it a value in this test")


def rich(cls: type, depth: int = 0) -> Any:
    """An instance of `cls` with every field set to a value other than its default."""
    obj = cls.__new__(cls)
    for f in fields(cls):
        object.__setattr__(obj, f.name, _value(cls, f.name, str(f.type), depth))
    return obj


def _mutate_all(value: Any, seen: set[int]) -> None:
    """Change every mutable object reachable from `value`, in place."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for item in list(value.values()):
            _mutate_all(item, seen)
        value["mutated"] = True
    elif isinstance(value, list):
        for item in list(value):
            _mutate_all(item, seen)
        value.append("mutated")
    elif isinstance(value, set):
        value.add("mutated")
    elif is_dataclass(value) and not type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
        for f in fields(value):
            _mutate_all(getattr(value, f.name), seen)
            setattr(value, f.name, "mutated")


def test_every_field_of_the_fixture_differs_from_its_default() -> None:
    """(The fixture covers every field: a copy that skipped or reset one could not look equal.)"""
    state = rich(RunState)
    phase = state.phases["a"]
    defaults = [
        (state, RunState()),
        (phase, PhaseState(id="default")),
        (phase.attempt_log[0], Attempt(node_path="", attempt=0)),
        (phase.gate_history[0], GateEvaluation(round=0, verdict="")),
    ]
    for obj, default in defaults:
        for f in fields(obj):
            assert getattr(obj, f.name) != getattr(default, f.name), (type(obj).__name__, f.name)


def test_a_copy_equals_the_original_field_for_field() -> None:
    state = rich(RunState)
    copied = copy_state(state)
    assert type(copied) is RunState
    for f in fields(RunState):
        assert getattr(copied, f.name) == getattr(state, f.name), f.name
    for pid, phase in state.phases.items():
        other = copied.phases[pid]
        assert type(other) is PhaseState
        for f in fields(PhaseState):
            assert getattr(other, f.name) == getattr(phase, f.name), (pid, f.name)
        for a, b in zip(phase.attempt_log, other.attempt_log, strict=True):
            assert [getattr(b, f.name) for f in fields(Attempt)] == [getattr(a, f.name) for f in fields(Attempt)]
        for a, b in zip(phase.gate_history, other.gate_history, strict=True):
            assert [getattr(b, f.name) for f in fields(GateEvaluation)] == [
                getattr(a, f.name) for f in fields(GateEvaluation)]
    assert copied.phases["a"].sub == state.phases["a"].sub and copied.phases["a"].sub is not None


def test_mutating_the_copy_leaves_the_original_alone() -> None:
    state = rich(RunState)
    before = copy.deepcopy(state)
    copied = copy_state(state)
    _mutate_all(copied, set())
    assert state == before
    assert copied.phases == "mutated"  # (the walk did reach the copy)


def test_mutating_the_original_leaves_the_copy_alone() -> None:
    state = rich(RunState)
    copied = copy_state(state)
    before = copy.deepcopy(copied)
    _mutate_all(state, set())
    assert copied == before


def _run_events() -> list[ev.Event]:
    return [
        ev.RunStarted(run_id="r", flow_name="f", phase_ids=["a", "g"], phase_types={"a": "agent", "g": "gate"},
                      args={"topic": {"deep": ["x"]}}, seq=1, ts=1.0),
        ev.PhaseStarted(phase_id="a", seq=2, ts=1.0),
        ev.attempt_started("a", "a", 0, "do a", "writer"),
        ev.PhaseWarning(phase_id="a", message="slow", seq=4, ts=1.5),
        ev.agent_returned("a", "a", 0, '{"k": [1]}', None, {"input": 3, "output": 4, "costUSD": 0.5}, 12.0, False, 0),
        ev.PhaseFinished(phase_id="a", output='{"k": [1]}', json={"k": [1]}, warnings=["slow"],
                         usage={"input": 3, "output": 4, "cost": 0.5}, extra={"loop": {"rounds": [1, 2]}},
                         seq=6, ts=2.0),
        ev.PhaseStarted(phase_id="g", phase_type="gate", seq=7, ts=2.0),
        ev.ScorersEvaluated(phase_id="g", results=[{"name": "len", "passed": False}], combined=0.2, threshold=0.5,
                            seq=8, ts=2.0),
        ev.GateVerdict(phase_id="g", verdict="block", reason="short", source="score", prompts=["p"], seq=9, ts=2.0),
        ev.OnBlockRound(phase_id="g", round=1, seq=10, ts=2.1),
        ev.GateVerdict(phase_id="g", verdict="pass", source="score", round=1, seq=11, ts=2.2),
        ev.PhaseFinished(phase_id="g", gate={"verdict": "pass"}, seq=12, ts=2.3),
        ev.RunFinished(status="completed", final_output="done", seq=13, ts=2.4),
    ]


def test_a_copy_folds_on_as_the_original_does() -> None:
    """A partial re-run continues a copy: folding the rest of a run into the copy gives what
    folding it into the original gives, and the original does not see the copy's events."""
    events = _run_events()
    for cut in range(len(events) + 1):
        state = RunState()
        for event in events[:cut]:
            apply(state, event)
        copied = copy_state(state)
        assert copied == state
        frozen = copy.deepcopy(state)
        for event in events[cut:]:
            apply(copied, event)
        assert state == frozen
        whole = RunState()
        for event in events:
            apply(whole, event)
        assert copied == whole


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(json=_json, extra=st.dictionaries(st.text(max_size=4), _json, max_size=3), gate=st.none() | _json)
def test_any_json_in_a_phase_is_copied_deeply(json: Any, extra: dict[str, Any], gate: Any) -> None:
    state = RunState(phases={"p": PhaseState(id="p", json=json, extra=extra, gate=gate)})
    before = copy.deepcopy(state)
    copied = copy_state(state)
    assert copied == state
    _mutate_all(copied, set())
    assert state == before
