"""Every evaluation of every gate, from the event stream: what the TUI's gate tab shows.

One `GateRecord` per gate verdict — the first evaluation (round 0), each onBlock round,
and each debugger re-run (`run` counts them: 0 is the run itself) — with the scorer
rows (name, type, passed, score, weight, detail), the exact judge prompt sent and the
judge's raw reply (or the gate task's prompt and reply), the recomputed combine,
the verdict and its source (eval, score, judge, task, fail-open). A gate whose model
call failed gets a record with status `failed` and no verdict.

Built from events rather than from `RunState`, because the fold keeps only the latest
run of a phase (a re-run resets it), while the history must keep them all. Recomputing
the combine needs the gate's `score` block (mode and weights are not in the events):
pass the flow; without it, or when the recorded numbers do not match the flow as it is
now (the file was edited), `recomputed` stays None and the words for the record
(`tftui.present.gates.arithmetic_line`) come from the recorded figures alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tftui.engine import events as ev
from tftui.lang.verdict import parse_judge_output
from tftui.scoring.combine import Combined, combine

if TYPE_CHECKING:
    from tftui.engine.state import PhaseState
    from tftui.flow.model import Flow


@dataclass
class ScorerRow:
    name: str
    type: str
    passed: bool
    score: int
    weight: float | None = None  # weighted mode only
    detail: str | None = None


@dataclass
class CallRecord:
    """One model call attempt made by the gate (its task or its judge)."""

    node_path: str
    attempt: int  # 0-based
    prompt: str = ""
    output: str | None = None
    error: str | None = None
    transient: bool = False
    will_retry: bool = False
    delay_ms: int | None = None


@dataclass
class GateRecord:
    phase_id: str
    index: int  # position in this gate's history
    run: int  # 0 = the run itself, 1.. = debugger re-runs (`r`)
    round: int  # 0 = first evaluation, then onBlock rounds
    status: str = "done"  # done | failed (the gate's model call failed)
    verdict: str | None = None
    reason: str | None = None
    source: str = ""  # eval | score | judge | task | fail-open
    rows: list[ScorerRow] = field(default_factory=list)
    combined: float | None = None
    threshold: float | None = None
    stage: str | None = None
    report: str | None = None
    judge_prompt: str | None = None
    judge_reply: str | None = None
    task_prompt: str | None = None
    task_reply: str | None = None
    prompts: list[str] = field(default_factory=list)
    output: str = ""
    error: str | None = None
    # the combine recomputed from the recorded rows and the flow's score block, kept only when it
    # reproduces the recorded score (the words for it are tftui.present.gates.arithmetic_line)
    recomputed: Combined | None = None
    block_reason: str | None = None  # onBlock rounds: the block reason that started the round
    rerun: list[str] = field(default_factory=list)  # onBlock rounds: upstream phases re-run first
    calls: list[CallRecord] = field(default_factory=list)
    seq: int = 0  # seq of the verdict event (0 when built from a RunState)


@dataclass
class _Open:
    run: int = 0
    round: int = 0
    rows: list[dict[str, Any]] | None = None
    combined: float | None = None
    threshold: float | None = None
    stage: str | None = None
    report: str | None = None
    block_reason: str | None = None
    rerun: list[str] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)


def _score_block(flow: Flow | None, phase_id: str) -> Mapping[str, Any] | None:
    if flow is None:
        return None
    for phase in flow.phases:
        if phase.id == phase_id:
            score = getattr(phase, "score", None)
            return score if isinstance(score, Mapping) else None
    return None


class GateHistoryBuilder:
    """Incremental: feed events as they come (`feed`), read `records(phase_id)` any time."""

    def __init__(self, flow: Flow | None = None) -> None:
        self.flow = flow
        self.history: dict[str, list[GateRecord]] = {}
        self._open: dict[str, _Open] = {}
        self._runs: dict[str, int] = {}
        self._gates: set[str] = set()

    def feed_all(self, events: Iterable[ev.Event]) -> GateHistoryBuilder:
        for event in events:
            self.feed(event)
        return self

    def records(self, phase_id: str) -> list[GateRecord]:
        return self.history.get(phase_id, [])

    def feed(self, e: ev.Event) -> None:
        if isinstance(e, ev.RunStarted):
            self._gates.update(pid for pid, kind in e.phase_types.items() if kind == "gate")
            return
        pid = getattr(e, "phase_id", None)
        if not isinstance(pid, str):
            return
        if isinstance(e, ev.PhaseStarted):
            if e.phase_type != "gate":
                return
            self._gates.add(pid)
            count = self._runs.get(pid, -1) + 1
            self._runs[pid] = count
            self._open[pid] = _Open(run=count, round=e.round)
            return
        if pid not in self._gates:
            return
        cur = self._open.setdefault(pid, _Open(run=max(0, self._runs.get(pid, 0))))
        if isinstance(e, ev.AttemptStarted):
            cur.calls.append(CallRecord(e.node_path, e.attempt, prompt=e.prompt))
        elif isinstance(e, (ev.AgentReturned, ev.AttemptFailed, ev.BackoffStarted)):
            call = next((c for c in reversed(cur.calls) if c.node_path == e.node_path and c.attempt == e.attempt), None)
            if call is None:
                return
            if isinstance(e, ev.AgentReturned):
                call.output, call.error = e.output, e.error
            elif isinstance(e, ev.AttemptFailed):
                call.error, call.transient, call.will_retry = e.error, e.transient, e.will_retry
            else:
                call.delay_ms = e.delay_ms
        elif isinstance(e, ev.ScorersEvaluated):
            cur.rows, cur.combined, cur.threshold = list(e.results), e.combined, e.threshold
            cur.stage, cur.report = e.stage, e.report
        elif isinstance(e, ev.OnBlockRound):
            self._open[pid] = _Open(run=cur.run, round=e.round, block_reason=e.reason, rerun=list(e.rerun))
        elif isinstance(e, ev.GateVerdict):
            self._close(pid, cur, e)
            self._open[pid] = _Open(run=cur.run, round=e.round)
        elif isinstance(e, ev.PhaseFinished) and e.status == "failed" and cur.calls:
            self._close(pid, cur, None, error=e.error)
            self._open.pop(pid, None)

    def _close(self, pid: str, cur: _Open, verdict: ev.GateVerdict | None, error: str | None = None) -> None:
        records = self.history.setdefault(pid, [])
        rec = GateRecord(phase_id=pid, index=len(records), run=cur.run, round=cur.round)
        rec.block_reason, rec.rerun, rec.calls = cur.block_reason, cur.rerun, cur.calls
        rec.combined, rec.threshold, rec.stage, rec.report = cur.combined, cur.threshold, cur.stage, cur.report
        for call in cur.calls:  # the last attempt of each node is the one that counted
            if call.node_path.endswith("#judge"):
                rec.judge_prompt, rec.judge_reply = call.prompt, call.output if call.error is None else None
            elif call.node_path == pid:
                rec.task_prompt, rec.task_reply = call.prompt, call.output if call.error is None else None
        if verdict is None:
            rec.status, rec.error, rec.source = "failed", error, "failed"
        else:
            rec.verdict, rec.reason, rec.source = verdict.verdict, verdict.reason, verdict.source
            rec.prompts, rec.output, rec.seq, rec.round = list(verdict.prompts), verdict.output, verdict.seq, verdict.round
            if verdict.combined is not None:
                rec.combined = verdict.combined
        _fill_rows_and_line(rec, cur.rows, _score_block(self.flow, pid))
        records.append(rec)


def gate_history(events: Iterable[ev.Event], flow: Flow | None = None) -> dict[str, list[GateRecord]]:
    """Every gate's evaluations, in order, keyed by gate phase id."""
    return GateHistoryBuilder(flow).feed_all(events).history


