"""Per-phase attempts timeline, onBlock rounds strip and output diffs (the TUI's attempts tab).

Built from events (like gate_history), because the folded RunState keeps only a
phase's latest run, while an onBlock round re-runs upstream phases and the timeline
must show every run. Each attempt carries its prompt, output, error, whether it was
judged transient and why (the exact text the SPEC §7.2 pattern matched, or the reason
it could not be transient), whether it was retried and the backoff waited after it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from tftui.engine import events as ev
from tftui.engine.retry import transient_match  # the SPEC §7.2 pattern itself, so "why" matches the engine


@dataclass
class AttemptRow:
    node_path: str
    attempt: int  # 0-based
    run: int  # which run of the phase (0 first; onBlock and debugger re-runs add 1)
    round: int  # the onBlock round that ran it (0 = not a re-run round)
    prompt: str = ""
    agent: str = ""
    output: str | None = None
    error: str | None = None
    status: str = "running"  # running | ok | failed
    transient: bool = False
    transient_why: str = ""  # e.g. 'matched "429"' / 'contract violations are never transient'
    kind: str = ""  # AttemptFailed.why: error | timeout | contract | aborted | budget
    will_retry: bool = False
    backoff_ms: int | None = None
    usage: dict | None = None
    duration_ms: float = 0.0
    seq: int = 0

    @property
    def label(self) -> str:
        return f"{self.node_path} attempt {self.attempt + 1}"


@dataclass
class RoundInfo:
    number: int  # 1-based evaluation number shown in the strip
    round: int  # 0 = first evaluation
    verdict: str | None  # pass | block | None (failed)
    reason: str | None = None  # the block reason that started this round (rounds ≥ 1)
    rerun: list[str] = field(default_factory=list)  # upstream phases re-run before it
    output: str = ""
    run: int = 0

    @property
    def glyph(self) -> str:
        return "✓" if self.verdict == "pass" else "✗" if self.verdict == "block" else "!"


@dataclass
class PhaseTimeline:
    phase_id: str
    attempts: list[AttemptRow] = field(default_factory=list)
    rounds: list[RoundInfo] = field(default_factory=list)
    runs: int = 0

    @property
    def strip(self) -> str:
        """`1✗ 2✗ 3✓` (latest run of the gate only; empty for non-gates)."""
        latest = max((r.run for r in self.rounds), default=0)
        return " ".join(f"{r.number}{r.glyph}" for r in self.rounds if r.run == latest)


def transient_reason(error: str | None, output: str | None = "", *, kind: str = "error", transient: bool | None = None) -> str:
    """Why an attempt was (not) transient, in a few words (SPEC §7.2)."""
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


class TimelineBuilder:
    """Every phase's timeline, fed one event at a time (the TUI feeds each batch once, so
    showing the Calls tab never re-reads the whole run)."""

    def __init__(self) -> None:
        self.phases: dict[str, PhaseTimeline] = {}
        self._current_round: dict[str, int] = {}
        self._pending_round: dict[str, ev.OnBlockRound] = {}
        self._rows: dict[tuple[str, str, int], AttemptRow] = {}  # (phase, node path, attempt) -> latest row

    def get(self, phase_id: str) -> PhaseTimeline:
        return self.phases.get(phase_id) or PhaseTimeline(phase_id)

    def _tl(self, pid: str) -> PhaseTimeline:
        item = self.phases.get(pid)
        if item is None:
            item = self.phases[pid] = PhaseTimeline(pid)
        return item

    def feed_all(self, events: Iterable[ev.Event]) -> TimelineBuilder:
        for e in events:
            self.feed(e)
        return self

    def feed(self, e: ev.Event) -> None:
        pid = getattr(e, "phase_id", None)
        if not isinstance(pid, str):
            return
        if isinstance(e, ev.PhaseStarted):
            t = self._tl(pid)
            t.runs += 1
            self._current_round[pid] = e.round
            if e.phase_type == "gate" and e.round == 0:
                self._pending_round.pop(pid, None)
        elif isinstance(e, ev.AttemptStarted):
            t = self._tl(pid)
            row = AttemptRow(e.node_path, e.attempt, max(0, t.runs - 1), self._current_round.get(pid, 0),
                             prompt=e.prompt, agent=e.agent, seq=e.seq)
            t.attempts.append(row)
            self._rows[(pid, e.node_path, e.attempt)] = row
        elif isinstance(e, ev.AgentReturned):
            row = self._rows.get((pid, e.node_path, e.attempt))
            if row is not None:
                row.output, row.error, row.usage, row.duration_ms = e.output, e.error, e.usage, e.duration_ms
                row.status = "failed" if e.error is not None else "ok"
        elif isinstance(e, ev.AttemptFailed):
            row = self._rows.get((pid, e.node_path, e.attempt))
            if row is not None:
                row.status, row.error, row.transient, row.kind = "failed", e.error, e.transient, e.why
                row.will_retry = e.will_retry
                row.transient_why = transient_reason(e.error, row.output, kind=e.why, transient=e.transient)
        elif isinstance(e, ev.BackoffStarted):
            row = self._rows.get((pid, e.node_path, e.attempt))
            if row is not None:
                row.backoff_ms = e.delay_ms
        elif isinstance(e, ev.OnBlockRound):
            self._pending_round[pid] = e
            self._current_round[pid] = e.round
        elif isinstance(e, ev.GateVerdict):
            self._add_round(pid, self._pending_round.pop(pid, None), e.round, e.verdict, e.output)
        elif isinstance(e, ev.PhaseFinished) and e.status == "failed" and pid in self._pending_round:
            started = self._pending_round.pop(pid)
            self._add_round(pid, started, started.round, None, e.output or "")

    def _add_round(self, pid: str, started: ev.OnBlockRound | None, round_: int, verdict: str | None,
                   output: str) -> None:
        t = self._tl(pid)
        run = max(0, t.runs - 1)
        number = sum(1 for r in t.rounds if r.run == run) + 1
        t.rounds.append(
            RoundInfo(number, round_, verdict, started.reason if started else None,
                      list(started.rerun) if started else [], output, run)
        )


def timelines(events: Iterable[ev.Event]) -> dict[str, PhaseTimeline]:
    """Every phase's timeline, keyed by phase id."""
    return TimelineBuilder().feed_all(events).phases


def phase_timeline(events: Iterable[ev.Event], phase_id: str) -> PhaseTimeline:
    return TimelineBuilder().feed_all(events).get(phase_id)


def output_diff(a: str | None, b: str | None, *, label_a: str = "a", label_b: str = "b", context: int = 3) -> str:
    """Unified diff of two outputs (attempts or rounds); "" when they are identical."""
    left = (a or "").splitlines(keepends=True)
    right = (b or "").splitlines(keepends=True)
    if left and not left[-1].endswith("\n"):
        left[-1] += "\n"
    if right and not right[-1].endswith("\n"):
        right[-1] += "\n"
    return "".join(difflib.unified_diff(left, right, fromfile=label_a, tofile=label_b, n=context))
