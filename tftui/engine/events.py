"""Run events: the only thing front ends (TUI, headless CLI, journal, trace recorder) consume.

Every state change of a run is one event. `tftui.engine.state.fold` turns a stream of
them into a `RunState`, so a live run, a resumed run and a replay look the same.

Conventions (stable contract):
- Each event class has a class-level `kind` string and two instance fields set by the
  run's emitter: `seq` (monotonic per run, starting at 1) and `ts` (wall-clock seconds).
- `attempt` fields are 0-based, as in `AgentRequest.attempt` (docs/retry.md §3 `k`); add 1 to
  display them. `round` is the onBlock round (0 = the gate's first evaluation).
- `usage` fields are `Usage.to_json()` dicts (`input`, `output`, `costUSD`?, `cacheRead`?,
  `cacheWrite`?) or None when the runner reported no usage (never a fake zero). Whether that
  is unknown or nothing is RunStarted's `reports_usage` / `reports_cost` (the runner's, docs/scheduling.md §6).
- A phase's `json` may be MISSING (JS undefined: "no parsed value"); it is omitted from
  the JSON form and restored as MISSING when decoding. JSON null stays None.
- `node_path` follows docs/language.md §7 (`phase`, `phase#item-<i>`, `phase#branch-<i>`,
  `phase#variant-<n>`, `phase#judge`).
- `event_from_json` tolerates unknown kinds (returns `UnknownEvent`) and unknown keys
  (ignored), so newer journals can be read by older front ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from tftui.lang.values import MISSING


@dataclass(slots=True, kw_only=True)
class Event:
    kind: ClassVar[str] = "event"
    seq: int = 0
    ts: float = 0.0


@dataclass(slots=True, kw_only=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    run_id: str = ""
    flow_name: str = ""
    flow_path: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    phase_ids: list[str] = field(default_factory=list)
    phase_types: dict[str, str] = field(default_factory=dict)
    resumed: bool = False  # True when the run continues a journal (resume_state)
    # What the runner meters (docs/scheduling.md §6): an answer without usage from a runner
    # that reports none has unknown tokens/cost, never 0 (README "Cost and usage").
    reports_usage: bool = True
    reports_cost: bool = True


@dataclass(slots=True, kw_only=True)
class GuardEvaluated(Event):
    kind: ClassVar[str] = "guard_evaluated"
    phase_id: str = ""
    expr: str = ""
    value: bool = True
    error: str | None = None
    overridden: bool = False  # the expression came from a debugger guard override


@dataclass(slots=True, kw_only=True)
class PhaseSkipped(Event):
    kind: ClassVar[str] = "phase_skipped"
    phase_id: str = ""
    reason: str = ""  # docs/scheduling.md §2.1 skip reason (stored as the phase's `error`)


@dataclass(slots=True, kw_only=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    phase_id: str = ""
    phase_type: str = "agent"
    depth: int = 0  # onBlock re-run depth (docs/gates.md §9); 0 for a normal run
    round: int = 0  # the onBlock round that re-runs this phase (0 = first run)


@dataclass(slots=True, kw_only=True)
class PhaseWarning(Event):
    """A warning added to a phase while it runs (it is repeated in PhaseFinished.warnings)."""

    kind: ClassVar[str] = "phase_warning"
    phase_id: str = ""
    message: str = ""


@dataclass(slots=True, kw_only=True)
class AttemptStarted(Event):
    kind: ClassVar[str] = "attempt_started"
    phase_id: str = ""
    node_path: str = ""
    attempt: int = 0
    prompt: str = ""
    agent: str = ""


@dataclass(slots=True, kw_only=True)
class AgentReturned(Event):
    kind: ClassVar[str] = "agent_returned"
    phase_id: str = ""
    node_path: str = ""
    attempt: int = 0
    output: str = ""
    error: str | None = None
    usage: dict[str, Any] | None = None
    duration_ms: float = 0.0
    timed_out: bool = False
    exit_code: int = 0
    # A resume answered this call from the run's own journal (AgentResult.resumed): the
    # interrupted process made it, and its AttemptStarted/AgentReturned are already in the
    # journal. The fold counts such a call and its spend once (docs/inputs.md §3); false in
    # journals written before this field, where a resumed run's replays count twice.
    resumed: bool = False


@dataclass(slots=True, kw_only=True)
class AttemptFailed(Event):
    kind: ClassVar[str] = "attempt_failed"
    phase_id: str = ""
    node_path: str = ""
    attempt: int = 0
    error: str = ""
    transient: bool = False
    why: str = ""  # "error" | "timeout" | "contract" | "aborted" | "budget"
    will_retry: bool = False
    # why no attempt follows (engine/retry.py STOP_*: the attempt loop's decision); "" when one
    # does, and in journals written before this field (engine/retry.recorded_stop reads those)
    stop: str = ""


@dataclass(slots=True, kw_only=True)
class BackoffStarted(Event):
    kind: ClassVar[str] = "backoff_started"
    phase_id: str = ""
    node_path: str = ""
    attempt: int = 0  # the attempt that failed; the next one is attempt + 1
    delay_ms: int = 0
    retry_after_ms: int | None = None  # the provider's Retry-After (capped), when it raised the delay's floor


@dataclass(slots=True, kw_only=True)
class BackoffEnded(Event):
    """The wait a BackoffStarted announced is over (docs/retry.md §3.3): how long it really was.

    `delay_ms` is the wait planned; fast-forward (the debugger's `F`) or `--no-wait` end it
    early (`skipped`), and a failure replayed from a journal is not waited again (`replayed`:
    its wait happened in the run that recorded it)."""

    kind: ClassVar[str] = "backoff_ended"
    phase_id: str = ""
    node_path: str = ""
    attempt: int = 0  # the attempt that failed, as in its BackoffStarted
    delay_ms: int = 0  # the wait planned (its BackoffStarted's)
    waited_ms: int = 0  # the time actually waited
    skipped: bool = False
    replayed: bool = False


@dataclass(slots=True, kw_only=True)
class ScorersEvaluated(Event):
    kind: ClassVar[str] = "scorers_evaluated"
    phase_id: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)  # {name, type, passed, score, detail?}
    combined: float = 0.0
    threshold: float | None = None
    stage: str = ""  # deterministic | early-cutoff | judge-weighted | judge-authoritative | unresolved
    report: str = ""  # the scorer report text (docs/gates.md §6)


@dataclass(slots=True, kw_only=True)
class JudgeCalled(Event):
    kind: ClassVar[str] = "judge_called"
    phase_id: str = ""
    prompt: str = ""
    node_path: str = ""


@dataclass(slots=True, kw_only=True)
class FallbackUsed(Event):
    """A fail-open substitution (docs/trace-gates.md §8 `fallback` steps): ambiguous verdict, bad guard, …"""

    kind: ClassVar[str] = "fallback_used"
    phase_id: str = ""
    reason: str = ""


@dataclass(slots=True, kw_only=True)
class GateVerdict(Event):
    """A gate/approval decision. `json` is MISSING for score gates: their structured result is
    ScorersEvaluated + verdict per round, and PhaseFinished.json for the final one."""

    kind: ClassVar[str] = "gate_verdict"
    phase_id: str = ""
    verdict: str = "pass"  # "pass" | "block"
    reason: str | None = None
    source: str = ""  # eval | score | judge | task | approval
    round: int = 0
    json: Any = MISSING
    prompts: list[str] = field(default_factory=list)
    combined: float | None = None
    output: str = ""


@dataclass(slots=True, kw_only=True)
class OnBlockRound(Event):
    kind: ClassVar[str] = "on_block_round"
    phase_id: str = ""
    round: int = 1  # 1-based onBlock round about to run
    reason: str | None = None  # the block reason that triggered it
    rerun: list[str] = field(default_factory=list)  # upstream phase ids re-executed this round


@dataclass(slots=True, kw_only=True)
class ApprovalRequested(Event):
    kind: ClassVar[str] = "approval_requested"
    phase_id: str = ""
    message: str = ""
    previous_output: str | None = None


@dataclass(slots=True, kw_only=True)
class PhaseFinished(Event):
    kind: ClassVar[str] = "phase_finished"
    phase_id: str = ""
    status: str = "done"  # done | failed (skips are PhaseSkipped)
    output: str | None = None
    json: Any = MISSING
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    attempts: int = 1  # docs/language.md §2.2: calls made (gates: onBlock rounds run)
    gate: dict[str, Any] | None = None  # {verdict, reason?, scores?}
    duration_ms: float = 0.0
    # loop / tournament / approval / defError / timedOut / budgetTruncated / sideEffect
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class ItemsResolved(Event):
    """A map phase resolved `over`: how many items it will run (progress shows done/total)."""

    kind: ClassVar[str] = "items_resolved"
    phase_id: str = ""
    total: int = 0


@dataclass(slots=True, kw_only=True)
class PhaseReset(Event):
    """The debugger made a finished phase pending again (re-run of stale phases / gate)."""

    kind: ClassVar[str] = "phase_reset"
    phase_id: str = ""
    reason: str = ""


@dataclass(slots=True, kw_only=True)
class PhasesReset(Event):
    """A partial re-run begins (`u` stale phases, a gate re-run, an applied guard): these
    phases are pending again as if they had never run (their attempts, rounds and gate
    history are cleared); every other phase keeps its result. Emitted before the re-run's
    `RunStarted`, so the re-run's journal and every front end fold the same state."""

    kind: ClassVar[str] = "phases_reset"
    phase_ids: list[str] = field(default_factory=list)
    phase_types: dict[str, str] = field(default_factory=dict)
    reason: str = ""  # "stale" | "rerun-gate" | "guard-applied"


@dataclass(slots=True, kw_only=True)
class PhasesStale(Event):
    """The flow file changed (hot reload): these phases' results were made by another
    version of their definition (or of what they read) and a partial re-run would change
    them. `removed`: phases no longer in the flow, whose state is dropped. Emitted by the
    debugger session, not by a run: it is folded, never journaled."""

    kind: ClassVar[str] = "phases_stale"
    phase_ids: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class PhasesGrafted(Event):
    """A graft-mode `expand` phase (`phase_id`) is about to run its generated flow: its
    phases will appear as these top-level phases (`<expandId>-<childId>`)."""

    kind: ClassVar[str] = "phases_grafted"
    phase_id: str = ""
    phase_ids: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Paused(Event):
    kind: ClassVar[str] = "paused"
    point: str = ""  # before-phase | before-attempt | before-round | after-verdict | after-failure
    phase_id: str | None = None
    node_path: str | None = None
    attempt: int | None = None
    round: int | None = None
    why: str = "step"  # step | breakpoint | data-breakpoint | failure | block | pause


@dataclass(slots=True, kw_only=True)
class Resumed(Event):
    kind: ClassVar[str] = "resumed"


@dataclass(slots=True, kw_only=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    status: str = "completed"  # completed | failed | blocked | paused
    final_output: str = ""
    usage: dict[str, Any] | None = None
    error: str | None = None  # crash message, if the engine crashed


@dataclass(slots=True, kw_only=True)
class SubflowEvent(Event):
    """An event of a nested sub-flow (`flow`, nested `expand`), journaled under its parent phase.

    `phase_id` is the parent phase; `event` is the child run's event in JSON form
    (`event_to_json`), itself possibly a SubflowEvent for deeper nesting. The child's
    model calls are not wrapped: they are re-emitted as ordinary attempt events of the
    parent phase with `parent/`-prefixed node paths (so usage is counted once). The fold
    keeps the child run's state in `PhaseState.sub` (a RunState) for nested displays.
    """

    kind: ClassVar[str] = "subflow_event"
    phase_id: str = ""
    event: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class UnknownEvent(Event):
    """An event of a kind this version does not know (kept verbatim)."""

    kind: ClassVar[str] = "unknown"
    raw_kind: str = ""
    data: dict[str, Any] = field(default_factory=dict)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RunStarted,
        GuardEvaluated,
        PhaseSkipped,
        PhaseStarted,
        PhaseWarning,
        AttemptStarted,
        AgentReturned,
        AttemptFailed,
        BackoffStarted,
        BackoffEnded,
        ScorersEvaluated,
        JudgeCalled,
        FallbackUsed,
        GateVerdict,
        OnBlockRound,
        ApprovalRequested,
        PhaseFinished,
        ItemsResolved,
        PhaseReset,
        PhasesReset,
        PhasesStale,
        PhasesGrafted,
        Paused,
        Resumed,
        RunFinished,
        SubflowEvent,
    )
}