def gate_records(events: Iterable[ev.Event], phase_id: str, flow: Flow | None = None) -> list[GateRecord]:
    return gate_history(events, flow).get(phase_id, [])


def records_from_state(phase_state: PhaseState, flow: Flow | None = None) -> list[GateRecord]:
    """The same records from a folded PhaseState (only its latest run; no per-call detail)."""
    out: list[GateRecord] = []
    for index, ge in enumerate(phase_state.gate_history):
        rec = GateRecord(phase_id=phase_state.id, index=index, run=0, round=ge.round, verdict=ge.verdict,
                         reason=ge.reason, source=ge.source, prompts=list(ge.prompts), output=ge.output,
                         combined=ge.combined)
        last = ge.prompts[-1] if ge.prompts else None
        if ge.source == "judge":
            rec.judge_prompt, rec.judge_reply = last, ge.output
        elif ge.source == "task":
            rec.task_prompt, rec.task_reply = last, ge.output
        scores = ge.scores or {}
        rec.threshold, rec.stage, rec.report = scores.get("threshold"), scores.get("stage"), scores.get("report")
        _fill_rows_and_line(rec, scores.get("results"), _score_block(flow, phase_state.id))
        out.append(rec)
    return out


def _fill_rows_and_line(rec: GateRecord, rows: list[dict[str, Any]] | None, score: Mapping[str, Any] | None) -> None:
    rows = rows or []
    weights: list[float] = []
    if score is not None and rows:
        judge = parse_judge_output(rec.judge_reply) if rec.source == "judge" and rec.judge_reply is not None else None
        mode = score.get("combine", "all")
        c = combine(rows, mode, score.get("weights"), score.get("threshold"), judge=judge,
                    judge_configured=score.get("judge") is not None)
        shown = c.score if (c.mode == "weighted" or judge is None) else (c.judge_score or 0)
        if rec.combined is None or abs(shown - rec.combined) < 1e-9:
            rec.recomputed = c
            weights = list(c.weights) if c.mode == "weighted" else []
    rec.rows = [
        ScorerRow(
            name=str(r.get("name", "")),
            type=str(r.get("type", "")),
            passed=r.get("passed") is True,
            score=1 if r.get("passed") is True else 0,
            weight=weights[i] if i < len(weights) else None,
            detail=r.get("detail"),
        )
        for i, r in enumerate(rows)
    ]
