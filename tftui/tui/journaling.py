"""Run journals for TUI runs, through the one run service (`tftui.run_service`): the same
`<root>/<run-id>/events.jsonl` + `trace.json` as `tftui run`, so every run started in the
debugger shows up in `tftui runs` and can be traced, gated, replayed, resumed and exported.

A fresh run (`c`/`n` when idle, a restart `R`) gets a new, empty journal; a partial re-run
(`u`, `r`, an applied guard) a new journal seeded with the previous run's (see run_service).
This module only chooses which, runs it, and words the service's notes for the event log.

Everything here runs in the run worker's thread (file I/O never blocks the UI) and never
raises for a journal: one that cannot be created leaves the run unjournaled, with a note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tftui.engine.resume import RerunReason
from tftui.engine.state import RunState
from tftui.tui.runctl import RunController

if TYPE_CHECKING:  # the run service and the engine load after first paint (main_screen warms them up)
    from tftui import run_service
    from tftui.engine.events import Event
    from tftui.engine.run import RunResult
    from tftui.flow.model import Flow
    from tftui.trace.record import LiveTrace


@dataclass
class Rerun:
    """A partial re-run: the engine resets `phase_ids` in `state`, a copy of the debugger's state
    (engine.state.copy_state, taken on the UI thread, which folds on into its own) that the run
    continues on the engine thread."""

    phase_ids: list[str]
    reason: RerunReason
    state: RunState = field(repr=False)


def note_text(note: run_service.Note) -> str:
    """The event-log line for a run-service note."""
    match note.kind:
        case "journal-opened":
            return f"journal: {note.path} (tftui runs lists it)"
        case "not-journaled":
            return f"this run is not journaled: cannot create a run directory under {note.path}: {note.detail}"
        case "seeded":
            return f"journal {note.run_id} continues run {note.previous} ({note.count} earlier events copied)"
        case "seed-unreadable":
            return f"journal {note.run_id}: the previous run's events could not be read ({note.detail})"
        case "seed-copy-failed":
            return f"journal {note.run_id}: copying the previous run's events failed ({note.detail})"
        case "previous-journal":
            return f"journal {note.previous}: {note.detail}"
        case "close-failed":
            return f"journal {note.run_id}: closing failed ({note.detail})"
        case "trace":
            return f"trace: {note.detail}"
    return note.detail


async def journaled_run(
    ctl: RunController,
    flow: Flow,
    on_event: Callable[[Event], None],
    *,
    root: Path | None,
    flow_text: str | None,
    previous_run_dir: Path | None,
    step_first: bool,
    rerun: Rerun | None,
    on_open: Callable[[Path], None],
    note: Callable[[str], None],
    on_trace: Callable[[LiveTrace | None], None] | None = None,
) -> RunResult:
    """Prepare the run's session (fresh or seeded), run it under `ctl`, and report the notes.
    `on_trace` learns, before the run's first event, the trace the journal builds as it goes
    (None: the run has none, not journaled). Exceptions propagate after the journal is closed
    and its trace written."""
    from tftui import run_service

    if rerun is None:
        session = run_service.start(
            flow, args=ctl.args, flow_path=ctl.flow_path, flow_text=flow_text, root=root, runner=ctl.runner
        )
    else:
        session = run_service.seed(
            flow, rerun.state, rerun.phase_ids, rerun.reason, args=ctl.args, flow_path=ctl.flow_path,
            flow_text=flow_text, root=root, previous=previous_run_dir, clock=ctl.clock,
        )
    if session.run_dir is not None:
        on_open(session.run_dir)
    if on_trace is not None:
        on_trace(session.live_trace)
    shown = len(session.notes)
    for item in session.notes:
        note(note_text(item))
    try:
        return await ctl.run(session, on_event, step_first=step_first)
    finally:
        for item in session.notes[shown:]:
            note(note_text(item))
