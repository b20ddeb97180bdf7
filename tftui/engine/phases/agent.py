"""agent and reduce phases: one model call with retries (docs/language.md §2.4); reduce's
`{previous.output}` is the aggregate of its `from` outputs (built by the context). A reduce
with `reduceStrategy: "tree"` runs in batched rounds (`tftui.engine.phases.tree_reduce`)."""

from __future__ import annotations

from typing import Any

from tftui.engine.calls import CallOutcome, CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of, unresolved_warning
from tftui.lang.interpolate import interpolate
from tftui.lang.values import MISSING


def render(run: PhaseHost, pr: PhaseRun, template: Any, ctx: Any) -> str:
    """Interpolate a task template; unresolved refs become one phase warning (docs/language.md §3.6)."""
    if not isinstance(template, str):
        return "" if template is None else str(template)
    if "{" not in template:
        return template
    result = interpolate(template, ctx)
    if result.missing:
        run.phase_warning(pr.phase.id, unresolved_warning(list(result.missing)))
    return result.text


def outcome_of(call: CallOutcome, *, output_mode: str) -> PhaseOutcome:
    if call.ok:
        # (positional, in field order status, output, json, error, attempts: a keyword call of a class packs a dict)
        return PhaseOutcome("done", call.output, call.json if output_mode == "json" else MISSING, None, call.attempts)
    error = call.error or "agent call failed"
    return PhaseOutcome("failed", error, MISSING, error, call.attempts)


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = pr.phase
    if phase.type == "reduce" and getattr(phase, "reduce_strategy", None) == "tree":
        from tftui.engine.phases.tree_reduce import execute_tree, tree_inputs

        inputs = tree_inputs(run, phase)
        if len(inputs) >= 2:  # fewer: an ordinary one-shot reduce (docs/language.md §6.10)
            return await execute_tree(run, pr, inputs)
    ctx = pr.context if pr.context is not None else build_context(run, phase)  # the guard's, when it had one
    prefix = preread(run, phase, ctx)
    task = prefix + render(run, pr, phase.task, ctx)
    spec = CallSpec(phase.id, agent_of(phase), task, phase.output, phase.expect)  # node_path, agent, task, output, expect
    call = await call_with_retry(run, pr, spec)
    return outcome_of(call, output_mode=phase.output)
