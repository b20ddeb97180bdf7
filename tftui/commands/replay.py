"""`tftui replay RUN_DIR|BUNDLE`: open a recorded run read-only and move through its events."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from tftui.commands.ascii_choice import add_ascii_argument, ascii_wanted

HELP = "open a recorded run (run directory or .tftui.zip bundle) read-only and step through it"
DESCRIPTION = """\
Open a recorded run read-only and move through its events: every view shows the
state of the run at that moment (time travel). The source is a run directory
(.tftui/runs/<id>, or a run id / unique prefix found under the usual run roots) or
a repro bundle (.tftui.zip) written by --export.

Without --print the replay screen of the TUI opens (when this build has it; else
the headless listing is printed). With --print, every event is printed on one
line followed by a summary of the run state after it: the debugger's event log
wording, with the status glyph of each phase start, finish and skip (--ascii, or
a terminal that cannot show Unicode, prints the ASCII glyphs).

--export FILE writes a repro bundle of RUN_DIR: one zip with the flow, the run
meta, the journal (events.jsonl), the normalized trace and every recorded model
answer as a node-path replies file (answers.replies.json), so the run can be
replayed here or re-run offline with `tftui run flow.json --replies …`.

examples:
  tftui replay .tftui/runs/20240501-120000-ab12
  tftui replay .tftui/runs/20240501-120000-ab12 --print
  tftui replay .tftui/runs/20240501-120000-ab12 --export repro.tftui.zip
  tftui replay repro.tftui.zip --print
  tftui replay 20240501-120000-ab12 --ascii      (plain terminals; ui.ascii in config.toml works too)

exit codes:
  0  replayed (or bundle written)
  2  no such run directory or bundle (a run id prefix matching several runs lists
     them), or it cannot be read
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="RUN_DIR|BUNDLE", help="a run directory, run id, or .tftui.zip bundle")
    parser.add_argument("--print", dest="print_", action="store_true", help="step through the events headless")
    parser.add_argument("--export", metavar="FILE", help="write a repro bundle of RUN_DIR to FILE and exit")
    add_ascii_argument(parser)


def _resolve(source: str) -> Path | None:
    """The run directory or bundle `source` names, or None (absent or ambiguous)."""
    return resolve_source(source)[0]


def resolve_source(source: str) -> tuple[Path | None, str | None]:
    """(path, None), or (None, what to tell the user): `source` is a path, a run id, or a run-id
    prefix of at least 4 characters looked up under the usual run roots. A prefix matching
    several runs is reported with the matches (journal.find_run just says None then)."""
    path = Path(source)
    if path.exists():
        return path, None
    from tftui.engine.journal import EVENTS_FILE, META_FILE, default_roots, is_run_id, list_runs

    if not (is_run_id(source) or len(source) >= 4):
        return None, f"no run directory, run id or bundle named {source!r}"
    roots = default_roots()
    for root in roots:  # an exact id wins over longer ids it is a prefix of
        exact = root / source
        if (exact / EVENTS_FILE).exists() or (exact / META_FILE).exists():
            return exact, None
    matches = [e for root in roots for e in list_runs(root) if e.run_dir.name.startswith(source)]
    if len(matches) == 1:
        return matches[0].run_dir, None
    if not matches:
        return None, f"no run directory, run id or bundle named {source!r}"
    lines = [f"run id prefix {source!r} is ambiguous: it matches {len(matches)} runs"]
    for entry in matches:
        flow = entry.meta.get("flowName")
        lines.append(f"  {entry.run_dir}" + (f"  ({flow})" if isinstance(flow, str) and flow else ""))
    lines.append("give more of the run id, or the run directory")
    return None, "\n".join(lines)


def print_replay(source: Path, out: TextIO | None = None, *, ascii: bool = False) -> int:
    """Every event on one line (`#seq kind glyph text`, the debugger's event log wording and
    status glyphs) and the run's state after it. ASCII with `ascii` or on a non-UTF stream."""
    from tftui import present
    from tftui.bundle import open_replay
    from tftui.engine.replay import ReplayError
    from tftui.present.events import describe, state_summary

    out = out or sys.stdout
    try:
        replay = open_replay(source)
    except ReplayError as exc:
        print(f"tftui replay: {exc}", file=sys.stderr)
        return 2
    recording = replay.recording
    for warning in recording.warnings if recording is not None else []:
        print(f"tftui replay: warning: {warning}", file=sys.stderr)
    if not len(replay):
        print(f"tftui replay: {source}: no events to replay", file=sys.stderr)
        return 2
    glyphs = present.ASCII if ascii else present.glyphs_for_stream(out)
    for event in replay.events:
        state = replay.step()
        line = describe(event)
        mark = glyphs.glyph(line.status) if line.status else " "
        print(glyphs.fold(f"#{event.seq:<4} {event.kind:<18} {mark} {line.text}  | {state_summary(state)}"), file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    source, problem = resolve_source(args.source)
    if source is None:
        print(f"tftui replay: {problem}", file=sys.stderr)
        return 2
    if args.export:
        from tftui.bundle import BundleError, export_bundle

        if not source.is_dir():
            print("tftui replay: --export needs a run directory (the source is already a bundle)", file=sys.stderr)
            return 2
        try:
            path, warnings = export_bundle(source, args.export)
        except (BundleError, OSError) as exc:
            print(f"tftui replay: cannot write the bundle: {exc}", file=sys.stderr)
            return 2
        for warning in warnings:
            print(f"tftui replay: warning: {warning}", file=sys.stderr)
        print(path)
        return 0
    if not args.print_:
        from tftui.config import load_config
        from tftui.tui.replay_app import run_replay  # Textual loads only for the screen, not for --print

        ui = load_config().get("ui") or {}  # ui.ascii / ui.animations apply to the replay screen too
        result = run_replay(
            source, ascii=ascii_wanted(args.ascii, ui=ui), animations=bool(ui.get("animations", True))
        )
        return result if isinstance(result, int) else 0
    return print_replay(source, ascii=ascii_wanted(args.ascii))