# ── per-call events without the keyword call of a class ─────────────────────────────────
# In CPython 3.11 `Cls(a=…, b=…)` of a Python class packs the keywords into a dict and unpacks
# it again for `__init__` (about 4x the cost of the assignments themselves); these two events
# are made for every model call, so they are built field by field. Every field is set, as the
# constructor sets it (tests/engine/test_fast_constructors.py compares them field by field).
_new = object.__new__


def attempt_started(phase_id: str, node_path: str, attempt: int, prompt: str, agent: str) -> AttemptStarted:
    """`AttemptStarted(phase_id=…, node_path=…, attempt=…, prompt=…, agent=…)`."""
    e: AttemptStarted = _new(AttemptStarted)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.node_path = node_path
    e.attempt = attempt
    e.prompt = prompt
    e.agent = agent
    return e


def agent_returned(
    phase_id: str, node_path: str, attempt: int, output: str, error: str | None, usage: dict[str, Any] | None,
    duration_ms: float, timed_out: bool, exit_code: int, resumed: bool = False,
) -> AgentReturned:
    """`AgentReturned(phase_id=…, …, resumed=…)`, every field given."""
    e: AgentReturned = _new(AgentReturned)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.node_path = node_path
    e.attempt = attempt
    e.output = output
    e.error = error
    e.usage = usage
    e.duration_ms = duration_ms
    e.timed_out = timed_out
    e.exit_code = exit_code
    e.resumed = resumed
    return e


