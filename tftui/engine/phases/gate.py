"""gate phases: one evaluation via `tftui.scoring.gate.evaluate_gate`, then onBlock rounds (docs/gates.md §9).

The scoring engine owns eval -> score -> judge/task; its model calls go through
`GateRunner`, which applies the retry loop and emits attempt events. This module owns
the rounds: each re-runs the gate's `dependsOn` (depth + 1, capped at MAX_RETRY_DEPTH)
and re-evaluates (score gates entirely; other gates only their task).
"""

from __future__ import annotations

from typing import Any

from tftui.agent_types import AgentRequest, AgentResult
from tftui.engine import events as ev
from tftui.engine.calls import CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of
from tftui.lang.values import MISSING, is_number
from tftui.scoring.gate import skips_eval

MAX_RETRY_DEPTH = 3


class GateRunner:
    """An AgentRunner for the scoring engine: every call gets the phase's retry loop and events."""

    def __init__(self, run: PhaseHost, pr: PhaseRun) -> None:
        self.run_ = run
        self.pr = pr
        self.failed_calls = 0

    async def run(self, request: AgentRequest) -> AgentResult:
        phase = self.pr.phase
        node = request.node_path or phase.id
        if node.endswith("#judge"):
            self.run_.emit(ev.JudgeCalled(phase_id=phase.id, prompt=request.task, node_path=node))
        own = node == phase.id
        spec = CallSpec(
            node_path=node,
            agent=request.agent or agent_of(phase),
            task=request.task,
            output="json" if own and phase.output == "json" else "text",
            expect=phase.expect if own and phase.output == "json" else None,
        )
        call = await call_with_retry(self.run_, self.pr, spec)
        if call.ok:
            return AgentResult(output=call.output)
        self.failed_calls += 1
        return AgentResult(
            output=call.output, error=call.error or "call failed", exit_code=1, timed_out=call.timed_out
        )


def rounds_allowed(phase: Any) -> int:
    if getattr(phase, "on_block", "halt") != "retry":
        return 0
    if phase.retry is None:
        return 1
    value = phase.retry.max
    return max(0, int(value)) if is_number(value) else 1


async def _evaluate(run: PhaseHost, pr: PhaseRun, round_: int, *, skip_eval: bool = False) -> tuple[Any, Any]:
    """One gate evaluation with its events; returns (GateOutcome, gate.scores JSON or None)."""
    from tftui.scoring.gate import evaluate_gate

    phase = pr.phase
    ctx = build_context(run, phase)
    prefix = preread(run, phase, ctx)
    outcome = await evaluate_gate(
        phase, ctx, GateRunner(run, pr), preread=prefix, node_path=phase.id, skip_eval=skip_eval
    )
    for warning in outcome.warnings:
        run.phase_warning(phase.id, warning)
        if "fail-open" in warning:
            run.emit(ev.FallbackUsed(phase_id=phase.id, reason=warning))
    scores = outcome.scores.to_json() if outcome.scores is not None else None
    if scores is not None:
        combined = outcome.combined
        run.emit(
            ev.ScorersEvaluated(
                phase_id=phase.id,
                results=scores["results"],
                combined=scores["combined"],
                threshold=scores.get("threshold"),
                stage=combined.stage if combined is not None else "unresolved",
                report=outcome.report or "",
            )
        )
    if outcome.status == "done":
        run.emit(
            ev.GateVerdict(
                phase_id=phase.id,
                verdict=outcome.verdict or "pass",
                reason=outcome.reason,
                source=outcome.source,
                round=round_,
                # a score gate's json only restates ScorersEvaluated + verdict: not repeated here
                # (the final one is PhaseFinished.json)
                json=MISSING if scores is not None else outcome.json,
                prompts=[prompt for _, prompt in outcome.prompts],
                combined=scores["combined"] if scores is not None else None,
                output=outcome.output,
            )
        )
    return outcome, scores


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = pr.phase
    outcome, scores = await _evaluate(run, pr, 0)
    if run.debugging:  # (no pause point without a debugger: not even the call, once per gate)
        await run.debug_point("after-verdict", phase.id, round=0)
    allowed = rounds_allowed(phase)
    rounds = 0
    while outcome.status == "done" and outcome.verdict == "block" and rounds < allowed:
        if run.aborted or run.over_budget() is not None:
            break
        rounds += 1
        await run.debug_point("before-round", phase.id, round=rounds)
        rerun = list(phase.depends_on) if pr.depth < MAX_RETRY_DEPTH else []
        run.emit(ev.OnBlockRound(phase_id=phase.id, round=rounds, reason=outcome.reason, rerun=rerun))
        for dep in rerun:
            upstream = run.phases.get(dep)
            if upstream is not None:
                await run.execute_phase(upstream, depth=pr.depth + 1, round=rounds, admit=False)
        outcome, scores = await _evaluate(run, pr, rounds, skip_eval=skips_eval(phase, rounds))
        await run.debug_point("after-verdict", phase.id, round=rounds)
        if run.over_budget() is not None:
            break
    return to_outcome(outcome, rounds)


def to_outcome(outcome: Any, rounds: int) -> PhaseOutcome:
    if outcome.status != "done":
        error = outcome.error or outcome.output or "gate call failed"
        return PhaseOutcome(status="failed", output=error, error=error, attempts=rounds)
    verdict = outcome.verdict or "pass"
    gate: dict[str, Any] = {"verdict": verdict}
    if outcome.reason:
        gate["reason"] = outcome.reason
    # `gate.scores` is not repeated in PhaseFinished: the fold rebuilds it from the last
    # ScorersEvaluated event (it would be the fourth copy of the results in the journal).
    return PhaseOutcome(
        status="done",
        output=outcome.output,
        json=MISSING if outcome.json is None else outcome.json,
        attempts=rounds,
        gate=gate,
        block_reason=(outcome.reason or "") if verdict == "block" else None,
    )
