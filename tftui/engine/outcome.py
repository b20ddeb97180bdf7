"""Run-level outcomes: budget tally (docs/scheduling.md §6), run status (docs/scheduling.md §4), final output (docs/scheduling.md §5), resume seeding."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tftui.agent_types import reports_cost, reports_usage
from tftui.engine import events as ev
from tftui.engine.context import step_view
from tftui.engine.resume import why_never_repeated
from tftui.engine.state import PhaseState, PhaseStatus
from tftui.lang.blocking import is_blocking
from tftui.lang.values import MISSING, js_number_str

BUDGET_TRUNCATED = "fan-out budget-truncated"

if TYPE_CHECKING:
    from tftui.agent_types import AgentRunner
    from tftui.engine.run import Run
    from tftui.flow.model import Budget, Flow, PhaseBase


def over_budget(budget: Budget | None, usage: dict[str, Any]) -> str | None:
    """The reason the tally is over `budget` (strict >, cost checked first), else None."""
    if budget is None:
        return None
    if budget.max_usd is not None and usage["cost"] > budget.max_usd:
        return f"cost ${usage['cost']:.3f} exceeded cap ${js_number_str(budget.max_usd)}"
    tokens = usage["input"] + usage["output"]
    if budget.max_tokens is not None and tokens > budget.max_tokens:
        return f"tokens {js_number_str(tokens)} exceeded cap {js_number_str(budget.max_tokens)}"
    return None


def refusal(flow: Flow, runner: AgentRunner) -> str | None:
    """docs/scheduling.md §6: a budget needs usage accounting from the runner (`reports_usage` / `reports_cost`)."""
    if flow.budget is None:
        return None
    if not reports_usage(runner):
        return (
            "Usage accounting is unavailable for this host; refusing budgeted flow "
            f"'{flow.name}' because its token/USD ceiling cannot be enforced"
        )
    if flow.budget.max_usd is not None and not reports_cost(runner):
        return (
            "This host reports tokens but not cost, so budget.maxUSD cannot be enforced. "
            "Use budget.maxTokens or a host with cost accounting."
        )
    return None


def run_status(run: Run) -> str:
    if run.aborted:
        return "paused"
    if run.block is not None or run.budget_reason is not None:
        return "blocked"
    for pid in run.order:
        st = run.state.phases.get(pid)
        if st is not None and st.status == PhaseStatus.FAILED and not run.phases[pid].optional:
            return "failed"
    return "completed"


def final_output(run: Run) -> str:
    """docs/scheduling.md §5."""
    phases = run.state.phases
    final_id = next((p.id for p in run.flow.phases if p.final), run.order[-1])
    source = final_id
    if phases[final_id].status != PhaseStatus.DONE:
        done = [pid for pid in run.order if phases[pid].status == PhaseStatus.DONE]
        if done:
            source = done[-1]
    if run.block is not None:
        bid, reason = run.block
        text = "Gate blocked the workflow."
        if reason:
            text += f"\nReason: {reason}"
        out = phases[bid].output
        return text + (f"\n\n{out}" if out else "")
    if run.budget_reason is not None:
        text = "Budget exceeded — run halted." + (f"\nReason: {run.budget_reason}" if run.budget_reason else "")
        out = phases[source].output
        return text + (f"\n\n{out}" if out else "")
    out = phases[source].output
    return out if out is not None else "(no output)"


def first_block(run: Run) -> tuple[str, str | None] | None:
    """The first finished gate/approval (in flow order) whose verdict is block."""
    return first_block_of(run.order, run.state.phases)


def first_block_of(order: Sequence[str], phases: Mapping[str, PhaseState]) -> tuple[str, str | None] | None:
    """`first_block` over phase states (the guard preview's re-run starts from one).

    Only a block at the top level halts the run (as in a live run, where `finish` records
    blocks of depth 0 only): a gate re-run inside another gate's onBlock round that blocks
    there does not, so a resumed run must not count it either."""
    for pid in order:
        st = phases.get(pid)
        if st is not None and st.depth == 0 and is_blocking(st.status, st.gate):
            return pid, (st.gate or {}).get("reason")
    return None


def truncated_fan_out(phases: Iterable[PhaseState | None]) -> bool:
    """A finished fan-out was budget-truncated: a resumed run starts over budget (docs/scheduling.md §6)."""
    return any(
        st is not None and st.budget_truncated and st.status in (PhaseStatus.DONE, PhaseStatus.FAILED)
        for st in phases
    )


def restore(run: Run) -> None:
    """Seed views, block and budget from a resumed state (finished phases are not re-run)."""
    for pid in run.order:
        st = run.state.phases.get(pid)
        if st is None:
            continue
        if st.status in (PhaseStatus.DONE, PhaseStatus.FAILED):
            run.views[pid] = step_view(st.status, st.output, st.json, st.error)
    if run.budget_reason is None and truncated_fan_out(run.state.phases.get(pid) for pid in run.order):
        run.budget_reason = BUDGET_TRUNCATED
    for pid, st in run.state.phases.items():
        # grafted expand children (`<expandId>-<childId>`) are states without a flow phase
        if pid not in run.phases and st.status in (PhaseStatus.DONE, PhaseStatus.FAILED):
            run.views[pid] = step_view(st.status, st.output, st.json, st.error)
    run.block = first_block(run)
    run.check_budget()


def fail_interrupted(run: Run, phase: PhaseBase) -> None:
    """A side-effecting phase that was in flight when the previous run stopped is never repeated."""
    message = (
        f"phase '{phase.id}' has side effects ({why_never_repeated(phase)}) and was running when the previous run "
        "stopped; it is not re-run automatically — check its effect, then re-run it explicitly"
    )
    run.emit(
        ev.PhaseFinished(
            phase_id=phase.id,
            status="failed",
            output=message,
            error=message,
            warnings=[message],
            extra={"sideEffect": True, "interrupted": True},
        )
    )
    run.views[phase.id] = step_view(PhaseStatus.FAILED, message, MISSING, message)