# The per-phase events, built the same way (one or two of each for every phase of a run).


def phase_started(phase_id: str, phase_type: str, depth: int, round: int) -> PhaseStarted:
    """`PhaseStarted(phase_id=…, phase_type=…, depth=…, round=…)`."""
    e: PhaseStarted = _new(PhaseStarted)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.phase_type = phase_type
    e.depth = depth
    e.round = round
    return e


def guard_evaluated(phase_id: str, expr: str, value: bool, error: str | None, overridden: bool) -> GuardEvaluated:
    """`GuardEvaluated(phase_id=…, expr=…, value=…, error=…, overridden=…)`."""
    e: GuardEvaluated = _new(GuardEvaluated)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.expr = expr
    e.value = value
    e.error = error
    e.overridden = overridden
    return e


def phase_skipped(phase_id: str, reason: str) -> PhaseSkipped:
    """`PhaseSkipped(phase_id=…, reason=…)`."""
    e: PhaseSkipped = _new(PhaseSkipped)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.reason = reason
    return e


def phase_finished(
    phase_id: str, status: str, output: str | None, json: Any, error: str | None, warnings: list[str],
    usage: dict[str, Any] | None, attempts: int, gate: dict[str, Any] | None, duration_ms: float,
    extra: dict[str, Any],
) -> PhaseFinished:
    """`PhaseFinished(phase_id=…, …, extra=…)`, every field given."""
    e: PhaseFinished = _new(PhaseFinished)
    e.seq = 0
    e.ts = 0.0
    e.phase_id = phase_id
    e.status = status
    e.output = output
    e.json = json
    e.error = error
    e.warnings = warnings
    e.usage = usage
    e.attempts = attempts
    e.gate = gate
    e.duration_ms = duration_ms
    e.extra = extra
    return e


