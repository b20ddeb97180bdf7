"""Finding, parsing and hardening sub-flow definitions for `flow` / `expand` phases (docs/language.md §2.5, docs/scheduling.md §6).

Pure helpers (no run state): the phase handler in `tftui.engine.phases.subflow` decides
what a problem means (a failed phase for a bad `use`, `defError` for a bad `def`).

- Saved flows (`use: NAME`): `<flow dir>/flows/NAME.json`, then the user's
  `$XDG_CONFIG_HOME/tftui/flows/NAME.json` (default `~/.config/tftui/flows/`); a saved
  flow using another finds its siblings in its own folder first.
- Definitions (`def`): an inline object, or a string interpolated at run time and read
  with the lenient extractor (docs/language.md §3.4), so a planner's reply in a code fence works; a
  bare phase array and `{phases: [...]}` are both accepted (the name defaults to the
  phase id).
- Hardening of definitions (docs/language.md §2.5): ≤ 100 phases (expand: ≤ `maxNodes`, default 50), concurrency
  ≤ 16, nesting ≤ 5, no `script`, no `code-compiles`/`regex` scorers, no `cwd` or context
  pre-reads; map items beyond 200 are dropped at run time with a warning.
- Transitively (docs/trust.md §2): a saved flow reached through `use` from a definition (or
  from a saved flow such a definition reached) runs only if it, and every saved flow it
  reaches in turn, keeps the same limits (`sandbox_error`).
- Budgets (docs/scheduling.md §6): an inline `def` gets the per-dimension minimum of its own and the
  parent's; a saved flow keeps its own, or inherits the parent's when it has none.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tftui.flow.model import Budget, Flow, PhaseBase, saved_flow_use
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING, JSONObject, JSONValue
from tftui.paths import user_config_dir

MAX_DEF_PHASES = 100
EXPAND_DEFAULT_MAX_NODES = 50  # an expand fragment without `maxNodes` (docs/language.md §2.5)
MAX_DEF_MAP_ITEMS = 200
MAX_DEF_CONCURRENCY = 16
MAX_NESTING = 5
SAVED_FLOWS_DIR = "flows"
_FORBIDDEN_SCORERS = ("code-compiles", "regex")
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class StackEntry:
    """One flow on the sub-flow stack: `key` identifies it (a resolved path), `label` names it."""

    key: str
    label: str


# ── saved flows ─────────────────────────────────────────────────────────────────────


def saved_flow_dirs(flow_path: str | None, env: Mapping[str, str] | None = None) -> list[Path]:
    """Where `use: NAME` looks, in order: `<flow dir>/flows/`, then the user's config `flows/`.

    A saved flow (itself in a `flows/` folder) also finds its siblings there first.
    """
    base = Path(flow_path).resolve().parent if flow_path else Path.cwd()
    dirs = [base] if base.name == SAVED_FLOWS_DIR else []
    dirs += [base / SAVED_FLOWS_DIR, user_config_dir(env if env is not None else os.environ) / SAVED_FLOWS_DIR]
    return list(dict.fromkeys(dirs))


def saved_name_error(name: str) -> str | None:
    """A `use` value must be a plain file name (no path separators, no leading dot)."""
    if not _PLAIN_NAME.match(name) or ".." in name:
        return f"saved flow name '{name}' must be a plain name (letters, digits, '_', '-', '.')"
    return None


def find_saved_flow(name: str, flow_path: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    for folder in saved_flow_dirs(flow_path, env):
        candidate = folder / f"{name}.json"
        if candidate.is_file():
            return candidate
    return None


def cycle_text(stack: list[StackEntry], key: str, label: str) -> str | None:
    """`research -> summarize -> research` when `key` (or the name `label`) is already on the stack."""
    for index, entry in enumerate(stack):
        # by file, or by name: a top flow `research.json` reached again as flows/research.json
        if entry.key == key or entry.label == label:
            return " -> ".join([e.label for e in stack[index:]] + [label])
    return None


# ── definitions ─────────────────────────────────────────────────────────────────────


def definition_of(raw: JSONValue, default_name: str) -> tuple[JSONObject | None, str | None]:
    """A flow definition dict from an inline/parsed `def` value: (definition, error)."""
    if isinstance(raw, str):
        raw = lenient_parse(raw)
        if raw is MISSING:
            return None, "def is not valid JSON"
    if isinstance(raw, list):
        return {"name": default_name, "phases": raw}, None
    if isinstance(raw, dict):
        if not isinstance(raw.get("phases"), list):
            return None, "def must be a flow definition: {\"phases\": [...]} or a bare array of phases"
        if not isinstance(raw.get("name"), str) or not raw["name"].strip():
            raw = {**raw, "name": default_name}
        return raw, None
    return None, "def must be a JSON object (a flow definition) or an array of phases"


def _num(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def hardening_error(flow: Flow, max_nodes: int = MAX_DEF_PHASES) -> str | None:
    """The first docs/language.md §2.5 limit a definition breaks, or None."""
    count = len(flow.phases)
    if count > MAX_DEF_PHASES:
        return f"def has {count} phases (a generated flow allows at most {MAX_DEF_PHASES})"
    if count > max_nodes:
        return f"def has {count} phases (maxNodes is {max_nodes})"
    width = _num(flow.concurrency)
    if width is not None and width > MAX_DEF_CONCURRENCY:
        return f"def concurrency {flow.concurrency} exceeds the generated-flow limit of {MAX_DEF_CONCURRENCY}"
    for phase in flow.phases:
        where = f"phase '{phase.id}'"
        width = _num(phase.concurrency)
        if width is not None and width > MAX_DEF_CONCURRENCY:
            return f"{where}: concurrency {phase.concurrency} exceeds the generated-flow limit of {MAX_DEF_CONCURRENCY}"
        if phase.type == "script":
            return f"{where}: script phases are not allowed in a generated flow"
        branches = getattr(phase, "branches", None) or []
        if phase.cwd is not None or any(getattr(b, "cwd", None) is not None for b in branches):
            return f"{where}: 'cwd' is not allowed in a generated flow"
        if phase.context:
            return f"{where}: 'context' pre-reads are not allowed in a generated flow"
        score = getattr(phase, "score", None)
        scorers = score.get("scorers") if isinstance(score, dict) else None
        for scorer in scorers if isinstance(scorers, list) else []:
            kind = scorer.get("type") if isinstance(scorer, dict) else None
            if kind in _FORBIDDEN_SCORERS:
                return f"{where}: '{kind}' scorers are not allowed in a generated flow"
    return None


def nesting_depth(definition: JSONValue) -> int:
    """Sub-flow levels an inline definition spans (1 = no inline sub-flows inside it)."""
    phases = definition.get("phases") if isinstance(definition, dict) else definition
    deepest = 0
    for raw in phases if isinstance(phases, list) else []:
        inner = raw.get("def") if isinstance(raw, dict) and raw.get("type") in ("flow", "expand") else None
        if isinstance(inner, (dict, list)):
            deepest = max(deepest, nesting_depth(inner))
    return 1 + deepest


def max_nodes_of(phase: PhaseBase) -> int:
    """An expand phase's fragment cap: its `maxNodes` (1…100), else 50."""
    value = _num(getattr(phase, "max_nodes", None))
    if value is None:
        return EXPAND_DEFAULT_MAX_NODES
    return max(1, min(MAX_DEF_PHASES, int(value)))


