"""The event log: one line per engine event, filterable with `/`.

Filter syntax (space-separated terms, all must match): `failed` (failures, blocks,
failed attempts), `phase:ID`, `kind:KIND` (e.g. `kind:attempt_failed`), any other
word matches the line text. An empty filter shows everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.widgets import Log

from tftui import present
from tftui.engine import events as ev

MAX_ENTRIES = 5000


@dataclass(frozen=True)
class Entry:
    kind: str
    phase_id: str | None
    failed: bool
    text: str


def describe(event: ev.Event) -> Entry:
    """One log line for an event."""
    pid = getattr(event, "phase_id", None) or None
    kind = event.kind
    failed = False
    match event:
        case ev.RunStarted():
            count = len(event.phase_ids)
            text = f"run started: {event.flow_name} ({count} phase{'s' if count != 1 else ''})"
        case ev.GuardEvaluated():
            text = f"{pid}: when {event.expr!r} → {str(event.value).lower()}"
            if event.error:
                text += f" (error: {event.error})"
        case ev.PhaseSkipped():
            text = f"{pid}: skipped — {event.reason}"
        case ev.PhaseStarted():
            text = f"{pid}: started ({event.phase_type})" + (f" round {event.round}" if event.round else "")
        case ev.PhaseWarning():
            text = f"{pid}: warning: {event.message}"
        case ev.AttemptStarted():
            text = f"{event.node_path}: attempt {event.attempt + 1}"
        case ev.AgentReturned():
            text = f"{event.node_path}: returned in {event.duration_ms:.0f}ms"
            if event.error:
                text += f" with error: {event.error}"
        case ev.AttemptFailed():
            failed = True
            retry = "will retry" if event.will_retry else "no retry"
            text = f"{event.node_path}: attempt {event.attempt + 1} failed ({event.why}, {retry}): {event.error}"
        case ev.BackoffStarted():
            text = f"{event.node_path}: backoff {event.delay_ms}ms"
        case ev.ScorersEvaluated():
            text = f"{pid}: scorers combined {event.combined} ({event.stage})"
        case ev.JudgeCalled():
            text = f"{pid}: judge called"
        case ev.FallbackUsed():
            text = f"{pid}: fallback: {event.reason}"
        case ev.GateVerdict():
            failed = event.verdict == "block"
            text = f"{pid}: verdict {event.verdict.upper()} ({event.source})" + (
                f" — {event.reason}" if event.reason else ""
            )
        case ev.OnBlockRound():
            text = f"{pid}: onBlock round {event.round}" + (f" re-running {', '.join(event.rerun)}" if event.rerun else "")
        case ev.ApprovalRequested():
            text = f"{pid}: approval requested"
        case ev.PhaseFinished():
            failed = event.status == "failed"
            blocked = isinstance(event.gate, dict) and event.gate.get("verdict") == "block"
            failed = failed or blocked
            text = f"{pid}: {'BLOCKED' if blocked else event.status}"
            if event.error:
                text += f" — {event.error}"
        case ev.PhaseReset():
            text = f"{pid}: reset ({event.reason})"
        case ev.ItemsResolved():
            text = f"{pid}: {event.total} item{'s' if event.total != 1 else ''} to map"
        case ev.Paused():
            where = event.node_path or event.phase_id or ""
            text = f"paused {event.point} {where} ({event.why})"
            pid = event.phase_id
        case ev.Resumed():
            text = "resumed"
        case ev.RunFinished():
            failed = event.status in ("failed", "blocked")
            text = f"run finished: {event.status}" + (f" — {event.error}" if event.error else "")
        case _:
            text = f"{kind}"
    return Entry(kind=kind, phase_id=pid, failed=failed, text=text)


def matches(entry: Entry, query: str) -> bool:
    for term in query.split():
        low = term.lower()
        if low == "failed":
            if not entry.failed:
                return False
        elif low.startswith("phase:"):
            if entry.phase_id != term[6:]:
                return False
        elif low.startswith("kind:"):
            if entry.kind != low[5:]:
                return False
        elif low not in entry.text.lower():
            return False
    return True


class EventLog(Log):
    DEFAULT_CSS = """
    EventLog { height: 6; border-top: solid $panel; background: $surface; }
    """

    def __init__(self, *, glyphs: present.Glyphs = present.UNICODE, **kwargs) -> None:
        super().__init__(max_lines=MAX_ENTRIES, auto_scroll=True, **kwargs)
        self.glyphs = glyphs  # lines are folded to ASCII as they are written under --ascii
        self.entries: list[Entry] = []
        self.query_text = ""

    def add_events(self, events: Iterable[ev.Event]) -> None:
        new = [describe(e) for e in events]
        self.entries.extend(new)
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[: len(self.entries) - MAX_ENTRIES]
        lines = [self.glyphs.fold(e.text) for e in new if matches(e, self.query_text)]
        if lines:
            self.write_lines(lines)

    def add_note(self, text: str) -> None:
        """A UI message (reload, diagnostics) that is not an engine event."""
        entry = Entry(kind="note", phase_id=None, failed=False, text=f"{self.glyphs.mark} {text}")
        self.entries.append(entry)
        if matches(entry, self.query_text):
            self.write_line(self.glyphs.fold(entry.text))

    def set_filter(self, query: str) -> None:
        self.query_text = query.strip()
        self.clear()
        lines = [self.glyphs.fold(e.text) for e in self.entries if matches(e, self.query_text)]
        if lines:
            self.write_lines(lines)
        self.border_title = self.glyphs.fold(f"filter: {self.query_text}") if self.query_text else None

    def reset(self) -> None:
        self.entries.clear()
        self.clear()
