"""`reduceStrategy: "tree"` (docs/language.md §6.10): a reduce in batched rounds.

The `from` inputs that are `done` (in `from` order, labelled by their phase id) are cut into
batches of `batchSize` (an integer >= 2, else 2). Each batch is one call of the reduce's task,
whose `{previous.output}` is that batch: one input as is, several as `### <label>\\n\\n<output>`
sections joined by `\\n\\n---\\n\\n`. The answers (labelled `round-<r>-batch-<b>`) are the next
round's inputs, until one is left: that is the phase's output. With fewer than two inputs the
phase is an ordinary one-shot reduce.

- Every call uses the phase's node path `<id>` (a replies file lists its answers in call order),
  its retries, timeout and contract, and counts towards its usage and attempts.
- A failed call fails the phase at once (its error is the phase's error and output).
- Over budget between calls: the phase stops, `done`, with what it has (the answers so far and
  the inputs not yet reduced, formatted as one batch), marked budget-truncated, with a warning.
- Aborted: `failed`, `Tree reduction aborted before all inputs were reduced`.
- At most TREE_REDUCE_MAX_CALLS attempts in all (`tftui check` refuses a flow whose tree would
  need more); past it the phase fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tftui.engine.calls import CallSpec, call_with_retry
from tftui.engine.context import build_context, preread, sections_text
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of
from tftui.engine.state import PhaseStatus
from tftui.flow.closed import TREE_REDUCE_MAX_CALLS
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING, is_number

BUDGET_WARNING = "tree reduction stopped by the run budget; output is partial"
ABORTED = "Tree reduction aborted before all inputs were reduced"


@dataclass(frozen=True, slots=True)
class Piece:
    label: str
    output: str


def batch_size_of(value: object) -> int:
    """`batchSize` floored when it is a finite number >= 2, else 2."""
    if is_number(value) and math.isfinite(value) and value >= 2:
        return math.floor(value)
    return 2


def tree_inputs(run: PhaseHost, phase: object) -> list[Piece]:
    """The `from` entries that are `done` with an output, in `from` order."""
    out: list[Piece] = []
    for dep in getattr(phase, "from_", None) or ():
        st = run.state.phases.get(dep)
        if st is not None and st.status == PhaseStatus.DONE and st.output is not None:
            out.append(Piece(dep, st.output))
    return out


def batch_text(pieces: list[Piece]) -> str:
    """One batch as a reduce's `{previous.output}` (docs/language.md §3.3)."""
    return sections_text([(p.label, p.output) for p in pieces])


async def execute_tree(run: PhaseHost, pr: PhaseRun, inputs: list[Piece]) -> PhaseOutcome:
    from tftui.engine.phases.agent import render

    phase = pr.phase
    size = batch_size_of(getattr(phase, "batch_size", None))
    prefix = preread(run, phase, build_context(run, phase))
    agent = agent_of(phase)
    pieces = inputs
    round_no = 1
    attempts = 0
    truncated = False
    while len(pieces) > 1:
        answers: list[Piece] = []
        consumed = 0
        for b, start in enumerate(range(0, len(pieces), size), 1):
            if attempts >= TREE_REDUCE_MAX_CALLS:
                error = f"Tree reduction exceeded hard cap of {TREE_REDUCE_MAX_CALLS} actual subagent attempts"
                return PhaseOutcome(status="failed", output=error, error=error, attempts=attempts)
            if run.aborted:
                return PhaseOutcome(status="failed", output=None, error=ABORTED, attempts=attempts)
            if run.over_budget() is not None:
                truncated = True
                break
            batch = pieces[start:start + size]
            ctx = build_context(run, phase)
            ctx.previous_output = batch_text(batch)
            task = prefix + render(run, pr, phase.task, ctx)
            call = await call_with_retry(
                run, pr, CallSpec(node_path=phase.id, agent=agent, task=task, output=phase.output, expect=phase.expect)
            )
            attempts += call.attempts
            if not call.ok:
                error = call.error or "agent call failed"
                return PhaseOutcome(status="failed", output=error, error=error, attempts=max(1, attempts))
            answers.append(Piece(f"round-{round_no}-batch-{b}", call.output))
            consumed += len(batch)
        if truncated:
            pieces = answers + pieces[consumed:]
            break
        pieces = answers
        round_no += 1
    output = pieces[0].output if len(pieces) == 1 else batch_text(pieces)
    if truncated:
        run.phase_warning(phase.id, BUDGET_WARNING)
    json_value = lenient_parse(output) if phase.output == "json" else MISSING
    return PhaseOutcome(status="done", output=output, json=json_value, attempts=max(1, attempts),
                        budget_truncated=truncated)
