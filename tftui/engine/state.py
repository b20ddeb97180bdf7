"""Run state as a fold over events: nothing else holds run state.

`apply(state, event)` mutates and returns `state` in O(1) per event (no copies), so
a live run folds as it goes, a resumed run folds its journal first, and a replay
folds a recording: all three give the same `RunState`.

Naming: `PhaseState.attempts` is docs/language.md §2.2's number (calls made; gates: onBlock
rounds), `PhaseState.attempt_log` is the list of individual `Attempt`s (every model
call of the phase, including map items, branches, variants and judges).
`PhaseState.usage` uses docs/language.md §2.2's keys (`input`, `output`, `cost`, `cacheRead`,
`cacheWrite`, `turns`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

from tftui.engine import events as ev
from tftui.lang.values import MISSING


class PhaseStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"

    @property
    def terminal(self) -> bool:
        return self in (PhaseStatus.DONE, PhaseStatus.FAILED, PhaseStatus.SKIPPED)


STATUS: dict[str, PhaseStatus] = {status.value: status for status in PhaseStatus}


# `unpriced` / `untracked`: calls of unknown cost / answered calls with no usage at all (unknown is not 0; add_usage)
_EMPTY_USAGE: dict[str, Any] = {"input": 0, "output": 0, "cost": 0.0, "cacheRead": 0, "cacheWrite": 0,
                                "turns": 0, "unpriced": 0, "untracked": 0}
# A fresh zero tally on each call (a C-level copy: every phase state and phase run makes one or two).
empty_usage: Callable[[], dict[str, Any]] = _EMPTY_USAGE.copy


@dataclass(frozen=True, slots=True)
class Metering:
    """What a run's runner reports (`reports_usage` / `reports_cost`, docs/scheduling.md §6)."""

    usage: bool = True
    cost: bool = True


METERED = Metering()


def add_usage(
    total: dict[str, Any], usage: dict[str, Any] | None, *, answered: bool = True, metering: Metering = METERED
) -> None:
    """Add a runner usage dict (`Usage.to_json()` keys) to a docs/language.md §2.2 usage dict, in place.

    Unknown is never a silent 0 (README "Cost and usage"): an answered call (no error, not
    replayed) counts as `untracked` when it reported no usage and its runner reports none
    (a CLI agent), and as `unpriced` when its cost is unknown: no cost with tokens, or no
    usage from a runner that reports no cost (a provider without prices). A failed call that
    reported tokens without a cost is `unpriced` too: every attempt's usage counts
    (docs/retry.md §3), and those tokens were spent at a cost not known, so the phase's and
    the run's cost is a lower bound. A failed call without usage, or without tokens, adds nothing unknown (no
    answer: nothing known to be spent)."""
    if not usage:  # (checked first: an instant or CLI runner reports none, on every call)
        if answered and not (metering.usage and metering.cost):
            if not metering.usage:
                total["untracked"] = total.get("untracked", 0) + 1
            total["unpriced"] = total.get("unpriced", 0) + 1
        return
    if not isinstance(usage.get("costUSD", usage.get("cost")), (int, float)) and (
        _num(usage.get("input")) or _num(usage.get("output")) or (answered and not metering.cost)
    ):
        total["unpriced"] = total.get("unpriced", 0) + 1
    total["input"] += _num(usage.get("input"))
    total["output"] += _num(usage.get("output"))
    total["cost"] += _num(usage.get("costUSD", usage.get("cost")))
    total["cacheRead"] += _num(usage.get("cacheRead"))
    total["cacheWrite"] += _num(usage.get("cacheWrite"))
    total["turns"] += 1


