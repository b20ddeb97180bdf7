"""The words of the debugger's what-ifs: a gate's what-if (tftui.engine.whatif, the `w`
screen) and a guard's reachability preview (tftui.engine.admission, the guard editor).

The engine answers with data (verdicts, sources, the gate outcome, a typed `WouldCall`,
admission decisions); these functions turn it into the lines a person reads. The
arithmetic itself is the scoring layer's one-line `explain` of the combine that decided.
"""

from __future__ import annotations

from tftui.engine.admission import Reach
from tftui.engine.gate_history import GateRecord
from tftui.engine.state import PhaseStatus, RunState
from tftui.engine.statectx import context_from_state
from tftui.engine.whatif import Decision, WhatIfResult
from tftui.flow.model import Flow
from tftui.lang.condition import UNMET, describe_skip, unmet_reason
from tftui.present.gates import arithmetic_line
from tftui.scoring.combine import explain, js_to_fixed


def decision_line(decision: Decision) -> str:
    """The arithmetic (or the reason) of one pipeline answer."""
    out = decision.outcome
    det = explain(out.combined) if out.combined is not None else ""
    would = decision.would_call
    if decision.would_compile:
        names = ", ".join(f"#{index}" for index in decision.would_compile)
        return f"code-compiles scorer {names} has no recorded result: what-if does not run a compiler"
    if out.source == "eval":
        return f"eval: all {len(out.eval_checks)} checks passed → pass (score not evaluated)"
    if out.source == "fail-open":
        if out.unresolved:
            return f"score.target did not resolve ({', '.join(out.unresolved)}) → pass (fail-open)"
        return "nothing to evaluate → pass (fail-open)"
    if out.source == "judge":
        return det  # the judge's combine when it answered, the deterministic one when it would be asked
    if out.source == "task":
        if out.combined is None:  # a plain gate task (no score block)
            if would is not None:
                return "no score block: the gate task would be asked"
            return f"no score block: the gate task (same prompt, previous reply reused) → {out.verdict}"
        if would is not None:
            return f"{det} → gate task would be asked"
        return f"{det}; gate task (same prompt, previous reply reused) → {out.verdict}"
    if out.verdict == "block":
        return det + " (no judge, no task → block)"
    return det


def before_line(result: WhatIfResult) -> str:
    if result.previous is not None:
        if isinstance(result.previous, GateRecord):
            return arithmetic_line(result.previous)
        return result.previous.arithmetic or ""
    return decision_line(result.before) if result.before is not None else ""


def after_line(result: WhatIfResult) -> str:
    return decision_line(result.after) if result.after is not None else ""


def budget_lines(result: WhatIfResult) -> list[str]:
    """A regex scorer of the edited gate whose match was cut at its budget (docs/trust.md §3), as a
    run would fail it: `NAME: regex timed out after 1000ms (catastrophic backtracking?): /…/`."""
    return [f"{r.name}: {r.detail}" for r in result.results if r.timed_out]


def estimate_line(result: WhatIfResult) -> str | None:
    estimate = result.estimate
    if estimate is None or estimate.outcome.combined is None:
        return None
    judge_score = estimate.outcome.combined.judge_score or 0
    return f"with the previous judge score {js_to_fixed(judge_score, 2)}: {explain(estimate.outcome.combined)}"


def summary(result: WhatIfResult) -> str:
    if result.errors:
        return f"invalid: {result.errors[0]}"
    would = result.would_call
    if would is not None:
        who = "judge" if would.judge else "gate task"
        text = f"{who} would be asked (the prompt differs from the one sent before)"
        if result.estimate_verdict is not None:
            text += f"; with the previous judge score it would {result.estimate_verdict}"
        return text
    if result.after is not None and result.after.would_compile:
        return "unknown: a code-compiles scorer would have to run (what-if does not run a compiler)"
    if result.flips:
        return f"verdict flips: {result.before_verdict} → {result.after_verdict} ({result.after_source})"
    return f"verdict unchanged: {result.after_verdict} ({result.after_source})"


def asked_line(result: WhatIfResult) -> str:
    return f"judge would be asked: {'yes' if result.needs_llm else 'no'} (what-if never calls a model)"


# ---- the guard editor: "what if this guard were X?" (tftui.engine.admission) ---------------


def reach_why(row: Reach, *, with_expr: bool = True) -> str:
    """Why a preview row runs, is skipped or waits, with the guard's values now.

    `with_expr=False` leaves out the `Condition not met: <expr>` prefix of a false guard
    (the editor shows the expression already)."""
    if row.outcome == "wait":
        names = ", ".join(row.waiting)
        if row.wait_cause == "no-output":
            return f"decided by the output of {names}, which has not run yet"
        if row.wait_cause == "no-verdict":
            return f"decided when {names} gives a verdict (none in this run yet)"
        return f"decided when {names} finishes (not run yet)"
    adm = row.admission
    if adm.check == "blocked" and row.assumed_block:
        return f"Gate blocked (assuming '{adm.blocker}' blocks again as it did in this run)"
    if adm.check == "deps":
        return f"Upstream dependency not satisfied ({', '.join(adm.unsatisfied)})"
    guard = row.guard
    if adm.check == "guard" and guard is not None and row.context is not None:
        detail = describe_skip(guard.expr or "", row.context).removeprefix("skipped because ")
        return f"{unmet_reason(guard.expr)} — {detail}" if with_expr else detail
    if adm.check is not None:
        return adm.reason or ""
    if guard is None or guard.value is None and guard.error is None:
        return "no guard" + (" (guard removed)" if row.edited and row.had_guard else "")
    if guard.error is not None:
        return f"when could not be evaluated ({guard.error}) — runs (fail-open)"
    if row.context is None:
        return "runs"
    return describe_skip(guard.expr or "", row.context).removeprefix("not skipped: ") + " (on the current outputs)"


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
    if reason.startswith(UNMET) and isinstance(expr, str):
        return describe_skip(expr, ctx) + (" (override)" if guard.get("overridden") else "")
    return f"skipped before its guard was checked: {reason}"
