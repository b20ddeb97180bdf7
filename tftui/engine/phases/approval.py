"""approval phases (docs/language.md §6.6): ask `debugger.approver`, else auto-reject (headless).

An approver is `async (request: ApprovalRequest) -> Decision`; `Decision.action` is
`approve`, `edit` or `reject`, with an optional `note`. A reject blocks the run like a gate.
"""

from __future__ import annotations

from dataclasses import dataclass

from tftui.engine import events as ev
from tftui.engine.context import build_context
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun

DEFAULT_MESSAGE = "Approve to continue?"
AUTO_REJECTED = "(auto-rejected: no interactive approver available)"


@dataclass(slots=True)
class ApprovalRequest:
    phase_id: str
    message: str
    previous_output: str | None


@dataclass(slots=True)
class Decision:
    action: str  # approve | edit | reject
    note: str | None = None


async def approve_all(request: ApprovalRequest) -> Decision:
    """The headless `--approve` approver."""
    return Decision("approve")


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = pr.phase
    ctx = build_context(run, phase)
    message = render(run, pr, phase.task, ctx) if isinstance(phase.task, str) and phase.task else DEFAULT_MESSAGE
    run.emit(ev.ApprovalRequested(phase_id=phase.id, message=message, previous_output=ctx.previous_output))
    approver = run.approver
    if approver is None:
        gate = {"verdict": "block", "reason": AUTO_REJECTED}
        run.emit(ev.GateVerdict(phase_id=phase.id, verdict="block", reason=AUTO_REJECTED, source="approval"))
        return PhaseOutcome(
            status="done", output=AUTO_REJECTED, gate=gate, block_reason=AUTO_REJECTED,
            extra={"approval": {"decision": "reject", "auto": True}},
        )
    decision = await approver(ApprovalRequest(phase.id, message, ctx.previous_output))
    action = getattr(decision, "action", None) or "reject"
    note = getattr(decision, "note", None) or None
    record = {"decision": action, **({"note": note} if note else {})}
    if action in ("approve", "edit"):
        run.emit(ev.GateVerdict(phase_id=phase.id, verdict="pass", reason=note, source="approval"))
        return PhaseOutcome(status="done", output=note or f"({action})", extra={"approval": record})
    reason = note or "Rejected by user"
    run.emit(ev.GateVerdict(phase_id=phase.id, verdict="block", reason=reason, source="approval"))
    return PhaseOutcome(
        status="done", output=note or "(reject)", gate={"verdict": "block", "reason": reason},
        block_reason=reason, extra={"approval": record},
    )