_FIELDS: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in EVENT_TYPES.values()}


_NONE = type(None)
# A field's annotation -> (the JSON types a decoded value may have, what it must be). Fields with
# another annotation (`Any`, the `json` value) take any JSON value; `list[str]` and
# `dict[str, str]` are checked item by item, the statuses against their closed vocabularies.
_TYPES: dict[str, tuple[frozenset[type], str]] = {
    "int": (frozenset({int, float}), "a number"),  # an integral float from another writer is the same number
    "float": (frozenset({int, float}), "a number"),
    "str": (frozenset({str}), "a string"),
    "bool": (frozenset({bool}), "true or false"),
    "dict": (frozenset({dict}), "an object"),
    "list": (frozenset({list}), "an array"),
}
_WORDS: dict[tuple[str, str], frozenset[str]] = {
    ("phase_finished", "status"): frozenset({"done", "failed"}),
    ("run_finished", "status"): frozenset({"completed", "failed", "blocked", "paused"}),
}


def _field_types(cls: type) -> dict[str, tuple[frozenset[type], str]]:
    out: dict[str, tuple[frozenset[type], str]] = {}
    for f in fields(cls):
        annotation = str(f.type).replace(" ", "")
        nullable = annotation.endswith("|None")
        base = annotation.removesuffix("|None").split("[", 1)[0]
        if base in _TYPES:
            types, what = _TYPES[base]
            out[f.name] = (types | {_NONE}, what) if nullable else (types, what)
    return out


