"""The words of a what-if result (tftui.engine.whatif): what the `w` screen shows.

The engine answers with data (verdicts, sources, the gate outcome, a typed `WouldCall`);
these functions turn it into the lines a person reads. The arithmetic itself is the
scoring layer's one-line `explain` of the combine that decided.
"""

from __future__ import annotations

from tftui.engine.whatif import Decision, WhatIfResult
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
        return result.previous.arithmetic or ""
    return decision_line(result.before) if result.before is not None else ""


def after_line(result: WhatIfResult) -> str:
    return decision_line(result.after) if result.after is not None else ""


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
