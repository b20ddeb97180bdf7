"""Run journals for TUI runs: the same `<root>/<run-id>/events.jsonl` + `trace.json` as `tftui run`.

Every run started in the TUI gets its own run directory, so it shows up in `tftui runs`
and can be traced, gated, replayed, resumed and exported like a headless run:

- a fresh run (`c`/`n` when idle, a restart `R`): a new, empty journal;
- a partial re-run (`u` stale phases, `r` re-run a gate): also a new journal, seeded with
  the previous run's journal lines and then the re-run's own events. Why not append to the
  previous journal: the flow file may have changed in between (that is what made phases
  stale), and a journal's `flow.json` must describe the run it holds; `tftui run --resume`
  refuses a journal whose flow changed for the same reason. Why seed: the re-run keeps
  the earlier phases' outputs without calling them again, so its journal must contain
  them for a fold / replay / resume of that run directory alone to see the whole state.
  The previous run directory is left as it was (the record of the earlier version).

Everything here runs in the run worker's thread (file I/O never blocks the UI) and never
raises: a journal that cannot be created leaves the run unjournaled with a note.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tftui.engine import journal as jr
from tftui.tui.runctl import GIL_SWITCH_INTERVAL_S


@dataclass
class OpenedJournal:
    journal: Any | None  # jr.Journal, None when journaling is off or failed
    notes: list[str] = field(default_factory=list)
    # Every event the journal holds (the seed's, decoded, then the run's): trace.json is built
    # from these rather than by re-reading the journal (saves ~30 ms of GIL-holding parsing).
    events: list[Any] = field(default_factory=list)
    fixture: str = "run"

    @property
    def run_dir(self) -> Path | None:
        return self.journal.run_dir if self.journal is not None else None

    @property
    def run_id(self) -> str | None:
        return self.journal.run_id if self.journal is not None else None


def open_journal(
    root: Path | None,
    *,
    flow_name: str,
    flow_path: str | None,
    flow_text: str | None,
    args: dict[str, Any],
    seed_from: Path | None = None,
) -> OpenedJournal:
    """A new journal under `root` (None: journaling off), seeded with `seed_from`'s events."""
    if root is None:
        return OpenedJournal(None)
    try:
        journal = jr.Journal.create(root, flow_name=flow_name, flow_path=flow_path, flow_text=flow_text, args=args)
    except (OSError, jr.JournalBusy) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        return OpenedJournal(
            None, [f"this run is not journaled: cannot create a run directory under {root}: {reason}"]
        )
    opened = OpenedJournal(journal, fixture=Path(flow_path).stem if flow_path else flow_name or "run")
    if seed_from is not None:
        opened.notes.extend(_seed(opened, seed_from))
    else:
        opened.notes.append(f"journal: {journal.run_dir} (tftui runs lists it)")
    return opened


def _seed(opened: OpenedJournal, previous: Path) -> list[str]:
    """Copy the previous run's journal lines (torn or unreadable lines are dropped, with a note)."""
    journal = opened.journal
    try:
        rows, _meta, warnings = jr.read_journal(previous)
    except OSError as exc:
        return [f"journal {journal.run_id}: the previous run's events could not be read ({exc})"]
    try:
        for row in rows:
            journal.append(row)
        journal.sync()
        # `tftui runs` counts only what this run spent: the copied events are the earlier run's.
        journal.update_meta(seededFrom=previous.name, seededEvents=len(rows))
    except OSError as exc:
        return [f"journal {journal.run_id}: copying the previous run's events failed ({exc})"]
    events, decode_warnings = jr.decode_events(rows)
    opened.events.extend(events)
    notes = [f"journal {journal.run_id} continues run {previous.name} ({len(rows)} earlier events copied)"]
    notes.extend(f"journal {previous.name}: {w}" for w in [*warnings, *decode_warnings])
    return notes


def close_journal(opened: OpenedJournal) -> list[str]:
    """Close the journal and write `trace.json` beside it. Returns notes (never raises)."""
    journal = opened.journal
    if journal is None:
        return []
    notes: list[str] = []
    try:
        journal.close()
    except OSError as exc:
        notes.append(f"journal {journal.run_id}: closing failed ({exc})")
    from tftui.trace.record import trace_columns_from_events, write_trace

    try:
        write_trace(journal.run_dir, trace_columns_from_events(opened.events, opened.fixture))
    except Exception as exc:  # a trace problem must never turn a finished run into a crash
        notes.append(f"trace: could not write trace.json: {exc}")
    return notes


async def journaled_run(
    ctl: Any,
    flow: Any,
    on_event: Callable[[Any], None],
    *,
    root: Path | None,
    flow_text: str | None,
    previous_run_dir: Path | None,
    step_first: bool,
    resume: Any,
    on_open: Callable[[Path], None],
    note: Callable[[str], None],
) -> Any:
    """`ctl.run(...)` with a journal around it (run worker thread). Exceptions propagate after
    the journal is closed and its trace written, so a cancelled run is still journaled (paused)."""
    opened = open_journal(
        root,
        flow_name=flow.name,
        flow_path=ctl.flow_path,
        flow_text=flow_text,
        args=ctl.args,
        seed_from=previous_run_dir if resume is not None else None,
    )
    if opened.run_dir is not None:
        on_open(opened.run_dir)
    for text in opened.notes:
        note(text)
    if opened.journal is not None:
        kept, forward = opened.events, on_event

        def on_event(event: Any) -> None:
            kept.append(event)
            forward(event)

    try:
        return await ctl.run(
            flow,
            on_event,
            step_first=step_first,
            resume_state=resume,
            journal=opened.journal,
            run_id=opened.run_id,
        )
    finally:
        # Building trace.json takes ~45 ms for a 1,000-item map: with the default 5 ms GIL
        # switch interval the UI thread would wait up to 5 ms after each of its system calls
        # meanwhile, so keep the run's short interval (see runctl).
        previous = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        try:
            for text in close_journal(opened):
                note(text)
        finally:
            sys.setswitchinterval(previous)
