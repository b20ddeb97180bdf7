"""Data breakpoints' names: the one place that says what `{phase.…}`, `{gate.…}` and
`{run.…}` are (docs/scheduling.md §7), for the live debugger, the replay and the `B` dialog.

`scope_values` builds what an expression reads at one pause point; `NAMES` is the same
vocabulary as a tree, and `problems` checks an expression against it with the flow linter's
placeholder checks (`tftui.flow.lint`), so `{phase.atempt}` is refused with a did-you-mean
exactly as a typo in a `when` is reported. Pure; never raises on user input.
"""

from __future__ import annotations

from typing import Any

from tftui.engine.state import PhaseState, RunState
from tftui.flow.lint import closed_scope, lint_expression
from tftui.lang.condition import syntax_error

# head -> fields (a value each): what `scope_values` fills in
NAMES: dict[str, dict[str, None]] = {
    "phase": {"id": None, "attempt": None, "round": None, "status": None},
    "gate": {"verdict": None, "combined": None, "round": None},
    "run": {"costUSD": None, "tokens": None},
}
_SCOPE = closed_scope(NAMES)


def scope_values(state: RunState, phase_id: str | None, attempt: object, round_: object) -> dict[str, Any]:
    """`{phase.attempt}` is 1-based (0 before the first attempt); `{gate.…}` is the phase's
    last gate evaluation (absent before one); `{run.…}` sums every call so far."""
    st: PhaseState | None = state.phases.get(phase_id) if phase_id else None
    gate: dict[str, Any] = {}
    if st is not None and st.gate_history:
        last = st.gate_history[-1]
        gate = {"verdict": last.verdict, "combined": last.combined, "round": last.round}
    usage = state.usage
    return {
        "phase": {
            "id": phase_id,
            "attempt": attempt + 1 if isinstance(attempt, int) else 0,
            "round": round_ or 0,
            "status": str(st.status) if st is not None else "pending",
        },
        "gate": gate,
        "run": {"costUSD": usage["cost"], "tokens": usage["input"] + usage["output"]},
    }


def problems(expr: str) -> list[str]:
    """Why `expr` cannot be a data breakpoint: its syntax error (with the column), then each
    placeholder naming nothing a data breakpoint reads (with a did-you-mean); [] when fine."""
    error = syntax_error(expr)
    if error is not None:
        return [f"{error.message} (at column {error.position + 1})"]
    return [finding.message for finding in lint_expression(expr, _SCOPE)]
