"""Guard editor support: live feedback on a `when` expression and a reachability preview.

`guard_feedback(expr, ctx)` is what the editor shows on every keystroke: the parse
error with the caret position, each placeholder with the value it resolves to now,
and the result (SPEC §5.6: an expression that cannot be evaluated runs the phase,
fail-open). `reachability_preview(flow, state, phase_id, new_when)` says which phases
would run or be skipped if the phase's guard were `new_when`: the phase itself and
everything downstream, evaluated in DAG order with the condition language on the
current run's outputs (SPEC §3.2 admission: dependencies, join, optional, then `when`).
Phases predicted to run are assumed to finish `done`, with the output they have now
(the preview says so); a gate that blocked in the run is assumed to block again. A phase
whose dependencies have not finished yet (before a run, or above a pause) is "wait": its
fate is decided by outputs that do not exist yet, so the preview does not guess.
`explain_skip(flow, state, phase_id)` explains an existing skip in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tftui.engine.state import PhaseStatus, RunState
from tftui.engine.statectx import context_from_state, views_from_state
from tftui.flow.graph import Dag
from tftui.flow.model import Flow
from tftui.lang.condition import condition_refs, describe_skip, evaluate, syntax_error
from tftui.lang.interpolate import Context, resolve
from tftui.lang.values import MISSING, js_json_stringify, js_trim


@dataclass(frozen=True)
class Placeholder:
    ref: str  # "{steps.triage.json.severity}"
    value: Any  # MISSING when unresolved
    shown: str  # the value as the editor prints it (`unresolved`, `"high"`, `3`, …)


@dataclass(frozen=True)
class GuardFeedback:
    error: str | None  # parse error message (None when it parses)
    caret_col: int | None  # 0-based offset of the error in `expr` (None when it parses)
    caret_line: int | None = None  # 0-based line of the error (multi-line expressions)
    caret_text: str = ""  # the error's line followed by a line with `^` under the position
    placeholders: list[Placeholder] = field(default_factory=list)
    result: bool | None = None  # True/False; None when it does not parse
    result_text: str = ""  # e.g. "true — the phase runs" / "false — skipped (Condition not met: …)"
    eval_error: str | None = None  # evaluated with an error (fail-open)


def _shown(value: Any) -> str:
    if value is MISSING:
        return "unresolved"
    try:
        text = js_json_stringify(value, None)
    except (TypeError, ValueError, RecursionError):
        text = str(value)
    return text if len(text) <= 80 else text[:79] + "…"


def guard_feedback(expr: str, ctx: Context) -> GuardFeedback:
    """Everything the guard editor shows for `expr` (empty = no guard: the phase runs)."""
    refs = [Placeholder("{" + path + "}", value := resolve(path, ctx), _shown(value)) for path in condition_refs(expr)]
    problem = syntax_error(expr)
    if problem is not None:
        pos = max(0, min(problem.position, len(expr)))
        line_no = expr.count("\n", 0, pos)
        start = expr.rfind("\n", 0, pos) + 1
        end = expr.find("\n", pos)
        line = expr[start : end if end >= 0 else len(expr)]
        caret = line + "\n" + " " * (pos - start) + "^"
        return GuardFeedback(problem.message, pos - start, line_no, caret, refs, None,
                             f"syntax error: {problem.message} — the phase would run (fail-open)")
    if not js_trim(expr):
        return GuardFeedback(None, None, placeholders=refs, result=True, result_text="no condition — the phase runs")
    result = evaluate(expr, ctx)
    if result.error is not None:
        return GuardFeedback(None, None, placeholders=refs, result=True, eval_error=result.error,
                             result_text=f"could not be evaluated ({result.error}) — the phase runs (fail-open)")
    text = "true — the phase runs" if result.value else f"false — skipped (Condition not met: {expr})"
    return GuardFeedback(None, None, placeholders=refs, result=result.value, result_text=text)


@dataclass(frozen=True)
class Reach:
    phase_id: str
    outcome: str  # "run" | "skip" | "wait" (an upstream phase has not finished yet)
    why: str

    def __iter__(self):  # unpacks as (phase_id, outcome, why)
        return iter((self.phase_id, self.outcome, self.why))


def reachability_preview(
    flow: Flow, state: RunState, phase_id: str, new_when: str | None, *, dag: Dag | None = None
) -> list[Reach]:
    """Run/skip of `phase_id` and its downstream phases if its guard were `new_when`."""
    dag = dag or Dag.from_flow(flow)
    if phase_id not in dag.deps:
        return [Reach(phase_id, "skip", f"no phase '{phase_id}' in the flow")]
    affected = {phase_id} | set(dag.downstream(phase_id))
    specs = {p.id: p for p in flow.phases}
    views = views_from_state(state)
    predicted: dict[str, str] = {}  # affected phase -> "done" | "skipped" (assumed)
    out: list[Reach] = []
    for pid in dag.order:
        if pid not in affected:
            continue
        spec = specs[pid]
        waiting = [d for d in dag.deps.get(pid, []) if _unfinished(d, state, predicted)]
        if waiting:  # "not satisfied" would be wrong: the dependency simply has not run yet
            predicted[pid] = "wait"
            out.append(Reach(pid, "wait", f"decided when {', '.join(waiting)} finishes (not run yet)"))
            continue
        reason = _admission(spec, dag.deps.get(pid, []), state, predicted, specs)
        if reason is not None:
            predicted[pid] = "skipped"
            out.append(Reach(pid, "skip", reason))
            continue
        expr = new_when if pid == phase_id else spec.when
        ctx = context_from_state(flow, _view_state(state, predicted), pid, dag=dag, views=_views(views, predicted))
        outcome, why = _guard(expr, ctx, edited=pid == phase_id and bool(spec.when))
        predicted[pid] = "done" if outcome == "run" else "skipped"
        out.append(Reach(pid, outcome, why))
    return out


def _views(views: dict, predicted: dict[str, str]) -> dict:
    return {k: v for k, v in views.items() if predicted.get(k) != "skipped"}


def _view_state(state: RunState, predicted: dict[str, str]) -> RunState:
    # previous.output only looks at done dependencies; a predicted skip hides a done one.
    if not any(v == "skipped" for v in predicted.values()):
        return state
    shadow = RunState(args=state.args)
    shadow.phases = {k: v for k, v in state.phases.items() if predicted.get(k) != "skipped"}
    return shadow


def _unfinished(dep: str, state: RunState, predicted: dict[str, str]) -> bool:
    if dep in predicted:
        return predicted[dep] == "wait"
    st = state.phases.get(dep)
    return st is None or not st.status.terminal


def _satisfied(dep: str, state: RunState, predicted: dict[str, str], specs: dict) -> bool:
    if dep in predicted:
        return predicted[dep] == "done"
    st = state.phases.get(dep)
    if st is None:
        return False
    if st.status == PhaseStatus.DONE:
        return True
    return st.status == PhaseStatus.FAILED and bool(getattr(specs.get(dep), "optional", False))


def _admission(spec: Any, deps: Sequence[str], state: RunState, predicted: dict[str, str], specs: dict) -> str | None:
    for dep in deps:  # SPEC §3.4: a block halts everything after it
        st = state.phases.get(dep)
        if predicted.get(dep) == "done" and st is not None and (st.gate or {}).get("verdict") == "block":
            return f"Gate blocked (assuming '{dep}' blocks again as it did in this run)"
    if not deps:
        return None
    ok = [_satisfied(d, state, predicted, specs) for d in deps]
    if getattr(spec, "join", "all") == "any":
        return None if any(ok) else "All dependencies failed or were skipped"
    if all(ok):
        return None
    missing = [d for d, good in zip(deps, ok, strict=True) if not good]
    return f"Upstream dependency not satisfied ({', '.join(missing)})"


def _guard(expr: str | None, ctx: Context, *, edited: bool) -> tuple[str, str]:
    if expr is None or not js_trim(expr):
        return "run", "no guard" + (" (guard removed)" if edited else "")
    result = evaluate(expr, ctx)
    if result.error is not None:
        return "run", f"when could not be evaluated ({result.error}) — runs (fail-open)"
    if result.value:
        return "run", describe_skip(expr, ctx).removeprefix("not skipped: ") + " (on the current outputs)"
    return "skip", f"Condition not met: {expr} — " + describe_skip(expr, ctx).removeprefix("skipped because ")


def explain_skip(flow: Flow | None, state: RunState, phase_id: str) -> str:
    """Why a phase was skipped (or not), in one line, with the guard's values now."""
    st = state.phases.get(phase_id)
    if st is None:
        return f"no phase '{phase_id}' in this run"
    guard = st.guard or {}
    expr = guard.get("expr")
    ctx = context_from_state(flow, state, phase_id)
    if st.status != PhaseStatus.SKIPPED:
        return describe_skip(expr, ctx) if isinstance(expr, str) and expr else f"not skipped ({st.status})"
    reason = st.error or "skipped"
    if reason.startswith("Condition not met") and isinstance(expr, str):
        return describe_skip(expr, ctx) + (" (override)" if guard.get("overridden") else "")
    return f"skipped before its guard was checked: {reason}"
