"""The attempts timeline as words: attempt labels, evaluation marks and strip, transient
reasons, output diffs.

`tftui.engine.timeline` keeps the data (every attempt and onBlock round of a phase, from the
events); these functions say how it reads on the Calls tab.
"""

from __future__ import annotations

import difflib

# the docs/retry.md §2 pattern itself, so "why" matches the engine
from tftui.engine import retry
from tftui.engine.retry import transient_match
from tftui.engine.timeline import AttemptRow, PhaseTimeline, RoundInfo
from tftui.present.status import mark


def attempt_label(row: AttemptRow) -> str:
    """`fetch attempt 2`."""
    return f"{row.node_path} attempt {row.attempt + 1}"


def attempt_mark(row: AttemptRow, *, ascii: bool = False) -> str:
    """✓ answered, ✗ failed, … still running."""
    kind = "ok" if row.status == "ok" else "no" if row.status == "failed" else "open"
    return mark(kind, ascii=ascii)


def round_mark(info: RoundInfo, *, ascii: bool = False) -> str:
    """✓ passed, ✗ blocked, ! the evaluation itself failed."""
    kind = "ok" if info.verdict == "pass" else "no" if info.verdict == "block" else "error"
    return mark(kind, ascii=ascii)


def evaluation_strip(timeline: PhaseTimeline, *, ascii: bool = False) -> str:
    """`1✗ 2✗ 3✓` (the latest run of the gate only; empty for non-gates)."""
    latest = max((r.run for r in timeline.rounds), default=0)
    return " ".join(f"{r.number}{round_mark(r, ascii=ascii)}" for r in timeline.rounds if r.run == latest)


def transient_reason(error: str | None, output: str | None = "", *, kind: str = "error", transient: bool | None = None) -> str:
    """Why an attempt was (not) transient, in a few words (docs/retry.md §2)."""
    if kind == "contract":
        return "not transient: contract violations are never transient (retried only by retry.max)"
    if kind == "timeout":
        return "not transient: phase timeouts are never retried"
    if kind == "aborted":
        return "not transient: the call was aborted"
    text = f"{error or ''}   {output or ''}"  # message + " " + stderr ("" here) + " " + output
    matched = transient_match(text)
    if matched is None:
        return "not transient: no transient pattern (rate limit, 429, 503, timeout, …) in the error"
    found = f'transient: matched "{matched}"'
    if transient is False:
        return found + " but the engine did not treat it as transient"
    return found


def transient_why(row: AttemptRow) -> str:
    """`transient: matched "429"` for a failed attempt; '' for one that did not fail."""
    if row.status != "failed" or not row.kind:
        return ""
    return transient_reason(row.error, row.output, kind=row.kind, transient=row.transient)


def retry_text(row: AttemptRow) -> str:
    """`→ retried after a 2000 ms backoff`: the wait after a failed attempt as it really was
    (docs/retry.md §3.3), the planned backoff named as such when the wait was shorter; '' when
    the attempt was not retried."""
    if row.backoff_ms is None:
        return "→ retried" if row.will_retry else ""
    planned = f"{row.backoff_ms} ms backoff"
    if row.retry_after_ms is not None:
        planned += f" (the provider's Retry-After: {row.retry_after_ms} ms)"
    if row.wait_replayed:
        return f"→ retried at once: a failure replayed from the journal (its {planned} was waited when it was recorded)"
    if row.waited_ms is None:  # no BackoffEnded: waiting still, or a journal written before it existed
        return f"→ retried after a {planned}" if row.retried else f"→ retrying after a {planned} (waiting)"
    if row.wait_skipped:
        return f"→ retried after {row.waited_ms} ms: the planned {planned} was skipped (fast-forward)"
    return f"→ retried after a {planned}"


# The engine's reason an attempt was its node's last (AttemptFailed.stop), in words. Timeouts and
# aborts have none here: their transient line says why already.
_NOT_RETRIED = {
    retry.STOP_BUDGET: "the run is over its budget",
    retry.STOP_CONTRACT: "retry.max (if any) allows no more attempts",
    retry.STOP_NOT_IDEMPOTENT: "idempotent: false (a side effect is never repeated automatically)",
    retry.STOP_RETRIES_USED: f"the {retry.TRANSIENT_MAX_ATTEMPTS} automatic retries and retry.max are used up",
    retry.STOP_NOT_TRANSIENT: "not transient, and retry.max (if any) allows no more attempts",
}


def not_retried_text(row: AttemptRow) -> str:
    """`→ not retried: idempotent: false (…)`: why a failed attempt was the last one, as the
    engine decided it (docs/retry.md §3); '' when it was retried or its failure says why."""
    words = _NOT_RETRIED.get(row.stop) if row.status == "failed" and not row.will_retry else None
    return f"→ not retried: {words}" if words else ""


def output_diff(a: str | None, b: str | None, *, label_a: str = "a", label_b: str = "b", context: int = 3) -> str:
    """Unified diff of two outputs (attempts or rounds); "" when they are identical."""
    left = (a or "").splitlines(keepends=True)
    right = (b or "").splitlines(keepends=True)
    if left and not left[-1].endswith("\n"):
        left[-1] += "\n"
    if right and not right[-1].endswith("\n"):
        right[-1] += "\n"
    return "".join(difflib.unified_diff(left, right, fromfile=label_a, tofile=label_b, n=context))