def _item_checks(cls: type) -> tuple[tuple[str, str], ...]:
    """(field, what) for the `list[str]` / `dict[str, str]` fields, whose items are checked too."""
    kinds = {"list[str]": "an array of strings", "dict[str,str]": "an object of strings"}
    return tuple((f.name, kinds[t]) for f in fields(cls) if (t := str(f.type).replace(" ", "")) in kinds)


def _int_fields(cls: type) -> frozenset[str]:
    """The `int` fields, where a float from another writer must be whole (2.0 is 2; 1.5 is refused)."""
    return frozenset(f.name for f in fields(cls) if str(f.type).replace(" ", "").removesuffix("|None") == "int")


_TYPED: dict[type, dict[str, tuple[frozenset[type], str]]] = {cls: _field_types(cls) for cls in EVENT_TYPES.values()}
_INTS: dict[type, frozenset[str]] = {cls: _int_fields(cls) for cls in EVENT_TYPES.values()}
_ITEMS: dict[type, tuple[tuple[str, str], ...]] = {cls: _item_checks(cls) for cls in EVENT_TYPES.values()}
_WORDS_OF: dict[type, tuple[tuple[str, frozenset[str]], ...]] = {
    cls: tuple((name, words) for (kind, name), words in _WORDS.items() if kind == cls.kind)
    for cls in EVENT_TYPES.values()
}


def _plain(value: Any) -> Any:
    """Make a value JSON-safe: MISSING inside containers becomes None, tuples become lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not MISSING}
    if isinstance(value, (list, tuple)):
        return [None if v is MISSING else _plain(v) for v in value]
    return value


def plain_json(value: Any) -> Any:
    """`value` made JSON-safe: MISSING dropped from objects and null in arrays (JS JSON.stringify)."""
    return _plain(value)


def event_to_json(event: Event, *, plain: bool = True) -> dict[str, Any]:
    """The event as a JSON-ready dict with its `kind`; MISSING-valued fields are omitted.

    Containers are shared with the event, not copied: treat the result as read-only.
    `plain=False` skips the walk that replaces MISSING inside a `json` value (the journal
    encodes first and only walks when its encoder actually meets a MISSING).
    """
    if isinstance(event, UnknownEvent):
        data = dict(event.data)
        data["kind"] = event.raw_kind
        data["seq"] = event.seq
        data["ts"] = event.ts
        return data
    out: dict[str, Any] = {"kind": event.kind}
    for name in _FIELDS[type(event)]:
        value = getattr(event, name)
        if value is MISSING:
            continue
        # Only `json` holds arbitrary parsed values; every other container is built by the
        # engine from plain JSON data, so it is shared as is (no per-event deep copy).
        out[name] = _plain(value) if plain and name == "json" and isinstance(value, (dict, list, tuple)) else value
    return out


def event_from_json(data: dict[str, Any]) -> Event:
    """Inverse of `event_to_json`; unknown kinds give `UnknownEvent`, unknown keys are ignored."""
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        rest = {k: v for k, v in data.items() if k not in ("kind", "seq", "ts")}
        return UnknownEvent(
            raw_kind=str(kind), data=rest, seq=_int(data.get("seq")), ts=_float(data.get("ts"))
        )
    names = _FIELDS[cls]
    kwargs = {k: v for k, v in data.items() if k in names}
    # A journal or bundle is input: a field of the wrong JSON type ("seq": "x", an object as a
    # phase id) or an unknown status is refused here, never met later by the fold or a front end.
    typed = _TYPED[cls]
    for name, value in kwargs.items():
        expected = typed.get(name)
        if expected is not None and type(value) not in expected[0]:
            raise ValueError(f"field '{name}' must be {expected[1]}, got {_shown(value)}")
        if type(value) is float and name in _INTS[cls]:
            if not value.is_integer():  # a count, an attempt, a sequence number: 1.5 is no such thing
                raise ValueError(f"field '{name}' must be a whole number, got {_shown(value)}")
            kwargs[name] = int(value)
    for name, what in _ITEMS[cls]:
        value = kwargs.get(name)
        if value is None:
            continue
        items = value.values() if type(value) is dict else value
        if not all(type(item) is str for item in items):
            raise ValueError(f"field '{name}' must be {what}, got {_shown(value)}")
    for name, words in _WORDS_OF[cls]:
        if name in kwargs and kwargs[name] not in words:
            raise ValueError(f"unknown {name} {_shown(kwargs[name])} (known: {', '.join(sorted(words))})")
    return cls(**kwargs)



def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