def merge_usage(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Add one usage dict of this module's keys to another, in place (every count and the cost)."""
    for key, value in part.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            total[key] = _num(total.get(key)) + value


def _num(value: Any) -> float | int:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass(slots=True)
class Attempt:
    """One model call (one node path, one attempt number)."""

    node_path: str
    attempt: int  # 0-based
    agent: str = ""
    prompt: str = ""
    status: str = "running"  # running | ok | failed
    output: str | None = None
    error: str | None = None
    usage: dict[str, Any] | None = None
    duration_ms: float = 0.0
    transient: bool = False
    why: str = ""
    will_retry: bool = False
    delay_ms: int | None = None  # backoff waited after this attempt
    retry_after_ms: int | None = None  # the provider's Retry-After, when it set that backoff's floor
    started_ts: float = 0.0


@dataclass(slots=True)
class GateEvaluation:
    """One gate verdict (the first evaluation is round 0, then one per onBlock round)."""

    round: int
    verdict: str
    reason: str | None = None
    source: str = ""
    json: Any = MISSING
    prompts: list[str] = field(default_factory=list)
    combined: float | None = None
    scores: dict[str, Any] | None = None  # {results, combined, threshold?, stage}
    output: str = ""


@dataclass(slots=True, weakref_slot=True)  # weakly referable: front ends cache facts per phase
class PhaseState:
    id: str
    type: str = "agent"
    status: PhaseStatus = PhaseStatus.PENDING
    output: str | None = None
    json: Any = MISSING
    usage: dict[str, Any] = field(default_factory=empty_usage)
    model: str | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    attempts: int = 0
    timed_out: bool = False
    budget_truncated: bool = False
    gate: dict[str, Any] | None = None
    approval: dict[str, Any] | None = None
    loop: dict[str, Any] | None = None
    tournament: dict[str, Any] | None = None
    def_error: str | None = None
    side_effect: bool = False
    optional: bool = False
    started_at: float | None = None
    ended_at: float | None = None
    duration_ms: float = 0.0
    # debugger / TUI extras
    attempt_log: list[Attempt] = field(default_factory=list)
    gate_history: list[GateEvaluation] = field(default_factory=list)
    scores: dict[str, Any] | None = None  # last ScorersEvaluated
    judge_prompt: str | None = None
    guard: dict[str, Any] | None = None  # {expr, value, error, overridden}
    depth: int = 0
    round: int = 0  # current onBlock round (gates) / re-run round (upstream phases)
    runs: int = 0  # how many times the phase started (onBlock re-runs, debugger re-runs)
    extra: dict[str, Any] = field(default_factory=dict)
    paused_base: float = 0.0  # the run's paused_s when the phase started (its own pauses come after)
    usage_base: dict[str, Any] | None = None  # its earlier rounds' usage, None in its first round (see _started)
    calls_before: int = 0  # the model calls of its earlier rounds in the run (attempt_log holds this round's)
    items_total: int | None = None  # map phases: the item count once `over` resolved (ItemsResolved)
    # flow / nested expand phases: the child run's state, folded from SubflowEvents
    # (child phase ids are local: `sub.phases["summarize"]` is `research/summarize`)
    sub: RunState | None = None

    @property
    def current_attempt(self) -> Attempt | None:
        return self.attempt_log[-1] if self.attempt_log else None


@dataclass(slots=True)
class RunState:
    run_id: str = ""
    flow_name: str = ""
    flow_path: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"  # pending | running | completed | failed | blocked | paused
    phases: dict[str, PhaseState] = field(default_factory=dict)
    final_output: str | None = None
    usage: dict[str, Any] = field(default_factory=empty_usage)  # every call, including re-runs
    # the part of `usage` whose results a partial re-run replaced (PhasesReset: `u`, `r`, an
    # applied guard, a resume's in-flight phases): spent in this run, on no phase's row now
    usage_earlier: dict[str, Any] = field(default_factory=empty_usage)
    # model calls the run sent to its runner, as `usage` counts them (docs/inputs.md §3): every
    # AttemptStarted, retries, onBlock rework rounds and results a partial re-run replaced
    # included (a phase's log keeps its latest), but a call a resume answered from the run's own
    # journal (`AgentReturned.resumed`) once, as the interrupted process made it
    calls: int = 0
    paused: ev.Paused | None = None
    error: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    last_seq: int = 0
    event_count: int = 0
    resumed: bool = False
    # Time, as the engine counts a phase's duration (paused time left out): the pauses of this
    # run so far, the one in progress, and the active time of the earlier runs a re-run continues.
    paused_s: float = 0.0
    paused_since: float | None = None
    earlier_s: float = 0.0
    metering: Metering = METERED  # the runner's, from RunStarted (whether a missing usage is unknown)
    # Phases whose results a saved edit of the flow made out of date (PhasesStale); a phase
    # leaves the set when it starts again or is reset (a partial re-run brings it up to date).
    stale: set[str] = field(default_factory=set)
    # Grafted expand children (`fanout-draft`) -> the expand phase that added them (PhasesGrafted).
    graft_parent: dict[str, str] = field(default_factory=dict)

    def phase(self, phase_id: str) -> PhaseState:
        state = self.phases.get(phase_id)
        if state is None:  # tolerate events for phases the RunStarted did not list
            state = self.phases[phase_id] = PhaseState(id=phase_id)
        return state


def counted_phase_ids(state: RunState, flow_ids: Iterable[str] | None = None) -> list[str]:
    """The phases every n/m of a run counts (the debugger's header, `tftui run`'s live line,
    `tftui runs`, the resume note, the new-run question): the flow's top-level phases and the
    children a graft-mode expand phase added to the run (`fanout-draft`), once they exist. A
    sub-flow's phases (`research/points`) are their parent's business and not counted. Without
    the flow (a journal read back), the run's own top-level phases are the flow's."""
    if flow_ids is None:
        return [pid for pid in state.phases if "/" not in pid]
    ids = list(flow_ids)
    known = set(ids)
    ids += [pid for pid in state.phases if pid not in known and "/" not in pid and pid in state.graft_parent]
    return ids


def progress(state: RunState, flow_ids: Iterable[str] | None = None) -> tuple[int, int]:
    """(finished, total): of the counted phases, how many reached an end (done, blocked,
    failed or skipped). The one n/m rule (docs/inputs.md §6); present re-exports it."""
    ids = counted_phase_ids(state, flow_ids)
    done = 0
    for pid in ids:
        phase = state.phases.get(pid)
        if phase is not None and phase.status.terminal:
            done += 1
    return done, len(ids)


def _find_attempt(phase: PhaseState, node_path: str, attempt: int) -> Attempt | None:
    # The matching attempt is nearly always among the last few (fan-outs interleave).
    for item in reversed(phase.attempt_log):
        if item.node_path == node_path and item.attempt == attempt:
            return item
    return None


def _run_started(state: RunState, e: ev.RunStarted) -> None:
    state.run_id = e.run_id
    state.flow_name = e.flow_name
    state.flow_path = e.flow_path
    state.args = dict(e.args)
    state.status = "running"
    # A partial re-run continues this state: the run's time so far is the earlier runs' active
    # time plus this one's (the time between them, spent reading, is nobody's).
    if e.resumed and state.started_at is not None and state.ended_at is not None:
        state.earlier_s += max(0.0, state.ended_at - state.started_at - state.paused_s)
    elif not e.resumed:
        state.earlier_s = 0.0
    state.paused_s, state.paused_since = 0.0, None
    state.started_at = e.ts
    state.ended_at = None
    state.paused = None
    state.resumed = e.resumed
    state.metering = Metering(usage=e.reports_usage, cost=e.reports_cost)
    for pid in e.phase_ids:
        if pid not in state.phases:
            state.phases[pid] = PhaseState(pid, e.phase_types.get(pid, "agent"))  # (positional: no keyword dict)


def _guard(state: RunState, e: ev.GuardEvaluated) -> None:
    state.phase(e.phase_id).guard = {
        "expr": e.expr,
        "value": e.value,
        "error": e.error,
        "overridden": e.overridden,
    }


def _skipped(state: RunState, e: ev.PhaseSkipped) -> None:
    p = state.phase(e.phase_id)
    p.status = PhaseStatus.SKIPPED
    p.error = e.reason
    p.output = None
    p.json = MISSING
    p.ended_at = e.ts


def _started(state: RunState, e: ev.PhaseStarted) -> None:
    if state.stale:
        state.stale.discard(e.phase_id)
    p = state.phase(e.phase_id)
    p.type = e.phase_type
    p.status = PhaseStatus.RUNNING
    p.depth = e.depth
    p.round = e.round
    p.runs += 1
    p.started_at = e.ts
    p.paused_base = state.paused_s
    p.ended_at = None
    p.output = None
    p.json = MISSING
    p.error = None
    p.warnings = []
    p.attempts = 0
    # One rule for tokens and cost (README "Cost and usage"): a phase's usage sums every call it
    # made in the run, its onBlock rework rounds included, as the header's total does; so does
    # its count of calls (calls_before + this round's attempt_log).
    if e.round > 0:
        p.usage_base = dict(p.usage)
        p.usage = dict(p.usage_base)
        p.calls_before += len(p.attempt_log)
    else:
        p.usage_base = None
        p.usage = empty_usage()
        p.calls_before = 0
    p.attempt_log = []
    p.timed_out = False
    p.budget_truncated = False
    p.scores = None
    p.judge_prompt = None
    p.sub = None
    p.items_total = None
    if e.phase_type == "gate" and e.round == 0:
        p.gate_history = []
        p.gate = None


def _warning(state: RunState, e: ev.PhaseWarning) -> None:
    p = state.phase(e.phase_id)
    if e.message not in p.warnings:
        p.warnings.append(e.message)


_new = object.__new__


def _started_attempt(node_path: str, attempt: int, agent: str, prompt: str, started_ts: float) -> Attempt:
    """`Attempt(node_path=…, attempt=…, agent=…, prompt=…, started_ts=…)` set field by field, one
    per model call (a keyword call of a class costs ~4x in CPython 3.11; see tftui.engine.events).
    Every field is set as the constructor sets it (tests/engine/test_fast_constructors.py)."""
    a: Attempt = _new(Attempt)
    a.node_path = node_path
    a.attempt = attempt
    a.agent = agent
    a.prompt = prompt
    a.status = "running"
    a.output = None
    a.error = None
    a.usage = None
    a.duration_ms = 0.0
    a.transient = False
    a.why = ""
    a.will_retry = False
    a.delay_ms = None
    a.retry_after_ms = None
    a.started_ts = started_ts
    return a


def _attempt_started(state: RunState, e: ev.AttemptStarted) -> None:
    state.calls += 1
    phase = state.phases.get(e.phase_id)
    if phase is None:
        phase = state.phase(e.phase_id)
    phase.attempt_log.append(_started_attempt(e.node_path, e.attempt, e.agent, e.prompt, e.ts))


def _agent_returned(state: RunState, e: ev.AgentReturned) -> None:
    p = state.phase(e.phase_id)
    log = p.attempt_log
    last = log[-1] if log else None  # nearly always the one (a call answered before the next started)
    if last is not None and last.node_path == e.node_path and last.attempt == e.attempt:
        item: Attempt | None = last
    else:
        item = _find_attempt(p, e.node_path, e.attempt)
    if item is None:
        item = Attempt(node_path=e.node_path, attempt=e.attempt)
        p.attempt_log.append(item)
    item.status = "failed" if e.error is not None else "ok"
    item.output = e.output
    item.error = e.error
    item.usage = e.usage
    item.duration_ms = e.duration_ms
    add_usage(p.usage, e.usage, answered=e.error is None, metering=state.metering)
    if e.resumed:
        # A resume's replay of a call the interrupted process made: its AttemptStarted was just
        # counted again and its spend is in the run's total already (docs/inputs.md §3).
        state.calls -= 1
        return
    add_usage(state.usage, e.usage, answered=e.error is None, metering=state.metering)


def _attempt_failed(state: RunState, e: ev.AttemptFailed) -> None:
    p = state.phase(e.phase_id)
    item = _find_attempt(p, e.node_path, e.attempt)
    if item is None:
        item = Attempt(node_path=e.node_path, attempt=e.attempt)
        p.attempt_log.append(item)
    item.status = "failed"
    item.error = e.error
    item.transient = e.transient
    item.why = e.why
    item.will_retry = e.will_retry


def _backoff(state: RunState, e: ev.BackoffStarted) -> None:
    item = _find_attempt(state.phase(e.phase_id), e.node_path, e.attempt)
    if item is not None:
        item.delay_ms = e.delay_ms
        item.retry_after_ms = e.retry_after_ms


def _scorers(state: RunState, e: ev.ScorersEvaluated) -> None:
    state.phase(e.phase_id).scores = {
        "results": e.results,
        "combined": e.combined,
        "threshold": e.threshold,
        "stage": e.stage,
        "report": e.report,
    }


def _judge(state: RunState, e: ev.JudgeCalled) -> None:
    state.phase(e.phase_id).judge_prompt = e.prompt


def _verdict(state: RunState, e: ev.GateVerdict) -> None:
    p = state.phase(e.phase_id)
    p.gate_history.append(
        GateEvaluation(
            round=e.round,
            verdict=e.verdict,
            reason=e.reason,
            source=e.source,
            json=e.json,
            prompts=list(e.prompts),
            combined=e.combined,
            scores=p.scores,
            output=e.output,
        )
    )
    gate: dict[str, Any] = {"verdict": e.verdict}
    if e.reason:
        gate["reason"] = e.reason
    p.gate = gate


def _on_block_round(state: RunState, e: ev.OnBlockRound) -> None:
    p = state.phase(e.phase_id)
    p.round = e.round
    p.scores = None
    p.judge_prompt = None


def _finished(state: RunState, e: ev.PhaseFinished) -> None:
    p = state.phase(e.phase_id)
    p.status = STATUS[e.status]
    p.output = e.output
    p.json = e.json
    p.error = e.error
    p.warnings = list(e.warnings)
    p.attempts = e.attempts
    p.gate = e.gate
    if e.gate is not None and "scores" not in e.gate and p.scores is not None:
        # score gates: `gate.scores` comes from the last ScorersEvaluated (not repeated in the event)
        scores = {"results": p.scores["results"], "combined": p.scores["combined"]}
        if p.scores.get("threshold") is not None:
            scores["threshold"] = p.scores["threshold"]
        p.gate = {**e.gate, "scores": scores}
    p.ended_at = e.ts
    p.duration_ms = e.duration_ms
    if e.usage is not None:
        usage = empty_usage()
        usage.update(e.usage)
        for key, before in (p.usage_base or {}).items():  # the earlier rounds of this phase in the run
            if isinstance(before, (int, float)) and isinstance(usage.get(key), (int, float)):
                usage[key] += before
        p.usage = usage
    x = e.extra
    p.extra = x
    if not x:  # most phases: nothing beyond the defaults (the same values as the lookups below)
        p.loop = p.tournament = p.approval = p.def_error = None
        p.timed_out = p.budget_truncated = p.side_effect = False
        return
    p.loop = x.get("loop")
    p.tournament = x.get("tournament")
    p.approval = x.get("approval")
    p.def_error = x.get("defError")
    p.timed_out = bool(x.get("timedOut", False))
    p.budget_truncated = bool(x.get("budgetTruncated", False))
    p.side_effect = bool(x.get("sideEffect", False))
    p.optional = bool(x.get("optional", p.optional))
    p.model = x.get("model", p.model)
    sub = x.get("subflow")
    if isinstance(sub, dict) and sub.get("mode") == "graft" and isinstance(sub.get("grafted"), list):
        for child in sub["grafted"]:  # journals written before PhasesGrafted existed say it here
            if isinstance(child, str):
                state.graft_parent.setdefault(child, e.phase_id)


def _reset(state: RunState, e: ev.PhaseReset) -> None:
    state.stale.discard(e.phase_id)
    p = state.phase(e.phase_id)
    p.status = PhaseStatus.PENDING
    p.output = None
    p.json = MISSING
    p.error = None
    p.gate = None
    if state.status not in ("running", "pending"):
        state.status = "running"


def _phases_reset(state: RunState, e: ev.PhasesReset) -> None:
    for pid in e.phase_ids:
        old = state.phases.get(pid)
        if old is not None:
            merge_usage(state.usage_earlier, old.usage)  # still spent: the header's total says so
        state.phases[pid] = PhaseState(id=pid, type=e.phase_types.get(pid) or (old.type if old else "agent"))
        state.stale.discard(pid)
    state.paused = None


def _phases_stale(state: RunState, e: ev.PhasesStale) -> None:
    for pid in e.removed:
        state.phases.pop(pid, None)
        state.stale.discard(pid)
    state.stale.update(e.phase_ids)


def _phases_grafted(state: RunState, e: ev.PhasesGrafted) -> None:
    for child in e.phase_ids:
        state.graft_parent[child] = e.phase_id


def _paused(state: RunState, e: ev.Paused) -> None:
    state.paused = e
    if state.paused_since is None:
        state.paused_since = e.ts


def _end_pause(state: RunState, ts: float) -> None:
    if state.paused_since is not None:
        state.paused_s += max(0.0, ts - state.paused_since)
        state.paused_since = None


def _resumed(state: RunState, e: ev.Resumed) -> None:
    state.paused = None
    _end_pause(state, e.ts)


def _run_finished(state: RunState, e: ev.RunFinished) -> None:
    state.status = e.status
    state.final_output = e.final_output
    state.error = e.error
    state.ended_at = e.ts
    state.paused = None
    _end_pause(state, e.ts)
    if e.usage is not None:
        usage = empty_usage()
        usage.update(e.usage)
        state.usage = usage


def _subflow(state: RunState, e: ev.SubflowEvent) -> None:
    p = state.phase(e.phase_id)
    if p.sub is None:
        p.sub = RunState()
    try:
        inner = ev.event_from_json(e.event)
    except (TypeError, ValueError):
        return  # a malformed nested event (hand-edited journal): nothing to show
    apply(p.sub, inner)


def _items(state: RunState, e: ev.ItemsResolved) -> None:
    state.phase(e.phase_id).items_total = e.total


_HANDLERS: dict[type, Any] = {
    ev.RunStarted: _run_started,
    ev.GuardEvaluated: _guard,
    ev.PhaseSkipped: _skipped,
    ev.PhaseStarted: _started,
    ev.PhaseWarning: _warning,
    ev.AttemptStarted: _attempt_started,
    ev.AgentReturned: _agent_returned,
    ev.AttemptFailed: _attempt_failed,
    ev.BackoffStarted: _backoff,
    ev.ScorersEvaluated: _scorers,
    ev.JudgeCalled: _judge,
    ev.GateVerdict: _verdict,
    ev.OnBlockRound: _on_block_round,
    ev.PhaseFinished: _finished,
    ev.ItemsResolved: _items,
    ev.PhaseReset: _reset,
    ev.PhasesReset: _phases_reset,
    ev.PhasesStale: _phases_stale,
    ev.PhasesGrafted: _phases_grafted,
    ev.Paused: _paused,
    ev.Resumed: _resumed,
    ev.RunFinished: _run_finished,
    ev.SubflowEvent: _subflow,
}


def apply(state: RunState, event: ev.Event) -> RunState:
    """Apply one event to `state` in place and return it. Unknown events only bump counters."""
    handler = _HANDLERS.get(type(event))
    if handler is not None:
        handler(state, event)
    state.event_count += 1
    if event.seq > state.last_seq:
        state.last_seq = event.seq
    return state


def fold(events: Iterable[ev.Event], state: RunState | None = None) -> RunState:
    """Fold events into `state` (a fresh RunState when None)."""
    if state is None:
        state = RunState()
    for event in events:
        apply(state, event)
    return state


# ── copies ────────────────────────────────────────────────────────────────────────────────
# A run state is copied where two threads or two points in time must not share it: a partial
# re-run continues a copy of the debugger's state, a replay keeps checkpoints. `copy_state`
# copies every container a state holds (its phases, attempts, lists, dicts and the JSON values
# in them) and shares only immutable values; it is written for the few types a state holds, where
# copy.deepcopy and a pickle round trip spent most of their time in the dataclasses' generic
# per-field state methods (2,000 finished phases: ~150 and ~60 ms of CPU; this: ~15 ms).

_LEAVES: frozenset[type] = frozenset({str, int, float, bool, type(None), type(MISSING), PhaseStatus, Metering})
# Fields whose declared type holds only leaves: set on the copy as they are.
_LEAF_TYPES = frozenset({"str", "int", "float", "bool", "PhaseStatus", "Metering", "str | None", "int | None",
                         "float | None", "bool | None"})


def _copy_value(value: Any) -> Any:
    """A deep copy of a JSON-like value (dicts, lists, leaves) or of a state dataclass."""
    cls = type(value)
    if cls in _LEAVES:
        return value
    if cls is dict:
        return {key: item if type(item) in _LEAVES else _copy_value(item) for key, item in value.items()}
    if cls is list:
        return [item if type(item) in _LEAVES else _copy_value(item) for item in value]
    copier = _COPIERS.get(cls)
    if copier is not None:
        return copier(value)
    import copy  # anything else (a set, a tuple, an event): the standard deep copy

    return copy.deepcopy(value)


def _copiers(*classes: type) -> dict[type, Callable[[Any], Any]]:
    """A field-by-field copy of each slots dataclass of `classes`, one line per field of
    fields(cls): `new.f = old.f` for a leaf type, a copy of each element for the lists and dicts
    of these dataclasses, `_copy_value(old.f)` for the rest. Made as dataclasses makes __init__."""
    from dataclasses import fields

    lines: list[str] = []
    for cls in classes:
        lines += [f"def copy_{cls.__name__}(old):", f"    new = _new({cls.__name__})"]
        for f in fields(cls):
            kind = f.type if isinstance(f.type, str) else ""
            if kind in _LEAF_TYPES:
                lines.append(f"    new.{f.name} = old.{f.name}")
            elif kind.startswith("list[") and kind[5:-1] in {c.__name__ for c in classes}:
                lines.append(f"    new.{f.name} = [copy_{kind[5:-1]}(item) for item in old.{f.name}]")
            elif kind.startswith("dict[str, ") and kind[10:-1] in {c.__name__ for c in classes}:
                lines.append(f"    new.{f.name} = {{key: copy_{kind[10:-1]}(item) for key, item in old.{f.name}.items()}}")
            else:
                lines.append(f"    v = old.{f.name}")
                lines.append(f"    new.{f.name} = v if type(v) in _LEAVES else _copy_value(v)")
        lines.append("    return new")
    scope: dict[str, Any] = {"_new": _new, "_LEAVES": _LEAVES, "_copy_value": _copy_value}
    scope.update({cls.__name__: cls for cls in classes})
    exec("\n".join(lines), scope)  # noqa: S102 - our own text, made from the dataclasses' fields
    return {cls: scope[f"copy_{cls.__name__}"] for cls in classes}


_COPIERS: dict[type, Callable[[Any], Any]] = _copiers(Attempt, GateEvaluation, PhaseState, RunState)


def copy_state(state: RunState) -> RunState:
    """A deep copy of `state`: equal to it field for field and sharing nothing that can change
    (mutating the copy, its phases, attempts or any nested list or dict leaves `state` alone)."""
    return cast(RunState, _COPIERS[RunState](state))
