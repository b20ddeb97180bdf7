"""Per-phase attempts timeline and onBlock rounds (the data of the TUI's Calls tab).

Built from events (like gate_history), because the folded RunState keeps only a
phase's latest run, while an onBlock round re-runs upstream phases and the timeline
must show every run. Each attempt carries its prompt, output, error, whether it was
judged transient and the failure's kind, whether it was retried, the backoff planned after
it and the time really waited. Data only: how it reads (labels, marks, why it was transient) is
`tftui.present.timeline`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tftui.engine import events as ev
from tftui.engine.retry import recorded_stop


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
    kind: str = ""  # AttemptFailed.why: error | timeout | contract | aborted | budget
    will_retry: bool = False
    stop: str = ""  # why it was its node's last attempt (engine/retry.py STOP_*); '' when retried
    backoff_ms: int | None = None  # the backoff planned after it (BackoffStarted)
    retry_after_ms: int | None = None  # the provider's Retry-After, when it set that backoff's floor
    waited_ms: int | None = None  # the wait as it really was (BackoffEnded); None while waiting
    wait_skipped: bool = False  # fast-forward or --no-wait ended the wait early
    wait_replayed: bool = False  # a failure replayed from a journal: waited in the run that recorded it
    retried: bool = False  # the next attempt of its node has started (the wait is over)
    usage: dict[str, Any] | None = None
    duration_ms: float = 0.0
    seq: int = 0


@dataclass
class RoundInfo:
    number: int  # 1-based evaluation number shown in the strip
    round: int  # 0 = first evaluation
    verdict: str | None  # pass | block | None (failed)
    reason: str | None = None  # the block reason that started this round (rounds ≥ 1)
    rerun: list[str] = field(default_factory=list)  # upstream phases re-run before it
    output: str = ""
    run: int = 0


@dataclass
class PhaseTimeline:
    phase_id: str
    attempts: list[AttemptRow] = field(default_factory=list)
    rounds: list[RoundInfo] = field(default_factory=list)
    runs: int = 0


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
            before = self._rows.get((pid, e.node_path, e.attempt - 1)) if e.attempt else None
            if before is not None:
                before.retried = True
        elif isinstance(e, ev.AgentReturned):
            returned = self._rows.get((pid, e.node_path, e.attempt))
            if returned is not None:
                returned.output, returned.error, returned.usage = e.output, e.error, e.usage
                returned.duration_ms = e.duration_ms
                returned.status = "failed" if e.error is not None else "ok"
        elif isinstance(e, ev.AttemptFailed):
            failed = self._rows.get((pid, e.node_path, e.attempt))
            if failed is not None:
                failed.status, failed.error, failed.transient, failed.kind = "failed", e.error, e.transient, e.why
                failed.will_retry = e.will_retry
                failed.stop = e.stop or recorded_stop(attempt=e.attempt, transient=e.transient, why=e.why,
                                                      will_retry=e.will_retry)
        elif isinstance(e, ev.BackoffStarted):
            waited = self._rows.get((pid, e.node_path, e.attempt))
            if waited is not None:
                waited.backoff_ms, waited.retry_after_ms = e.delay_ms, e.retry_after_ms
        elif isinstance(e, ev.BackoffEnded):
            ended = self._rows.get((pid, e.node_path, e.attempt))
            if ended is not None:
                ended.waited_ms, ended.wait_skipped, ended.wait_replayed = e.waited_ms, e.skipped, e.replayed
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
