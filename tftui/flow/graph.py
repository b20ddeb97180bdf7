"""The dependency graph of a flow (docs/scheduling.md §1) and per-phase fingerprints for hot reload.

Edges are `dependsOn ∪ from`; array order of `phases` never implies an edge. Unknown
dependency ids are ignored here (checks report them).
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tftui.flow.model import Flow, PhaseBase


@dataclass
class Dag:
    ids: list[str]  # phases in array order (first occurrence of a duplicated id)
    deps: dict[str, list[str]]  # known edges, dependsOn first, de-duplicated
    dependents: dict[str, list[str]]  # reverse edges, dependents in array order
    layers: list[list[str]]  # Kahn layers; phases on a cycle appear in none
    cycle: list[str] | None = None  # e.g. ["a", "b", "a"]: a depends on b depends on a
    _ancestors: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _downstream: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_flow(cls, flow: Flow) -> Dag:
        return cls.from_phases(flow.phases)

    @classmethod
    def from_phases(cls, phases: Sequence[PhaseBase]) -> Dag:
        ids: list[str] = []
        deps: dict[str, list[str]] = {}
        for phase in phases:
            if phase.id not in deps:
                ids.append(phase.id)
                deps[phase.id] = list(phase.edges)
        for pid in ids:
            deps[pid] = [d for d in deps[pid] if d in deps]
        dependents: dict[str, list[str]] = {pid: [] for pid in ids}
        for pid in ids:
            for dep in deps[pid]:
                dependents[dep].append(pid)
        layers = _kahn_layers(ids, deps, dependents)
        # Kahn's layers hold every phase exactly when there is no cycle: only then look for one
        # (the depth-first search was a third of building the DAG of a flow without cycles).
        placed = sum(map(len, layers))
        return cls(ids, deps, dependents, layers, None if placed == len(ids) else find_cycle(ids, deps))

    @property
    def order(self) -> list[str]:
        """Execution order: the layers flattened."""
        return [pid for layer in self.layers for pid in layer]

    def layer_of(self, phase_id: str) -> int | None:
        for index, layer in enumerate(self.layers):
            if phase_id in layer:
                return index
        return None

    def ancestors(self, phase_id: str) -> frozenset[str]:
        """Every phase `phase_id` transitively depends on (itself excluded unless on a cycle)."""
        return self._closure(phase_id, self.deps, self._ancestors)

    def downstream(self, phase_id: str) -> frozenset[str]:
        """Every phase that transitively depends on `phase_id`."""
        return self._closure(phase_id, self.dependents, self._downstream)

    @staticmethod
    def _closure(start: str, edges: dict[str, list[str]], cache: dict[str, frozenset[str]]) -> frozenset[str]:
        if start in cache:
            return cache[start]
        seen: set[str] = set()
        queue = deque(edges.get(start, ()))
        while queue:
            node = queue.popleft()
            if node in seen:
                continue
            seen.add(node)
            queue.extend(edges.get(node, ()))
        result = frozenset(seen)
        cache[start] = result
        return result


def _kahn_layers(
    ids: list[str], deps: dict[str, list[str]], dependents: dict[str, list[str]]
) -> list[list[str]]:
    indegree = {pid: len(deps[pid]) for pid in ids}
    layers: list[list[str]] = []
    frontier = [pid for pid in ids if indegree[pid] == 0]
    while frontier:
        layers.append(frontier)
        nxt: list[str] = []
        for pid in frontier:
            for dep in dependents[pid]:
                indegree[dep] -= 1
                if indegree[dep] == 0:
                    nxt.append(dep)
        frontier = nxt
    return layers


def find_cycle(ids: Iterable[str], deps: dict[str, list[str]]) -> list[str] | None:
    """A dependency cycle as a path `[a, b, …, a]` (each depends on the next), or None.

    Depth-first in array order, iterative so a 1,000-phase chain cannot overflow the stack.
    """
    white, gray, black = 0, 1, 2
    color = dict.fromkeys(deps, white)
    for root in ids:
        if color[root] != white:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = [root]
        color[root] = gray
        while stack:
            node, i = stack[-1]
            edges = deps[node]
            if i < len(edges):
                stack[-1] = (node, i + 1)
                dep = edges[i]
                if dep not in color:
                    continue
                if color[dep] == gray:
                    return path[path.index(dep) :] + [dep]
                if color[dep] == white:
                    color[dep] = gray
                    stack.append((dep, 0))
                    path.append(dep)
            else:
                color[node] = black
                stack.pop()
                path.pop()
    return None


def fingerprint(phase: PhaseBase) -> str:
    """Hash of the phase's canonical JSON (file keys, sorted, defaults left out)."""
    data = phase.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["type"] = phase.type  # keep the type even where it is the default
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]  # a lone surrogate is a value too


