"""graph.py: Kahn layers (SPEC §3.1), closures, cycles, fingerprints, hot-reload diffs."""

from __future__ import annotations

from tftui.flow.graph import Dag, diff_flows, find_cycle, fingerprint
from tftui.flow.model import Flow


def flow(*phases: dict, name: str = "g") -> Flow:
    return Flow.model_validate({"name": name, "phases": [{"task": "t", **p} for p in phases]})


DIAMOND = flow(
    {"id": "d", "dependsOn": ["b", "c"]},
    {"id": "a"},
    {"id": "c", "dependsOn": ["a"]},
    {"id": "b", "dependsOn": ["a"]},
    {"id": "e"},
)


def test_layers_follow_kahn_in_array_order():
    dag = Dag.from_flow(DIAMOND)
    assert dag.layers == [["a", "e"], ["c", "b"], ["d"]]
    assert dag.order == ["a", "e", "c", "b", "d"]
    assert dag.layer_of("d") == 2


def test_next_layer_order_is_by_parent_then_dependent_array_order():
    f = flow(
        {"id": "x"},
        {"id": "y"},
        {"id": "y2", "dependsOn": ["y"]},
        {"id": "x2", "dependsOn": ["x"]},
        {"id": "x1", "dependsOn": ["x"]},
    )
    assert Dag.from_flow(f).layers == [["x", "y"], ["x2", "x1", "y2"]]


def test_edges_deps_and_dependents():
    f = flow({"id": "a"}, {"id": "b"}, {"id": "r", "type": "reduce", "from": ["b", "a"], "dependsOn": ["a"]})
    dag = Dag.from_flow(f)
    assert dag.deps["r"] == ["a", "b"]
    assert dag.dependents == {"a": ["r"], "b": ["r"], "r": []}


def test_unknown_edges_are_ignored():
    dag = Dag.from_flow(flow({"id": "a", "dependsOn": ["ghost"]}))
    assert dag.layers == [["a"]] and dag.deps["a"] == []


def test_ancestors_and_downstream():
    dag = Dag.from_flow(DIAMOND)
    assert dag.ancestors("d") == {"a", "b", "c"}
    assert dag.ancestors("a") == set()
    assert dag.downstream("a") == {"b", "c", "d"}
    assert dag.downstream("e") == set()


def test_cycles():
    f = flow(
        {"id": "a", "dependsOn": ["c"]},
        {"id": "b", "dependsOn": ["a"]},
        {"id": "c", "dependsOn": ["b"]},
        {"id": "z"},
    )
    dag = Dag.from_flow(f)
    assert dag.cycle == ["a", "c", "b", "a"]
    assert dag.layers == [["z"]]  # phases on a cycle never become ready
    assert find_cycle(["s"], {"s": ["s"]}) == ["s", "s"]
    assert Dag.from_flow(DIAMOND).cycle is None


def test_long_chain_does_not_overflow():
    phases = [{"id": "p0"}] + [{"id": f"p{i}", "dependsOn": [f"p{i - 1}"]} for i in range(1, 3000)]
    dag = Dag.from_flow(flow(*phases))
    assert len(dag.layers) == 3000 and dag.cycle is None
    assert len(dag.downstream("p0")) == 2999


def test_fingerprint_ignores_defaults_and_key_order():
    a = flow({"id": "a", "task": "x", "optional": False, "join": "all"}).phases[0]
    b = Flow.model_validate({"name": "g", "phases": [{"task": "x", "id": "a"}]}).phases[0]
    c = flow({"id": "a", "task": "y"}).phases[0]
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(c)


def test_diff_flows_marks_changed_added_and_downstream_stale():
    old = flow(
        {"id": "a"},
        {"id": "b", "dependsOn": ["a"]},
        {"id": "c", "dependsOn": ["b"]},
        {"id": "x"},
        {"id": "gone"},
    )
    new = flow(
        {"id": "a"},
        {"id": "b", "dependsOn": ["a"], "task": "changed"},
        {"id": "c", "dependsOn": ["b"]},
        {"id": "x"},
        {"id": "n", "dependsOn": ["x"]},
        {"id": "after-n", "dependsOn": ["n"]},
    )
    diff = diff_flows(old, new)
    assert diff.added == ["n", "after-n"]
    assert diff.removed == ["gone"]
    assert diff.changed == ["b"]
    assert diff.stale == ["b", "c", "n", "after-n"]
    assert diff_flows(old, old).unchanged
