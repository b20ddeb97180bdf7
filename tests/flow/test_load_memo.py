"""A saved version loaded from the one before (`load_flow_text(..., previous=)`, the debugger's hot
reload) gets exactly what a fresh load of its text gets: the same diagnostics in the same order,
at the same places, and the same flow; the phases a save left alone are not built again."""

from __future__ import annotations

import copy
import json

import pytest

from tftui.flow.graph import fingerprint, phase_prints
from tftui.flow.load import LoadResult, load_flow_text


def base() -> dict:
    return {
        "name": "memo",
        "args": {"topic": {"type": "string", "default": "x"}},
        "phases": [
            {"id": "a", "agent": "w", "task": "Start {args.topic}"},
            {"id": "b", "agent": "w", "dependsOn": ["a"], "task": "Use {steps.a.output}", "retry": {"max": 2}},
            {"id": "g", "type": "gate", "agent": "r", "dependsOn": ["b"], "task": "Judge {steps.b.output}",
             "score": {"scorers": [{"type": "regex", "pattern": "ok"}]}},
            {"id": "m", "type": "map", "agent": "w", "dependsOn": ["a"], "over": "{steps.a.json}", "task": "{item}"},
            {"id": "s", "type": "script", "dependsOn": ["m"], "run": ["echo", "{steps.m.output}"]},
            {"id": "z", "agent": "w", "dependsOn": ["g", "s"], "task": "End {steps.b.output}", "final": True},
        ],
    }


def edit(data: dict, index: int, **changes: object) -> dict:
    out = copy.deepcopy(data)
    out["phases"][index].update(changes)
    return out


def versions() -> list[tuple[str, dict]]:
    v0 = base()
    v1 = edit(v0, 1, task="Use {steps.a.output} twice")
    v2 = edit(v1, 1, optional=1)  # `1` is not `true`: a schema error, not the same phase
    v3 = edit(v2, 1, optional=True)
    v4 = copy.deepcopy(v3)
    v4["phases"][3] = dict(reversed(list(v4["phases"][3].items())))  # the same keys, another order
    v5 = copy.deepcopy(v4)
    v5["phases"].insert(0, {"id": "first", "agent": "w", "task": "go"})  # every index moves
    v6 = copy.deepcopy(v5)
    v6["idleTimeout"] = 0  # a flow setting the phases' own checks read
    v7 = copy.deepcopy(v6)
    del v7["idleTimeout"]
    v7["args"]["topic"] = {"type": "number", "default": 3}
    v8 = edit(v7, 2, dependsOn=["nope"])  # an error: the cycle and reachability checks stand down
    v9 = edit(v8, 2, dependsOn=["a"])
    v10 = copy.deepcopy(v9)
    v10["phases"].append(copy.deepcopy(v10["phases"][1]))  # a duplicated id
    v11 = copy.deepcopy(v9)
    v11["strictInterpolation"] = True
    v11["phases"][4]["task"] = "{item} and {steps.zz.output}"
    return [(name, value) for name, value in locals().items() if name.startswith("v")]


def same(incremental: LoadResult, fresh: LoadResult) -> None:
    assert incremental.diagnostics == fresh.diagnostics
    assert (incremental.flow is None) == (fresh.flow is None)
    for got, want in ((incremental.flow, fresh.flow), (incremental.model, fresh.model)):
        if want is not None:
            assert got is not None
            assert got.model_dump(by_alias=True) == want.model_dump(by_alias=True)
            assert [type(p) for p in got.phases] == [type(p) for p in want.phases]
    assert incremental.indices == fresh.indices


@pytest.mark.parametrize("args", [None, {"topic": "t", "extra": 1}])
def test_each_version_loads_as_a_fresh_load_of_its_text(args):
    previous = load_flow_text(json.dumps(base()), "f.json", args=args, remember=True)
    for name, data in versions():
        text = json.dumps(data, indent=1)
        incremental = load_flow_text(text, "f.json", args=args, previous=previous)
        same(incremental, load_flow_text(text, "f.json", args=args))
        assert incremental.memo is not None, name
        previous = incremental


def test_a_save_of_one_phase_builds_that_phase_only():
    data = base()
    previous = load_flow_text(json.dumps(data), "f.json", remember=True)
    changed = edit(data, 3, task="{item} again")
    loaded = load_flow_text(json.dumps(changed), "f.json", previous=previous)
    assert loaded.flow is not None and previous.flow is not None
    kept = [new is old for new, old in zip(loaded.flow.phases, previous.flow.phases, strict=True)]
    assert kept == [True, True, True, False, True, True]
    # and their fingerprints are the ones the phases' own give
    phase_prints(previous.flow)
    assert phase_prints(loaded.flow) == {p.id: fingerprint(p) for p in loaded.flow.phases}


def test_a_version_with_errors_is_a_fine_previous_one():
    broken = edit(base(), 2, dependsOn=["nope"])
    previous = load_flow_text(json.dumps(broken), "f.json", remember=True)
    assert previous.flow is None
    fixed = json.dumps(base())
    same(load_flow_text(fixed, "f.json", previous=previous), load_flow_text(fixed, "f.json"))


def test_without_remember_nothing_is_kept():
    assert load_flow_text(json.dumps(base()), "f.json").memo is None


def test_a_saved_version_with_the_same_edges_has_the_same_graph():
    from tftui.flow.graph import Dag, dag_of

    data = base()
    previous = load_flow_text(json.dumps(data), "f.json", remember=True)
    assert previous.flow is not None
    dag_of(previous.flow)
    for changed in (edit(data, 3, task="{item} again"), edit(data, 5, dependsOn=["s", "g"]), edit(data, 4, dependsOn=["m", "a"])):
        loaded = load_flow_text(json.dumps(changed), "f.json", previous=previous)
        assert loaded.flow is not None
        fresh = Dag.from_flow(loaded.flow)
        got = dag_of(loaded.flow)
        assert (got.ids, got.deps, got.dependents, got.layers, got.cycle) == (
            fresh.ids, fresh.deps, fresh.dependents, fresh.layers, fresh.cycle)
        assert {pid: got.downstream(pid) for pid in got.ids} == {pid: fresh.downstream(pid) for pid in fresh.ids}
