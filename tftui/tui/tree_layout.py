"""Where each phase sits in the DAG tree (pure; no Textual).

Rules: phases appear in topological-layer order; a phase is nested under
the dependency that released it last (its deepest-layer dependency, first in edge
order on ties), shown once, and referenced as `↪ id` under its other dependencies.

A join of independent branches (dependencies under different top-level phases, e.g. a
final `report` after four unrelated roots) is drawn at the top level, after the phases
of earlier layers, with a `↪` reference under each dependency: nested under one of
them it would sit in the middle of the list, inside an unrelated branch.

When the whole tree hangs from one top-level phase, its chain (each link the only,
plain child of the previous one) is drawn flat, so a 500-step pipeline does not indent
500 times. With several top-level phases nothing is flattened: a lifted chain link
would look like one more independent root (`plan`, then `execute` beside it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tftui.flow.model import Flow


@dataclass
class TreeItem:
    phase_id: str
    ref: bool = False  # True: a reference to a phase shown elsewhere
    children: list[TreeItem] = field(default_factory=list)


def layers_of(flow: Flow) -> list[list[str]]:
    """docs/scheduling.md §1 Kahn layers; uses the flow engineer's Dag when present."""
    try:
        from tftui.flow.graph import dag_of

        return [list(layer) for layer in dag_of(flow).layers]
    except Exception:  # graph.py not landed yet, or the flow has a cycle: compute locally
        return _kahn_layers(flow)


def _kahn_layers(flow: Flow) -> list[list[str]]:
    ids = [p.id for p in flow.phases]
    known = set(ids)
    indeg = {p.id: len([e for e in p.edges if e in known]) for p in flow.phases}
    dependents: dict[str, list[str]] = {pid: [] for pid in ids}
    for p in flow.phases:
        for e in p.edges:
            if e in known and p.id not in dependents[e]:
                dependents[e].append(p.id)
    layer = [pid for pid in ids if indeg[pid] == 0]
    layers: list[list[str]] = []
    seen: set[str] = set()
    while layer:
        layers.append(layer)
        seen.update(layer)
        nxt: list[str] = []
        for pid in layer:
            for d in dependents[pid]:
                indeg[d] -= 1
                if indeg[d] == 0:
                    nxt.append(d)
        layer = nxt
    rest = [pid for pid in ids if pid not in seen]  # a cycle: show them anyway, flat
    if rest:
        layers.append(rest)
    return layers


def build_tree(flow: Flow) -> list[TreeItem]:
    layers = layers_of(flow)
    layer_of = {pid: i for i, layer in enumerate(layers) for pid in layer}
    edges = {p.id: [e for e in p.edges if e in layer_of] for p in flow.phases}
    primary: dict[str, str | None] = {}
    root_of: dict[str, str] = {}  # the top-level phase each phase is drawn under
    for layer in layers:
        for pid in layer:
            deps = [d for d in edges.get(pid, []) if layer_of[d] < layer_of[pid]]
            if not deps or len({root_of[d] for d in deps}) > 1:  # a root, or a join of branches
                primary[pid] = None
                root_of[pid] = pid
                continue
            best = deps[0]
            for d in deps[1:]:
                if layer_of[d] > layer_of[best]:
                    best = d
            primary[pid] = best
            root_of[pid] = root_of[best]
    children: dict[str, list[TreeItem]] = {pid: [] for pid in layer_of}
    nodes: dict[str, TreeItem] = {}
    roots: list[TreeItem] = []
    for layer in layers:
        for pid in layer:
            item = TreeItem(pid, children=children[pid])
            nodes[pid] = item
            parent = primary.get(pid)
            if parent is None:
                roots.append(item)
            else:
                children[parent].append(item)
            for dep in edges.get(pid, []):
                if dep != parent and dep in children and layer_of[dep] < layer_of[pid]:
                    children[dep].append(TreeItem(pid, ref=True))
    for item in nodes.values():
        item.children.sort(key=lambda c: (layer_of.get(c.phase_id, 0), c.ref))
    return _flatten_root_chain(roots) if len(roots) == 1 else roots


def _flatten_root_chain(roots: list[TreeItem]) -> list[TreeItem]:
    """The single top-level phase's chain, lifted to the top level: each lone,
    non-reference child joins its parent's level.

    Deeper down nothing is lifted: siblings mean "dependents of the same parent".
    """
    out: list[TreeItem] = []
    for item in roots:
        out.append(item)
        current = item
        while len(current.children) == 1 and not current.children[0].ref:
            child = current.children.pop()
            out.append(child)
            current = child
    return out


def walk(items: list[TreeItem]) -> list[TreeItem]:
    """Every item, depth-first, in display order."""
    result: list[TreeItem] = []
    stack = list(reversed(items))
    while stack:
        item = stack.pop()
        result.append(item)
        stack.extend(reversed(item.children))
    return result
