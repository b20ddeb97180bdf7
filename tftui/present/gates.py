"""A gate's evaluation history as words: which evaluation a record is, its verdict and arithmetic.

`tftui.engine.gate_history` keeps the records (every verdict of every gate, from the events).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the tree's labels use this module at first paint; gate records load after it
    from tftui.engine.gate_history import GateRecord

REASON_CHARS = 120  # of a blocking reply's first line, when the verdict gave no reason


def block_reason(reason: str | None, output: str | None = None) -> str:
    """Why a gate blocked, in the same words on every tab: the verdict's reason, else the first
    line of the blocking reply (a `VERDICT: BLOCK` answer says why above it); '' when neither does."""
    if reason and reason.strip():
        return reason.strip()
    said = next((line.strip() for line in (output or "").splitlines() if line.strip()), "")
    return said if len(said) <= REASON_CHARS else said[: REASON_CHARS - 1] + "…"


def verdict_reason(verdict: str | None, reason: str | None, output: str | None, source: str) -> str:
    """The reason a verdict is shown with: a gate's block says why as `block_reason` does (an
    approval's reason is the reviewer's note, never its output); other verdicts their own reason."""
    if verdict == "block" and source != "approval":
        return block_reason(reason, output)
    return (reason or "").strip()


def round_cause(reason: str | None, blocking_output: str | None, blocked_number: int) -> str:
    """Why an onBlock round started (docs/gates.md, onBlock), as the Gate and Calls tabs both say
    it, `because: <the block reason the engine passed on>`, else `because evaluation N blocked:
    <what the blocking evaluation, number `blocked_number`, replied>`."""
    if reason and reason.strip():
        return f"because: {reason.strip()}"
    said = block_reason(None, blocking_output)
    return f"because evaluation {blocked_number} blocked" + (f": {said}" if said else " (no reason given)")


def evaluation_label(rec: GateRecord) -> str:
    """`first evaluation`, `round 2`, `re-run 1 · first evaluation`."""
    parts = [f"round {rec.round}" if rec.round else "first evaluation"]
    if rec.run:
        parts.insert(0, f"re-run {rec.run}")
    return " · ".join(parts)


def verdict_line(rec: GateRecord) -> str:
    """`BLOCK (source: judge) — reason`, or `FAILED — error` when the gate's call failed."""
    if rec.status == "failed":
        return f"FAILED — {rec.error or 'gate call failed'}"
    text = f"{(rec.verdict or '?').upper()} (source: {rec.source})"
    reason = verdict_reason(rec.verdict, rec.reason, rec.output, rec.source)
    return f"{text} — {reason}" if reason else text


def arithmetic_line(rec: GateRecord) -> str:
    """The arithmetic behind the verdict in one line.

    The scoring layer's own `explain` of the recomputed combine when the flow reproduces the
    recorded score; otherwise a line from the recorded figures only (no flow, or the file changed).
    """
    from tftui.scoring.combine import explain, js_to_fixed

    if rec.recomputed is not None:
        line = explain(rec.recomputed)
        return line + f"; gate task (fallback) decided → {rec.verdict}" if rec.source == "task" else line
    if rec.status == "failed":
        return f"gate call failed: {rec.error or 'unknown error'}"
    if rec.source == "eval":
        return "eval: all checks passed → pass (no LLM call)"
    if rec.source == "fail-open":
        return f"fail-open pass: {rec.reason or 'nothing to evaluate'}"
    if rec.combined is None:
        return f"gate task verdict → {rec.verdict}" + (f" ({rec.reason})" if rec.reason else "")
    k, n = sum(1 for r in rec.rows if r.passed), len(rec.rows)
    text = f"{k}/{n} scorers passed; combined {js_to_fixed(rec.combined, 2)}"
    if rec.threshold is not None:
        text += f" {'≥' if rec.verdict == 'pass' else '<'} threshold {js_to_fixed(rec.threshold, 2)}"
    if rec.stage:
        text += f" [{rec.stage}]"
    return f"{text} → {rec.source} → {rec.verdict}"
