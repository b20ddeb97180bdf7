"""Run events → normalized trace (docs/trace-gates.md §8). A pure function of the event stream.

    trace = trace_from_events(events, fixture="validate")     # AgentTrace, normalized
    write_trace(run_dir, trace)                               # <run_dir>/trace.json
    cols = trace_columns_from_events(events, "validate")      # the same, as columns (cheaper)

Mapping (one recorder counter gives every step its sequence when it starts; policy and
fallback steps when they are decided):
- root: kind `run`, name = flow name, sequence 0; status from RunFinished
  (completed→ok, failed→error, blocked→blocked, paused or missing→cancelled);
  metadata `runStatus`, `skippedCount` (skipped phases get no step), `fakeClock`.
- every model-call attempt (AttemptStarted): kind `model`, name = node path, attempt k+1;
  status from AgentReturned/AttemptFailed (aborted → cancelled; never finished → cancelled);
  tokens only when the runner reported usage; metadata `phase`, `phaseType`, `iteration`
  (loop phases), `transient` (true when the failure was classified transient), `timedOut`
  (only when true), `failure` (`contract`/`budget`), raw usage (`cacheReadTokens`, `costUSD`, …).
- script phase (PhaseStarted of type script): kind `tool`, name = phase id, attempt 1.
- gate and approval decisions (GateVerdict): kind `policy`, name = phase id, status ok on
  pass, blocked on a block that halts the run; metadata `verdict`, `combined`, `source`, `round`.
  tftui decision: a block that is followed by an onBlock rework round, or that happens in a
  re-run below the top level, does not halt the run (docs/gates.md §9); it is recorded with status
  `error` and metadata `halted: false`, so `no_external_work_after_block` checks real halts only.
- fail-open substitutions (FallbackUsed): kind `fallback`, name `<id>#fallback`, metadata `reason`.
- calls inside a sub-flow (`parent/child` node paths): a `run` step named by the prefix,
  parented to the root, becomes their parent.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard

from tftui.engine import events as ev
from tftui.lang.values import JSONObject
from tftui.trace.model import (
    FAKE_CLOCK_KEY,
    AgentTrace,
    Metadata,
    StepKind,
    StepStatus,
    TraceColumns,
    dump_columns,
    dump_trace,
)
from tftui.trace.normalize import columns_to_trace, normalize_columns

TRACE_FILE = "trace.json"
RUN_STATUS: dict[str, StepStatus] = {"completed": "ok", "failed": "error", "blocked": "blocked", "paused": "cancelled"}


@dataclass(slots=True)
class _Step:
    sequence: int
    name: str
    kind: StepKind
    status: StepStatus
    parent: int | None = 0
    attempt: int | None = None
    input_tokens: float | int | None = None
    output_tokens: float | int | None = None
    duration_ms: float | None = None
    metadata: Metadata = field(default_factory=dict)
    superseded: bool = False  # recorded before a resume that re-made it: not in the trace

    # TraceStep's names, so TraceColumns.from_steps reads recorder steps directly
    @property
    def id(self) -> str:
        return f"s{self.sequence}"

    @property
    def parent_id(self) -> str | None:
        return None if self.parent is None else f"s{self.parent}"


def _meta_update(step: _Step, changes: Metadata) -> None:
    """Set metadata entries of a model step, in a copy: its dict may be shared (`model_meta`).
    Keys keep their place; new ones go last, in the order given."""
    step.metadata = {**step.metadata, **changes}


def _num(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Recorder:
    def __init__(self, fixture: str, fake_clock: bool) -> None:
        self.fixture = fixture
        self.fake_clock = fake_clock
        self.steps: list[_Step] = []
        self.root: _Step | None = None
        self.phase_types: dict[str, str] = {}
        self.depth: dict[str, int] = {}
        self.open_calls: dict[tuple[str, int], _Step] = {}  # (node path, 0-based attempt) -> step
        self.open_tools: dict[str, _Step] = {}
        self.iterations: dict[str, int] = {}  # loop phase -> calls started in its current run
        self.last_policy: dict[str, _Step] = {}
        self.subflows: dict[str, _Step] = {}
        self.phase_outcome: dict[str, str] = {}  # phase id -> "skipped" | "ran"
        self.run_status: str | None = None
        self.in_flight: set[str] = set()  # phases started and not yet finished
        # (phase id, phase type) -> the metadata its model steps share until one changes (never mutated)
        self.model_meta: dict[tuple[str, str], Metadata] = {}
        # What `trace` made last and what changed since (see `trace`): the steps recorded before
        # a change that are changed again (a call's answer, a gate's rework round), by sequence.
        self.changed: set[int] = set()
        self.superseded = False  # some step left the trace (a resume re-made it)
        self.started: ev.RunStarted | None = None  # the first RunStarted (names the fixture)
        self._last: TraceColumns | None = None

    def new(
        self,
        name: str,
        kind: StepKind,
        status: StepStatus,
        parent: int | None = 0,
        *,
        attempt: int | None = None,
        metadata: Metadata | None = None,
    ) -> _Step:
        step = _Step(len(self.steps), name, kind, status, parent, attempt=attempt, metadata=metadata or {})
        self.steps.append(step)
        return step

    def ensure_root(self, name: str = "run") -> _Step:
        if self.root is None:
            self.root = self.new(name, "run", "cancelled", None)
        return self.root

    def parent_for(self, node_path: str) -> int:
        """The root, or the sub-flow `run` step for `a/b` node paths (nested prefixes nest)."""
        if "/" not in node_path:
            return 0
        parent = 0
        parts = node_path.split("/")[:-1]
        for i in range(len(parts)):
            prefix = "/".join(parts[: i + 1])
            step = self.subflows.get(prefix)
            if step is None:
                step = self.new(prefix, "run", "ok", parent, metadata={"phase": prefix})
                self.subflows[prefix] = step
            parent = step.sequence
        return parent

    # ---- events ---------------------------------------------------------------------------------
    def feed(self, event: ev.Event) -> None:
        handler = _ON.get(type(event))
        if handler is not None:
            handler(self, event)

    def on_run_started(self, e: ev.RunStarted) -> None:
        if self.started is None:
            self.started = e
        if e.resumed and self.in_flight:
            self._supersede(self.in_flight)
        root = self.ensure_root(e.flow_name or "run")
        if root.name == "run" and e.flow_name:
            root.name = e.flow_name
        self.phase_types.update(e.phase_types or {})

    def _supersede(self, phases: set[str]) -> None:
        """A resume runs again every phase that was in flight when the run stopped, and journals
        its calls again (answered ones replayed, the interrupted one re-made as the same attempt):
        the steps recorded for them before the resume leave the trace, so no call counts twice."""
        def of_phase(name: str) -> bool:
            return any(name == p or name.startswith((f"{p}#", f"{p}/")) for p in phases)

        for step in self.steps[1:]:  # never the root
            if of_phase(step.name):
                step.superseded = self.superseded = True
        self.open_calls = {k: v for k, v in self.open_calls.items() if not v.superseded}
        self.open_tools = {k: v for k, v in self.open_tools.items() if not v.superseded}
        self.subflows = {k: v for k, v in self.subflows.items() if not v.superseded}
        self.last_policy = {k: v for k, v in self.last_policy.items() if not v.superseded}
        phases.clear()

    def on_phase_started(self, e: ev.PhaseStarted) -> None:
        self.ensure_root()
        self.in_flight.add(e.phase_id)
        self.phase_types.setdefault(e.phase_id, e.phase_type)
        self.depth[e.phase_id] = e.depth
        self.phase_outcome[e.phase_id] = "ran"
        self.iterations[e.phase_id] = 0
        if e.phase_type == "script":
            meta: Metadata = {"phase": e.phase_id, "phaseType": "script"}
            if e.round:
                meta["round"] = e.round
            self.open_tools[e.phase_id] = self.new(e.phase_id, "tool", "cancelled", attempt=1, metadata=meta)

    def on_phase_skipped(self, e: ev.PhaseSkipped) -> None:
        self.phase_outcome[e.phase_id] = "skipped"
        self.in_flight.discard(e.phase_id)

    def on_attempt_started(self, e: ev.AttemptStarted) -> None:
        if self.root is None:
            self.ensure_root()
        node = e.node_path or e.phase_id
        phase_id = e.phase_id
        phase_type = self.phase_types.get(phase_id, "")
        if phase_type == "loop" and node == phase_id:
            if e.attempt == 0:
                self.iterations[phase_id] = self.iterations.get(phase_id, 0) + 1
            meta: Metadata = {"phase": phase_id, "phaseType": phase_type, "transient": False,
                              "iteration": max(1, self.iterations.get(phase_id, 1))}
        else:
            # One dict for the calls of a phase until one of them changes (`_meta_update` copies
            # it first): a 1,000-item map's steps share it, and trace.json encodes it once.
            shared = self.model_meta.get((phase_id, phase_type))
            if shared is None:
                shared = self.model_meta[(phase_id, phase_type)] = {
                    "phase": phase_id, "phaseType": phase_type, "transient": False}
            meta = shared
        parent = self.parent_for(node) if "/" in node else 0  # first: it may add the sub-flow's step
        steps = self.steps  # (`new`, inlined: two of these per model call)
        # (positional: a keyword call of a class costs ~2x in CPython 3.11, once per model call)
        step = _Step(len(steps), node, "model", "cancelled", parent, e.attempt + 1, None, None, None, meta)
        steps.append(step)
        self.open_calls[(node, e.attempt)] = step

    def on_agent_returned(self, e: ev.AgentReturned) -> None:
        step = self.open_calls.get((e.node_path or e.phase_id, e.attempt))
        if step is None:
            return
        self.changed.add(step.sequence)
        step.status = "error" if e.error is not None or e.exit_code != 0 or e.timed_out else "ok"
        duration = e.duration_ms
        step.duration_ms = duration if type(duration) is float or _num(duration) else None
        usage = e.usage
        if usage is None and not e.timed_out:  # most calls: nothing more to record
            return
        changes: Metadata = {}
        if e.timed_out:
            changes["timedOut"] = True
        if isinstance(usage, dict) and _num(usage.get("input")) and _num(usage.get("output")):
            step.input_tokens = usage["input"]
            step.output_tokens = usage["output"]
            for key, meta_key in (("cacheRead", "cacheReadTokens"), ("cacheWrite", "cacheWriteTokens"),
                                  ("costUSD", "costUSD")):
                if _num(usage.get(key)):
                    changes[meta_key] = usage[key]
        if changes:
            _meta_update(step, changes)

    def on_attempt_failed(self, e: ev.AttemptFailed) -> None:
        step = self.open_calls.get((e.node_path or e.phase_id, e.attempt))
        if step is None:
            return
        self.changed.add(step.sequence)
        step.status = "cancelled" if e.why == "aborted" else "error"
        changes: Metadata = {"transient": bool(e.transient)}
        if e.why == "timeout":
            changes["timedOut"] = True
        if e.why in ("contract", "budget"):
            changes["failure"] = e.why
        _meta_update(step, changes)

    def on_gate_verdict(self, e: ev.GateVerdict) -> None:
        self.ensure_root()
        block = e.verdict == "block"
        meta: Metadata = {"phase": e.phase_id, "verdict": e.verdict, "source": e.source or "", "round": e.round}
        if _num(e.combined):
            meta["combined"] = e.combined
        halts = block and self.depth.get(e.phase_id, 0) == 0
        if block and not halts:
            meta["halted"] = False
        status: StepStatus = "blocked" if halts else ("error" if block else "ok")
        self.last_policy[e.phase_id] = self.new(e.phase_id, "policy", status, metadata=meta)

    def on_on_block_round(self, e: ev.OnBlockRound) -> None:
        # The block that triggered this rework round did not halt the run (docs/gates.md §9).
        step = self.last_policy.get(e.phase_id)
        if step is not None and step.status == "blocked":
            self.changed.add(step.sequence)
            step.status = "error"
            step.metadata["halted"] = False

    def on_fallback_used(self, e: ev.FallbackUsed) -> None:
        self.ensure_root()
        self.new(f"{e.phase_id}#fallback", "fallback", "ok", metadata={"phase": e.phase_id, "reason": e.reason})

    def on_phase_finished(self, e: ev.PhaseFinished) -> None:
        self.in_flight.discard(e.phase_id)
        tool = self.open_tools.pop(e.phase_id, None)
        if tool is not None:
            self.changed.add(tool.sequence)
            tool.status = "ok" if e.status == "done" else "error"
            if (e.extra or {}).get("timedOut"):
                tool.metadata["timedOut"] = True
        sub = self.subflows.get(e.phase_id)
        if sub is not None:
            self.changed.add(sub.sequence)
            sub.status = "ok" if e.status == "done" else "error"

    def on_run_finished(self, e: ev.RunFinished) -> None:
        self.ensure_root()
        self.run_status = e.status

    # ---- result ---------------------------------------------------------------------------------
    def trace(self, *, fake_clock: bool | None = None) -> TraceColumns:
        """The normalized trace of the events so far (callable again as more come); `fake_clock`
        (default: the recorder's) keeps the durations, as `trace_columns_from_events` does.

        Made again only where it changed (the Trace tab asks for it while a 10,000-item map
        runs): the rows of the steps recorded since the last call, of the steps changed since
        (`changed`) and of the root are normalized by `normalize_columns` and put in place of
        theirs in a copy of the last result's columns. That is the whole build's result because
        a recorder's columns are in sequence order with `s<sequence>` ids, where normalization
        takes each row on its own (docs/trace-gates.md §1.2: it drops a row's volatile metadata
        and its duration, and renames or reorders nothing). After a resume re-made some steps
        (`superseded`), every row is numbered again, and a build with another clock than the
        recorder's keeps other durations: the whole trace is built."""
        clock = self.fake_clock if fake_clock is None else fake_clock
        root = self.ensure_root()
        run_status = self.run_status or "interrupted"
        root.status = RUN_STATUS.get(run_status, "cancelled")
        root.metadata = {
            "runStatus": run_status,
            "skippedCount": sum(1 for v in self.phase_outcome.values() if v == "skipped"),
        }
        if clock:
            root.metadata[FAKE_CLOCK_KEY] = True
        steps = self.steps
        if self.superseded:
            kept = [step for step in steps if not step.superseded]
            renumber = {step.sequence: index for index, step in enumerate(kept)}
            steps = [replace(step, sequence=renumber[step.sequence],
                             parent=None if step.parent is None else renumber.get(step.parent, 0)) for step in kept]
        if self.superseded or clock != self.fake_clock:
            if self.superseded:
                self._last = None  # never read again
            return self._normalized(steps, root.status, clock)  # (the root's row is made again next time)
        last, self._last = self._last, None
        changed, self.changed = self.changed, set()
        if last is None:
            self._last = self._normalized(steps, root.status, clock)
            return self._last
        done = len(last)
        redone = sorted({0, *(index for index in changed if index < done)})
        part = self._normalized([*(steps[i] for i in redone), *steps[done:]], root.status, clock)
        columns: dict[str, list[Any]] = {}
        for name in _STEP_COLUMNS:
            rows: list[Any] = getattr(part, name)
            column: list[Any] = getattr(last, name).copy()  # never the last result's own list: it stays as it was
            for at, index in enumerate(redone):
                column[index] = rows[at]
            column.extend(rows[len(redone):])
            columns[name] = column
        self._last = TraceColumns(fixture=self.fixture, status=root.status, **columns)
        return self._last

    def _normalized(self, steps: Sequence[_Step], status: StepStatus, fake_clock: bool) -> TraceColumns:
        """`steps` (in sequence order: all of them, numbered 0, 1, ..., or some rows of them) as
        normalized columns. The ids and parents are `s<sequence>`, taken from one list of those
        texts; the columns are told so (`record_numbering`), so normalization does not format
        every id again to find it out."""
        texts = _ids(steps[-1].sequence + 1)  # the last step has the highest sequence
        ids = texts[: len(steps)] if len(texts) == len(steps) else [texts[s.sequence] for s in steps]
        parents = [s.parent for s in steps]
        if parents.count(None) == 0 or (parents[0] is None and parents.count(None) == 1):
            parent_ids: list[str | None] = [] if parents[0] is not None else [None]
            # (the root, if among them, first: every other step hangs under an earlier one)
            parent_ids += map(texts.__getitem__, parents[len(parent_ids):])  # type: ignore[arg-type]  # no None
        else:
            parent_ids = [None if p is None else texts[p] for p in parents]
        raw = TraceColumns.from_steps(steps, fixture=self.fixture, status=status, ids=ids, parent_ids=parent_ids)
        raw.record_numbering()
        raw.summarize_shared_metadata()  # a phase's calls share one metadata dict (`on_attempt_started`)
        return normalize_columns(raw, fake_clock=fake_clock)


_ID_TEXTS: list[str] = []  # "s0", "s1", ...: the ids of every trace built in this process so far
_ID_TEXTS_KEPT = 1 << 17  # beyond this many steps a trace's ids are made for it alone (memory)
_ID_LOCK = threading.Lock()  # the engine thread and the TUI's Trace tab both build traces


def _ids(n: int) -> list[str]:
    """`[f"s{q}" for q in range(n)]`, from one list of them kept across traces (a run's trace
    is built again on every re-run and by the Trace tab; formatting the ids was a tenth of it)."""
    if n > _ID_TEXTS_KEPT:
        return [f"s{q}" for q in range(n)]
    if len(_ID_TEXTS) < n:
        with _ID_LOCK:
            _ID_TEXTS.extend([f"s{q}" for q in range(len(_ID_TEXTS), n)])
    return _ID_TEXTS[:n]


# TraceColumns' per-step fields (all but fixture and status)
_STEP_COLUMNS = ("ids", "parent_ids", "sequences", "names", "kinds", "statuses", "attempts", "input_tokens",
                 "output_tokens", "durations", "metadata")


# Event class -> its handler (`on_<kind>`), looked up once per class rather than by name per event.
_ON: dict[type, Callable[[_Recorder, Any], None]] = {
    cls: handler for cls in ev.EVENT_TYPES.values() if (handler := getattr(_Recorder, f"on_{cls.kind}", None))
}


def trace_columns_from_events(events: Iterable[ev.Event], fixture: str, *, fake_clock: bool = False) -> TraceColumns:
    """`trace_from_events` as columns, with no model object per step: the cheap form for writing
    trace.json at the end of a run (`write_trace` takes either) and for rules."""
    recorder = _Recorder(fixture, fake_clock)
    for event in events:
        recorder.feed(event)
    return recorder.trace()


def trace_from_events(events: Iterable[ev.Event], fixture: str, *, fake_clock: bool = False) -> AgentTrace:
    """The normalized trace of a run from its events (engine event objects, in emission order).

    `fake_clock=True` when the run used a fake/instant clock: durations are then deterministic
    and kept. Never raises on odd streams (unknown events are ignored, unfinished steps are
    `cancelled`, a stream without RunFinished gives a `cancelled` root with runStatus `interrupted`).
    """
    return columns_to_trace(trace_columns_from_events(events, fixture, fake_clock=fake_clock))


def write_trace(run_dir: str | Path, trace: AgentTrace | TraceColumns, name: str = TRACE_FILE) -> Path:
    """Write `trace.json` beside the journal (one step per line) and return its path.

    Written to a temp file and renamed over the old one, not rewritten in place: a `tftui gate`
    reading the previous file meanwhile (`tftui trace RUN_DIR` rewrites it) reads it whole, not
    half of each. No fsync: the journal is what a power loss must not lose, and `tftui trace
    RUN_DIR` makes this file again from it."""
    path = Path(run_dir) / name
    text = dump_columns(trace) if isinstance(trace, TraceColumns) else dump_trace(trace)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
    os.replace(tmp, path)
    return path


class LiveTrace:
    """The trace of a run built while it goes: `feed` every event as the engine emits it, then
    `write` trace.json beside the journal in one pass at the end (`tftui.run_service` does).

    Why live rather than re-reading events.jsonl at the end: the journal's lines would be
    parsed and decoded again only to be folded the same way, which doubled the end-of-run
    cost of a 1,000-item map. The file is the same either way (docs/trace-gates.md §8): a run
    feeds `journaled` from the journal's `tap`, which hands on each event as its line holds
    it (the redacted version when the journal masked a credential), so the trace says what
    the journal says without a second encoding or a read of the file.

    One trace per run, read from two threads: the engine's feeds it (through the journal's tap)
    while the debugger's Trace tab takes `columns` on the screen's thread (tui/trace_tab.py), so
    the tab shows the trace the run will write rather than folding every event a second time.
    A lock keeps each feed and each build whole."""

    def __init__(self, *, fake_clock: bool = False) -> None:
        self._recorder = _Recorder("", fake_clock)
        self._fake_clock = fake_clock
        self._unreadable = False  # a redacted line that does not decode: the file decides (`write`)
        self._lock = threading.Lock()
        self.events = 0

    def feed(self, event: ev.Event) -> None:
        with self._lock:
            self._recorder.feed(event)
            self.events += 1

    __call__ = feed

    def journaled(self, event: object, redacted: JSONObject | None) -> None:
        """Feed an event as the journal wrote it: `redacted` (its masked JSON) when not None;
        an event given as its JSON (a line a seeded journal copied) is decoded as a reader of
        the file decodes it."""
        if redacted is None:
            # The common case first (every event of a run the journal did not mask): an event
            # class with a handler (a copied line is a dict, which no handler is keyed by).
            handler = _ON.get(type(event))
            if handler is not None:
                with self._lock:
                    handler(self._recorder, event)
                    self.events += 1
                return
        source = redacted if redacted is not None else event if isinstance(event, dict) else None
        if source is not None:
            try:
                event = ev.event_from_json(source)
            except (TypeError, ValueError):
                self._unreadable = True
                return
        if isinstance(event, ev.Event):
            self.feed(event)

    def columns(self, meta: JSONObject, *, fixture: str | None = None) -> TraceColumns:
        """The normalized trace so far (callable again as more events come); the fixture is
        `fixture`, else named as `trace_run_dir` names it."""
        with self._lock:
            started = self._recorder.started
            self._recorder.fixture = fixture or _fixture_name(meta, [started] if started is not None else [])
            return self._recorder.trace()

    def timed_columns(self, fixture: str) -> TraceColumns:
        """The trace so far with its wall-clock durations: what `trace_columns_from_events(events,
        fixture, fake_clock=True)` gives, the form a run's metrics are read from
        (`tftui.trace.distribution.timed_columns`), without keeping the events to fold again."""
        with self._lock:
            self._recorder.fixture = fixture
            return self._recorder.trace(fake_clock=True)

    def write(self, run_dir: str | Path, meta: JSONObject) -> tuple[Path | None, list[str]]:
        """Write `<run_dir>/trace.json` (what `trace_run_dir` would write)."""
        if not self.events or self._unreadable:
            return trace_run_dir(run_dir, fake_clock=self._fake_clock)
        return write_trace(run_dir, self.columns(meta)), []


def _run_dir_events(run_dir: str | Path, fixture: str | None) -> tuple[list[ev.Event] | None, str, list[str]]:
    """The decoded events of `<run_dir>/events.jsonl`, the fixture name to use, and warnings."""
    from tftui.engine.journal import JournalDamaged, load_events

    try:
        events, meta, warnings = load_events(run_dir)
    except JournalDamaged as exc:  # the last message is the reason no trace was made
        return None, "", [str(exc)]
    if not events:
        return None, "", [*warnings, f"{Path(run_dir)}: no events to trace"]
    return events, fixture or _fixture_name(meta, events), warnings


def trace_of_run_dir(run_dir: str | Path, *, fixture: str | None = None,
                     fake_clock: bool = False) -> tuple[AgentTrace | None, list[str]]:
    """The trace of a journaled run (`<run_dir>/events.jsonl`), and warnings. Never raises on bad data."""
    events, name, warnings = _run_dir_events(run_dir, fixture)
    if events is None:
        return None, warnings
    return trace_from_events(events, name, fake_clock=fake_clock), warnings


def trace_run_dir(run_dir: str | Path, *, fixture: str | None = None, fake_clock: bool = False,
                  out: str | Path | None = None) -> tuple[Path | None, list[str]]:
    """Read `<run_dir>/events.jsonl`, write the trace (default `<run_dir>/trace.json`).

    Returns (path written or None, warnings/errors). For the engine: call this at the end of a
    journaled run, or `write_trace(run_dir, trace_columns_from_events(events, fixture))` with live events.
    """
    events, name, warnings = _run_dir_events(run_dir, fixture)
    if events is None:
        return None, warnings
    cols = trace_columns_from_events(events, name, fake_clock=fake_clock)
    if out is None:
        return write_trace(run_dir, cols), warnings
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    return write_trace(target.parent, cols, target.name), warnings


def _fixture_name(meta: JSONObject, events: Sequence[ev.Event]) -> str:
    """Default fixture: the flow file's stem, else the flow name, else `run`."""
    flow_path = meta.get("flowPath")
    flow_name = meta.get("flowName")
    for e in events:
        if isinstance(e, ev.RunStarted):
            flow_path = flow_path or e.flow_path
            flow_name = flow_name or e.flow_name
            break
    return fixture_name(flow_path if isinstance(flow_path, str) else None,
                        flow_name if isinstance(flow_name, str) else None)


def fixture_name(flow_path: str | None, flow_name: str | None) -> str:
    """A trace's default fixture (the one rule for `trace.json`, `tftui trace` and the Trace tab):
    the flow file's stem, else the flow name, else `run`."""
    if flow_path:
        return Path(flow_path).stem
    return flow_name or "run"