@dataclass(frozen=True)
class FlowDiff:
    added: list[str]
    removed: list[str]
    changed: list[str]
    stale: list[str]  # changed + added + everything downstream of them, in the new flow's order

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.changed)


_PRINTS: list[tuple[Flow, dict[str, str]]] = []  # the last few flow objects' fingerprints
_PRINTS_KEPT = 4


def phase_prints(flow: Flow) -> dict[str, str]:
    """Each phase's fingerprint (id -> print), remembered for the last few flow objects: a hot
    reload diffs the same two flows more than once, and the old one was the new one at the save
    before (a 2,000-phase flow: ~30 ms per flow). A loaded flow is never edited in place, nor
    is a phase: a phase object a saved version shares with an earlier one (the loader reuses
    the unchanged ones, `load.LoadMemo`) keeps its print."""
    for known, prints in _PRINTS:
        if known is flow:
            return prints
    # the versions before share the phases a save left alone, at the same place (newest first;
    # with duplicated ids a print is not each phase's own: those versions are not asked)
    earlier = [(known.phases, prints) for known, prints in reversed(_PRINTS) if len(prints) == len(known.phases)]
    prints = {}
    for index, phase in enumerate(flow.phases):
        for phases, known_prints in earlier:
            if index < len(phases) and phases[index] is phase:
                prints[phase.id] = known_prints[phase.id]
                break
        else:
            prints[phase.id] = fingerprint(phase)
    _PRINTS.append((flow, prints))
    del _PRINTS[:-_PRINTS_KEPT]
    return prints


_DAGS: list[tuple[Flow, Dag]] = []  # the last few flow objects' graphs


def dag_of(flow: Flow) -> Dag:
    """`Dag.from_flow(flow)`, remembered for the last few flow objects (as `phase_prints`): the
    hot reload builds a saved version's graph on the watcher's thread, and its diff and the
    tree's layout read it on the UI thread."""
    for known, dag in _DAGS:
        if known is flow:
            return dag
    dag = _shared_graph(flow) or Dag.from_flow(flow)
    _DAGS.append((flow, dag))
    del _DAGS[:-_PRINTS_KEPT]
    return dag


def _shared_graph(flow: Flow) -> Dag | None:
    """The graph of an earlier version whose phases, place by place, are these objects or have
    these ids and edges (a save that changed no edge: the same graph, with what it worked out)."""
    phases = flow.phases
    for known, dag in reversed(_DAGS):
        before = known.phases
        if len(before) == len(phases) and all(
            a is b or (a.id == b.id and a.edges == b.edges) for a, b in zip(before, phases, strict=True)
        ):
            return dag
    return None


_DIFFS: list[tuple[Flow, Flow, FlowDiff]] = []  # the last few (old, new) pairs diffed


def diff_flows(old: Flow, new: Flow) -> FlowDiff:
    """What a hot reload must re-run: phases whose definition changed, new ones, and their dependents.
    Remembered for the last few pairs of flow objects (a reload asks for the same diff more than
    once; loaded flows are never edited in place)."""
    for known_old, known_new, diff in _DIFFS:
        if known_old is old and known_new is new:
            return diff
    diff = _diff(old, new)
    _DIFFS.append((old, new, diff))
    del _DIFFS[:-_PRINTS_KEPT]
    return diff


def _diff(old: Flow, new: Flow) -> FlowDiff:
    old_prints = phase_prints(old)
    new_prints = phase_prints(new)
    new_ids = list(new_prints)
    added = [pid for pid in new_ids if pid not in old_prints]
    removed = [pid for pid in old_prints if pid not in new_prints]
    changed = [pid for pid in new_ids if pid in old_prints and old_prints[pid] != new_prints[pid]]
    dag = dag_of(new)
    stale_set = set(added) | set(changed)
    for pid in added + changed:
        stale_set |= dag.downstream(pid)
    stale = [pid for pid in new_ids if pid in stale_set]
    return FlowDiff(added, removed, changed, stale)