class FlowLoader(Protocol):
    """Reads a saved flow file into a `Flow` (None when it does not load: the run reports that)."""

    def __call__(self, path: Path) -> Flow | None: ...


def sandbox_error(flow: Flow, path: Path, chain: list[str], load: FlowLoader) -> tuple[list[str], str] | None:
    """The first generated-flow limit that `flow` (saved at `path`, reached along `chain`) or a
    saved flow it reaches through `use` breaks: (the chain down to the offender, the problem).

    Inline definitions inside are not read here: they are hardened when they run, like any
    `def`. Saved flows that are missing or do not load are left to the run, which fails them.
    """
    seen: set[str] = set()
    todo: list[tuple[Flow, Path, list[str]]] = [(flow, path, chain)]
    while todo:
        current, where, names = todo.pop()
        key = str(where.resolve())
        if key in seen:
            continue  # a cycle is refused by the stack check when it runs
        seen.add(key)
        problem = hardening_error(current)
        if problem is not None:
            return names, problem
        for phase in current.phases:
            use = saved_flow_use(phase)  # a flow phase's: what a run of `current` would read
            if not use or saved_name_error(use) is not None:
                continue
            found = find_saved_flow(use, str(where))
            inner = load(found) if found is not None else None
            if found is not None and inner is not None:
                todo.append((inner, found, [*names, use]))
    return None


# ── budgets ─────────────────────────────────────────────────────────────────────────


def child_budget(child: Budget | None, parent: Budget | None, *, inline: bool) -> Budget | None:
    """The budget a sub-flow runs with (docs/scheduling.md §6): the child's own, the parent's, or
    (an inline `def`) the smaller of the two in each dimension."""
    if parent is None:
        return child
    if child is None:
        return parent.model_copy()
    if not inline:
        return child
    merged = child.model_copy()
    for name in ("max_usd", "max_tokens"):
        mine, theirs = getattr(child, name), getattr(parent, name)
        if mine is None or (theirs is not None and theirs < mine):
            setattr(merged, name, theirs)
    return merged
