"""The one event describer: an engine event as one line of text.

The debugger's event log and `tftui replay --print` both show `describe(event).text`; each
lays the line out its own way (the log filters on `kind`, `phase_id` and `failed`; the
headless replay prefixes the sequence number, the kind and the status glyph).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from tftui.engine import events as ev
from tftui.engine.state import RunState
from tftui.present.gates import verdict_reason
from tftui.present.numbers import calls_text, elapsed_text, spend_tokens_text, untracked_calls, usage_tokens
from tftui.present.phase import run_calls
from tftui.present.status import DISPLAY_STATUSES, display_status, look, shown_status


@dataclass(frozen=True)
class EventLine:
    kind: str
    phase_id: str | None
    failed: bool  # a failure or a block (the log's `failed` filter)
    text: str
    status: str | None = None  # the display (or run) status the event leaves its phase (or run) in


def _status_text(status: str) -> str:
    """A status as an event line says it: the word, in capitals when the table says it is loud."""
    row = look(status)
    return row.headline if row.loud else row.word


def describe(event: ev.Event) -> EventLine:
    """One line for an event."""
    pid = getattr(event, "phase_id", None) or None
    kind = event.kind
    failed = False
    status: str | None = None
    match event:
        case ev.RunStarted():
            count = len(event.phase_ids)
            text = f"run started: {event.flow_name} ({count} phase{'s' if count != 1 else ''})"
            status = "running"
        case ev.GuardEvaluated():
            text = f"{pid}: when {event.expr!r} → {str(event.value).lower()}"
            if event.error:
                text += f" (error: {event.error})"
        case ev.PhaseSkipped():
            status = "skipped"
            text = f"{pid}: {_status_text(status)} — {event.reason}"
        case ev.PhaseStarted():
            status = "running"
            text = f"{pid}: started ({event.phase_type})" + (f" round {event.round}" if event.round else "")
        case ev.PhaseWarning():
            text = f"{pid}: warning: {event.message}"
        case ev.AttemptStarted():
            text = f"{event.node_path}: attempt {event.attempt + 1}"
        case ev.AgentReturned():
            text = f"{event.node_path}: returned in {elapsed_text(event.duration_ms)}"
            if event.error:
                text += f" with error: {event.error}"
        case ev.AttemptFailed():
            failed = True
            retry = "will retry" if event.will_retry else "no retry"
            text = f"{event.node_path}: attempt {event.attempt + 1} failed ({event.why}, {retry}): {event.error}"
        case ev.BackoffStarted():
            text = f"{event.node_path}: backoff {elapsed_text(event.delay_ms)}"
            if event.retry_after_ms is not None:
                text += f" (provider asked Retry-After {elapsed_text(event.retry_after_ms)})"
        case ev.BackoffEnded():
            if event.replayed:
                text = f"{event.node_path}: backoff not waited again (a failure replayed from the journal)"
            elif event.skipped:
                text = (f"{event.node_path}: backoff skipped after {elapsed_text(event.waited_ms)}"
                        f" (planned {elapsed_text(event.delay_ms)})")
            else:
                text = f"{event.node_path}: waited {elapsed_text(event.waited_ms)}, retrying"
        case ev.ScorersEvaluated():
            from tftui.scoring.combine import js_to_fixed  # (the scoring layer loads after first paint)

            text = f"{pid}: scorers combined {js_to_fixed(event.combined, 2)} ({event.stage})"  # as the Gate tab
        case ev.JudgeCalled():
            text = f"{pid}: judge called"
        case ev.FallbackUsed():
            text = f"{pid}: fallback: {event.reason}"
        case ev.GateVerdict():
            failed = event.verdict == "block"
            reason = verdict_reason(event.verdict, event.reason, event.output, event.source)
            text = f"{pid}: verdict {event.verdict.upper()} ({event.source})" + (f" — {reason}" if reason else "")
        case ev.OnBlockRound():
            text = f"{pid}: onBlock round {event.round}" + (f" re-running {', '.join(event.rerun)}" if event.rerun else "")
        case ev.ApprovalRequested():
            text = f"{pid}: approval requested"
        case ev.PhaseFinished():
            status = shown_status(event.status, event.gate)
            failed = status in ("failed", "blocked")
            text = f"{pid}: {_status_text(status)}"
            if event.error:
                text += f" — {event.error}"
        case ev.PhaseReset():
            text = f"{pid}: reset ({event.reason})"
        case ev.PhasesReset():
            text = f"re-run resets {id_list(event.phase_ids)}"
        case ev.PhasesStale():
            text = f"stale: {id_list(event.phase_ids)}"
            if event.removed:
                text += f" (removed: {id_list(event.removed)})"
        case ev.PhasesGrafted():
            text = f"{pid}: grafted {id_list(event.phase_ids)}"
        case ev.ItemsResolved():
            text = f"{pid}: {event.total} item{'s' if event.total != 1 else ''} to map"
        case ev.Paused():
            where = event.node_path or event.phase_id or ""
            text = f"paused {event.point} {where} ({event.why})"
            pid = event.phase_id
        case ev.Resumed():
            text = "resumed"
        case ev.RunFinished():
            status = event.status
            failed = event.status in ("failed", "blocked")
            text = f"run finished: {look(status).word}" + (f" — {event.error}" if event.error else "")
        case _:
            text = f"{kind}"
    return EventLine(kind=kind, phase_id=pid, failed=failed, text=text, status=status)


# The log filter's kind words (`/`, `kind:verdict`): what a person calls each event, and the engine
# kinds each stands for. The engine's own names (`kind:attempt_failed`) match too.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "run": ("run_started", "run_finished"),
    "start": ("phase_started",),
    "guard": ("guard_evaluated",),
    "skip": ("phase_skipped",),
    "attempt": ("attempt_started", "attempt_failed"),
    "answer": ("agent_returned",),
    "backoff": ("backoff_started", "backoff_ended"),
    "score": ("scorers_evaluated",),
    "judge": ("judge_called",),
    "verdict": ("gate_verdict",),
    "round": ("on_block_round",),
    "fallback": ("fallback_used",),
    "approval": ("approval_requested",),
    "finish": ("phase_finished",),
    "warning": ("phase_warning",),
    "pause": ("paused", "resumed"),
    "reset": ("phase_reset", "phases_reset"),
    "stale": ("phases_stale",),
    "graft": ("phases_grafted",),
    "items": ("items_resolved",),
    "subflow": ("subflow_event",),
    "note": ("note",),  # the debugger's own lines (reloads, saves, exports)
}
# Every engine kind matches by its own name, worded above or not (tests/present keep each worded).
_ENGINE_KINDS = frozenset(ev.EVENT_TYPES) | {"note"}


def kind_matches(word: str, kind: str) -> bool:
    """True when an event of engine kind `kind` is one `kind:word` asks for (case-insensitive)."""
    word = word.lower()
    return kind == word or kind in KIND_WORDS.get(word, ())


def kind_problem(query: str) -> str | None:
    """Why a log filter names no kind of event (`kind:verdicts`), with the kinds there are; None when it is fine."""
    for term in query.split():
        if term.lower().startswith("kind:"):
            word = term[5:].lower()
            if word not in KIND_WORDS and word not in _ENGINE_KINDS:
                close = difflib.get_close_matches(word, KIND_WORDS, n=1)
                hint = f" — did you mean kind:{close[0]}?" if close else ""
                return f"no kind of event is called '{term[5:]}'{hint} (kinds: {kinds_list()})"
    return None


def kinds_list() -> str:
    """`run, start, guard, …`: the kind words, for a prompt's hint."""
    return ", ".join(KIND_WORDS)


def id_list(ids: list[str], shown: int = 6) -> str:
    """`a, b, c` or `a, b, c, … (+4 more)`: a list of phase ids that fits one log line."""
    if not ids:
        return "no phases"
    head = ", ".join(ids[:shown])
    return head if len(ids) <= shown else f"{head}, … (+{len(ids) - shown} more)"


def state_summary(state: RunState) -> str:
    """`run completed · done 2 · blocked 1 · skipped 2 · 4 attempts · 187 tok`: the run after an
    event (its calls as `present.run_calls` counts them, once there are any)."""
    counts: dict[str, int] = {}
    running: list[str] = []
    for pid, phase in state.phases.items():
        status = display_status(phase)
        if status == "running":
            running.append(pid)
        else:
            counts[status] = counts.get(status, 0) + 1
    parts = [f"run {look(str(state.status)).word}"]
    parts += [f"{look(s).word} {counts[s]}" for s in DISPLAY_STATUSES if counts.get(s)]
    if running:
        parts.append("running " + ",".join(running))
    if calls := run_calls(state):
        parts.append(calls_text(calls))
    if usage_tokens(state.usage) or untracked_calls(state.usage):
        parts.append(spend_tokens_text(state.usage))
    return " · ".join(parts)
