"""Shorthand flow specs (docs/language.md §1.5): `{task}`, `{tasks: [...]}`, `{chain: [...]}`.

`desugar` turns a shorthand object into a full flow dict; `source_path` maps a JSON path
in the desugared flow back to the shorthand file, so diagnostics point at the right line.
"""

from __future__ import annotations

from typing import Literal, TypeGuard

from tftui.flow.diagnostics import Diagnostic, JsonPath, suggestion
from tftui.lang.values import JSONObject, JSONValue

Kind = Literal["task", "tasks", "chain"]

# Top-level keys a shorthand spec carries into the desugared flow.
CARRIED = ("name", "description", "concurrency", "agentScope", "args", "budget", "strictInterpolation")
STEP_KEYS = ("task", "agent", "context", "contextLimit", "cwd")
_TOP_KEYS = {
    "task": (*CARRIED, *STEP_KEYS),
    "tasks": (*CARRIED, "tasks", "context", "contextLimit", "cwd"),
    "chain": (*CARRIED, "chain", "context", "contextLimit", "cwd"),
}


def shorthand_kind(data: JSONValue) -> Kind | None:
    """Which shorthand `data` is, or None for a full flow (docs/language.md §1.1 rule)."""
    if not isinstance(data, dict) or isinstance(data.get("phases"), list):
        return None
    if isinstance(data.get("chain"), list) and data["chain"]:
        return "chain"
    if isinstance(data.get("tasks"), list) and data["tasks"]:
        return "tasks"
    if isinstance(data.get("task"), str):
        return "task"
    return None


def _context_list(value: JSONValue) -> list[str] | None:
    if not isinstance(value, list):
        return None
    items = [v for v in value if isinstance(v, str) and v.strip()]
    return items or None


def _step(raw: JSONValue, path: JsonPath, warnings: list[Diagnostic]) -> JSONObject:
    """One chain/tasks step: a string is its task; an object keeps the step keys."""
    if isinstance(raw, str):
        return {"task": raw}
    if not isinstance(raw, dict):
        return {"task": ""}
    step: JSONObject = {"task": raw.get("task", "")}
    if isinstance(raw.get("agent"), str):
        step["agent"] = raw["agent"]
    ctx = _context_list(raw.get("context"))
    if ctx:
        step["context"] = ctx
    for key in ("contextLimit", "cwd"):
        if key in raw:
            step[key] = raw[key]
    for key in raw:
        if key not in STEP_KEYS:
            warnings.append(
                Diagnostic(
                    "warning",
                    f"Shorthand step {path[-1]}: unknown field '{key}' is ignored{suggestion(key, STEP_KEYS)}",
                    path=(*path, key),
                    at_key=True,
                )
            )
    return step


def desugar(data: JSONObject, kind: Kind) -> tuple[JSONObject, list[Diagnostic]]:
    """The full flow dict for a shorthand spec, plus warnings about ignored keys."""
    warnings: list[Diagnostic] = []
    flow: JSONObject = {k: data[k] for k in CARRIED if k in data}
    name = data.get("name")
    if not (isinstance(name, str) and name.strip()):
        flow["name"] = {"task": "task", "tasks": "parallel", "chain": "chain"}[kind]
    top_cwd = data.get("cwd") if isinstance(data.get("cwd"), str) and data["cwd"].strip() else None

    if kind == "chain":
        if "context" in data or "contextLimit" in data:
            key = "context" if "context" in data else "contextLimit"
            warnings.append(
                Diagnostic(
                    "warning",
                    "Shorthand chain ignores top-level 'context'/'contextLimit' — put them on individual steps instead.",
                    path=(key,),
                    at_key=True,
                )
            )
        steps = [_step(s, ("chain", i), warnings) for i, s in enumerate(data["chain"])]
        phases = []
        for i, step in enumerate(steps):
            phase = {"id": f"step{i + 1}", "type": "agent", **step}
            if top_cwd and "cwd" not in phase:
                phase["cwd"] = top_cwd
            if i > 0:
                phase["dependsOn"] = [f"step{i}"]
            if i == len(steps) - 1:
                phase["final"] = True
            phases.append(phase)
    elif kind == "tasks":
        steps = [_step(s, ("tasks", i), warnings) for i, s in enumerate(data["tasks"])]
        branches = [{k: v for k, v in s.items() if k in ("task", "agent", "cwd")} for s in steps]
        phase = {"id": "parallel", "type": "parallel", "branches": branches, "final": True}
        if top_cwd:
            phase["cwd"] = top_cwd
        shared = (_context_list(data.get("context")) or []) + [c for s in steps for c in s.get("context", [])]
        if shared:
            phase["context"] = list(dict.fromkeys(shared))
        limits = [v for v in [data.get("contextLimit"), *(s.get("contextLimit") for s in steps)] if _num(v)]
        if limits:
            phase["contextLimit"] = max(limits)
        phases = [phase]
    else:
        phase = {"id": "main", "type": "agent", "task": data["task"], "final": True}
        for key in ("agent", "contextLimit"):
            if key in data:
                phase[key] = data[key]
        ctx = _context_list(data.get("context"))
        if ctx:
            phase["context"] = ctx
        if top_cwd:
            phase["cwd"] = top_cwd
        phases = [phase]

    for key in data:
        if key not in _TOP_KEYS[kind]:
            warnings.append(
                Diagnostic(
                    "warning",
                    f"Unknown top-level field '{key}' in a '{kind}' shorthand spec is ignored"
                    f"{suggestion(key, _TOP_KEYS[kind])}",
                    path=(key,),
                    at_key=True,
                )
            )
    flow["phases"] = phases
    return flow, warnings


def _num(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def source_path(kind: Kind | None, path: JsonPath) -> JsonPath:
    """Map a path in the desugared flow to the path of the same value in the shorthand file."""
    if kind is None or not path or path[0] != "phases":
        return path
    rest = path[1:]
    if kind == "chain":
        return ("chain", *rest)
    index_free = rest[1:] if rest else ()
    if kind == "tasks":
        if index_free and index_free[0] == "branches":
            return ("tasks", *index_free[1:])
        if index_free and index_free[0] in ("context", "contextLimit", "cwd"):
            return (index_free[0],)
        return ("tasks",)
    # single task: the spec itself is the phase
    return index_free
