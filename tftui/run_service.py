"""One journaled-run service: every run `tftui run`, `tftui run --resume`, `--from` and the
debugger make goes through here, so a run directory means the same thing whoever wrote it.

A run is prepared as a `RunSession` and then executed (`execute`):

- `start`: a fresh run, in a new, empty journal under `root` (None: not journaled). A runner
  that can `rewind` starts over: a replies file gives the first run's answers again, and
  the debugger's `--from` cassette (`SessionCassette`) replays its recording from the start,
  so a run from scratch of an unchanged flow costs zero tokens each time.
- `seed`: a partial re-run in the debugger (`u` stale phases, `r` a gate, an applied guard).
  It continues the previous run's state with the phases the engine resets (`PhasesReset`),
  in a NEW journal seeded with the previous run's journal lines, then the reset, then the
  re-run's own events. Why not append to the previous journal: the flow file may have
  changed in between (that is what made phases stale), and a journal's `flow.json` must
  describe the run it holds (`--resume` refuses a journal whose flow changed for the same
  reason). Why seed: the re-run keeps earlier outputs without calling them again, so its
  journal must hold them for a fold / replay / resume of that run directory alone. The
  previous run directory is left as it was (the record of the earlier version).
- `read_recorded` + `resume`: `tftui run --resume`, appending to the interrupted run's own
  journal; the engine's `plan_resume` decides what runs again and which calls are replayed.

`execute` runs the engine with the session's journal and, whatever happens (a cancelled run
is journaled as paused), closes the journal and writes `trace.json` beside it (what `tftui
gate` and bundles read: redacted like the journal). A fresh run's trace is built as the
journal writes each event (`Journal.tap`, `LiveTrace.journaled`), a seeded one's from the
copied lines on; a resumed one, whose journal also holds earlier events, from the journal on disk.

No Textual, no screen text: what happened is returned as `Note`s, which each front end words.
Nothing here raises on a journal it cannot write, except `resume` (`JournalBusy`: the run is
still being written by another process, which the caller must refuse).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from tftui.agents.base import AgentRunner, Usage
from tftui.agents.cassette import CassetteRunner
from tftui.engine import journal as jr
from tftui.engine.clock import Clock
from tftui.engine.collector import holding_full_collections
from tftui.engine.debugger import Debugger
from tftui.engine.events import Event
from tftui.engine.resume import RerunReason, never_repeated, plan_resume, reset_phases
from tftui.engine.run import RunResult, run_flow
from tftui.engine.state import PhaseStatus, RunState, apply, fold, progress
from tftui.flow.model import Flow
from tftui.redaction import is_masked

if TYPE_CHECKING:
    from tftui.trace.record import LiveTrace

__all__ = [
    "JournalBusy",
    "Note",
    "Recorded",
    "ResumeInfo",
    "RunSession",
    "SessionCassette",
    "execute",
    "read_recorded",
    "reopen",
    "resume",
    "seed",
    "start",
]

JournalBusy = jr.JournalBusy

NoteKind = Literal[
    "journal-opened",  # path: the new run directory
    "not-journaled",  # path: the runs root that refused; detail: why
    "seeded",  # run_id: the new run, previous: the run it continues, count: events copied
    "seed-unreadable",  # run_id, detail
    "seed-copy-failed",  # run_id, detail
    "previous-journal",  # previous: the run whose journal was read, detail: its warning
    "close-failed",  # run_id, detail
    "trace",  # detail: a problem writing or building trace.json
]


@dataclass(frozen=True)
class Note:
    """Something the service did or could not do that a front end should say."""

    kind: NoteKind
    detail: str = ""
    path: Path | None = None
    run_id: str = ""
    previous: str = ""
    count: int = 0


@runtime_checkable
class Rewindable(Protocol):
    """A runner that can start its recording over (see `SessionCassette`)."""

    def rewind(self) -> None: ...


class SessionCassette(CassetteRunner):
    """`tftui FLOW --from SRC`: a CassetteRunner whose recording starts over with each run
    from scratch (`start`); partial re-runs (`seed`) continue on the tape, then go live."""

    def rewind(self) -> None:
        """Back to the start of every tape; the replayed/live counts restart with it."""
        self._used.clear()
        self.replayed = 0
        self.live = 0
        self.log.clear()
        self.saved_usage = Usage()
        self.unrecorded = 0


@dataclass
class ResumeInfo:
    """What `resume` found in the interrupted run (for the front end to report)."""

    finished: int  # top-level phases already finished
    total: int
    side_effects_in_flight: list[str] = field(default_factory=list)  # never_repeated: failed, not repeated
    rerun: list[tuple[str, int]] = field(default_factory=list)  # (phase, recorded calls replayed) run again
    answered: dict[str, int] = field(default_factory=dict)  # per node path: answers so far


@dataclass
class RunSession:
    """One prepared run: what to run, from which state, into which journal."""

    flow: Flow
    args: dict[str, Any]
    flow_path: str | None  # as the run records it (RunStarted.flow_path)
    journal: jr.Journal | None = None
    resume_state: RunState | None = None
    run_id: str | None = None
    # Events that belong before the run's own (a partial re-run's PhasesReset): already folded
    # into `resume_state`; `execute` journals them and hands them to `on_event` first.
    prelude: list[Event] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    resumed: ResumeInfo | None = None
    replay: list[Any] = field(default_factory=list)  # resume: recorded calls answered from the journal
    answers: CassetteRunner | None = None  # resume: the runner that answered them (see runner_for)
    resume_dir: Path | None = None  # resume: the run directory `reopen` appends to
    live_trace: LiveTrace | None = None  # the run's trace, fed as the journal writes (`start`, `seed`)

    @property
    def run_dir(self) -> Path | None:
        if self.journal is not None:
            return self.journal.run_dir
        return self.resume_dir

    def runner_for(self, runner: AgentRunner) -> AgentRunner:
        """The runner the run should use: for a resume, `runner` continues its replies where the
        interrupted run was, behind the calls replayed from the journal."""
        info = self.resumed
        skip = getattr(runner, "skip_answered", None)
        if info is not None and info.answered and callable(skip):
            skip(info.answered)  # a replies file continues where the interrupted run was
        if self.replay:
            self.answers = CassetteRunner(self.replay, runner, resumed=True)  # counted once: AgentResult.resumed
            return self.answers
        return runner


def _create(
    root: Path | None, flow: Flow, flow_path: str | None, flow_text: str | None, args: dict[str, Any]
) -> tuple[jr.Journal | None, list[Note]]:
    if root is None:
        return None, []
    try:
        journal = jr.Journal.create(root, flow_name=flow.name, flow_path=flow_path, flow_text=flow_text, args=args)
    except (OSError, jr.JournalBusy) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        return None, [Note("not-journaled", detail=reason, path=root)]
    return journal, []


def start(
    flow: Flow,
    *,
    args: dict[str, Any],
    flow_path: str | None,
    flow_text: str | None,
    root: Path | None,
    runner: object = None,
) -> RunSession:
    """A fresh run, journaled under `root` (None: not journaled)."""
    if isinstance(runner, Rewindable):
        runner.rewind()  # a run from scratch replays the recording from its start
    journal, notes = _create(root, flow, flow_path, flow_text, args)
    session = RunSession(flow=flow, args=args, flow_path=flow_path, journal=journal, notes=notes)
    if journal is not None:
        session.run_id = journal.run_id
        notes.append(Note("journal-opened", path=journal.run_dir, run_id=journal.run_id))
        # A fresh run's trace is built from its events as the journal writes each one (the one
        # encoding, redaction included): one pass at the end, no re-reading of events.jsonl.
        # Made here, before the run, so a front end can show it as it grows (the Trace tab).
        from tftui.trace.record import LiveTrace

        session.live_trace = LiveTrace()
        journal.tap = session.live_trace.journaled
    return session


def seed(
    flow: Flow,
    state: RunState,
    phase_ids: list[str],
    reason: RerunReason,
    *,
    args: dict[str, Any],
    flow_path: str | None,
    flow_text: str | None,
    root: Path | None,
    previous: Path | None,
    clock: Clock | None = None,
) -> RunSession:
    """A partial re-run: `state` (the previous run's) continued with `phase_ids` reset, in a new
    journal under `root` seeded with the journal of `previous`. The run continues `state` in
    place: pass a copy if you keep yours."""
    reset = reset_phases(flow, state, phase_ids, reason)
    resume_state = state
    reset.seq = resume_state.last_seq + 1
    reset.ts = (clock or Clock()).time()
    apply(resume_state, reset)
    resume_state.status = "running"
    journal, notes = _create(root, flow, flow_path, flow_text, args)
    session = RunSession(
        flow=flow, args=args, flow_path=flow_path, journal=journal, resume_state=resume_state,
        prelude=[reset], notes=notes,
    )
    if journal is None:
        return session
    session.run_id = journal.run_id
    # The trace is built as the journal writes each line, the copied ones included (decoded as
    # a reader of the file decodes them), so the end of the re-run does not read the file back.
    from tftui.trace.record import LiveTrace

    session.live_trace = LiveTrace()
    journal.tap = session.live_trace.journaled
    if previous is None:
        notes.append(Note("journal-opened", path=journal.run_dir, run_id=journal.run_id))
    else:
        notes.extend(_copy_journal(journal, previous))
        if notes and notes[-1].kind == "seed-copy-failed":  # the file holds part of the copy: it decides
            session.live_trace = journal.tap = None
    return session


def _copy_journal(journal: jr.Journal, previous: Path) -> list[Note]:
    """Copy the previous run's journal lines (torn or unreadable lines are dropped, with a note)."""
    try:
        rows, texts, _meta, warnings = jr.read_journal_lines(previous)
    except OSError as exc:
        return [Note("seed-unreadable", detail=str(exc), run_id=journal.run_id)]
    try:
        for row, text in zip(rows, texts, strict=True):
            journal.copy_line(row, text)
        journal.sync()
        # `tftui runs` counts only what this run spent: the copied events are the earlier run's.
        journal.update_meta(seededFrom=previous.name, seededEvents=len(rows))
    except OSError as exc:
        return [Note("seed-copy-failed", detail=str(exc), run_id=journal.run_id)]
    notes = [Note("seeded", run_id=journal.run_id, previous=previous.name, count=len(rows))]
    notes += [Note("previous-journal", detail=w, previous=previous.name) for w in warnings]
    return notes


# ── --resume ───────────────────────────────────────────────────────────────────────────


_BOM = "\ufeff".encode()  # a UTF-8 byte order mark


@dataclass
class Recorded:
    """What an interrupted run's journal holds."""

    run_dir: Path
    meta: dict[str, Any]
    events: list[Event]
    state: RunState
    warnings: list[str]  # unreadable lines, undecodable events

    @property
    def run_id(self) -> str:
        return str(self.meta.get("runId") or self.state.run_id or self.run_dir.name)

    @property
    def flow_path(self) -> Path:
        """The flow file the run was started with (its copy in the run directory if unknown)."""
        recorded = self.meta.get("flowPath")
        return Path(recorded) if recorded else self.run_dir / jr.FLOW_FILE

    def flow_changed(self, flow_path: Path) -> bool:
        """True when `flow_path` differs from the copy the run directory keeps of its flow. A
        leading UTF-8 BOM is not part of the flow (the loader drops it, `flow.load`): the
        debugger's copy is the text it loaded, without one, so a BOM alone is no change."""
        copy_path = self.run_dir / jr.FLOW_FILE
        if not copy_path.exists():
            return False
        return copy_path.read_bytes().removeprefix(_BOM) != flow_path.read_bytes().removeprefix(_BOM)

    def args(self, given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The run's args with `given` on top, and the names whose value the journal redacted
        (they must be given again: the run cannot go on with a masked value)."""
        recorded = dict(self.state.args or self.meta.get("args") or {})
        merged = {**recorded, **given}
        return merged, [k for k, v in merged.items() if is_masked(v) and k not in given]


def read_recorded(run_dir: Path) -> Recorded:
    """Read and fold a run's journal. Raises JournalDamaged when events.jsonl is missing or a
    line in it cannot be read as an event (a torn last line is only a warning: docs/inputs.md §3)."""
    events, meta, warnings = jr.load_events(run_dir)
    return Recorded(run_dir=run_dir, meta=meta, events=events, state=fold(events), warnings=warnings)


def resume(recorded: Recorded, flow: Flow, *, args: dict[str, Any], flow_path: str) -> RunSession:
    """Continue an interrupted run in its own journal. Raises JournalBusy when another process
    still writes it."""
    plan = plan_resume(recorded.events, flow.phases, folded=recorded.state)  # rolls back in-flight rework rounds
    state = plan.state
    finished, total = progress(state, [p.id for p in flow.phases])
    info = ResumeInfo(
        finished=finished,
        total=total,
        answered=plan.answered,
    )
    for phase in flow.phases:
        st = state.phases.get(phase.id)
        if st is not None and st.status == PhaseStatus.RUNNING and never_repeated(phase):
            info.side_effects_in_flight.append(phase.id)
    for pid in plan.rerun:
        info.rerun.append((pid, sum(1 for call in plan.replay if call.phase_id.split("/")[0] == pid)))
    session = RunSession(
        flow=flow, args=args, flow_path=flow_path, resume_state=state, run_id=recorded.run_id,
        resumed=info, replay=plan.replay,
    )
    session.resume_dir = recorded.run_dir
    return session


def reopen(session: RunSession) -> None:
    """Open a resumed session's journal for appending (cuts a torn last line). Raises JournalBusy
    when another process still writes it. Called once the front end is ready to run."""
    if session.resume_dir is not None and session.journal is None:
        session.journal = jr.Journal.reopen(session.resume_dir)


# ── running ────────────────────────────────────────────────────────────────────────────


async def execute(
    session: RunSession,
    *,
    runner: AgentRunner,
    on_event: Callable[[Event], None] | None = None,
    debugger: Debugger | None = None,
    approver: Callable[[Any], Any] | None = None,
    clock: Clock | None = None,
    cwd_bridge: bool = False,
    state: RunState | None = None,
) -> RunResult:
    """Run the session's flow (`cwd_bridge`: allow `cwd: "{args.X}"`, see tftui.engine.cwd_bridge).
    `state`: the RunState a fresh run folds its events into (a resumed or seeded one continues
    `session.resume_state`, and `state` must be that one or None), so a front end that shows
    the run reads the run's own fold instead of folding every event again (`tftui run`'s
    progress lines).
    Exceptions (a cancelled run) propagate after the journal is
    closed and its trace written, so an interrupted run is still journaled (paused)."""
    journal = session.journal
    for event in session.prelude:
        if journal is not None:
            journal.append(event)
        if on_event is not None:
            on_event(event)
    # A fresh run's trace is fed from `start` on, a seeded one's from its copy on (`seed`). A
    # resumed journal also holds earlier events, so its trace is read from the file (`close`).
    # Held through closing the journal and writing trace.json too (docs/scheduling.md §8.2).
    with holding_full_collections():
        try:
            return await run_flow(
                session.flow,
                args=session.args,
                runner=runner,
                debugger=debugger,
                journal=journal,
                clock=clock,
                on_event=on_event,
                run_id=session.run_id,
                resume_state=_run_state(session, state),
                flow_path=session.flow_path,
                approver=approver,
                cwd_bridge=cwd_bridge,
            )
        finally:
            session.notes.extend(close(session))


def _run_state(session: RunSession, state: RunState | None) -> RunState | None:
    """What the engine folds into: the resumed state, else `state` (empty: a fresh run)."""
    if session.resume_state is not None:
        if state is not None and state is not session.resume_state:
            raise ValueError("a resumed or seeded run folds into its resume_state")
        return session.resume_state
    if state is not None and (state.phases or state.event_count):
        raise ValueError("a fresh run's state must be empty")
    return state


def close(session: RunSession) -> list[Note]:
    """Close the session's journal and write `trace.json` beside it (never raises)."""
    journal = session.journal
    if journal is None:
        return []
    notes: list[Note] = []
    try:
        journal.close()
    except OSError as exc:
        notes.append(Note("close-failed", detail=str(exc), run_id=journal.run_id))
    from tftui.trace.record import trace_run_dir

    live, session.live_trace = session.live_trace, None
    journal.tap = None  # the trace goes with this call: the session keeps its journal until the next run
    try:
        if live is not None:
            _path, warnings = live.write(journal.run_dir, journal.meta)
        else:
            _path, warnings = trace_run_dir(journal.run_dir)
    except Exception as exc:  # a trace problem must never turn a finished run into a crash
        warnings = [f"could not write trace.json: {exc}"]
    notes += [Note("trace", detail=w, run_id=journal.run_id) for w in warnings]
    return notes
