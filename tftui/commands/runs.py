"""`tftui runs`: list the runs journaled under `.tftui/runs`."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from tftui import present
from tftui.commands.ascii_choice import add_ascii_argument, output_glyphs
from tftui.present.terminal import term_line, write_raw

HELP = "list recorded runs (id, flow, start, status, phases, attempts, tokens, cost)"

DESCRIPTION = """\
List the runs recorded by `tftui run` (oldest first). Runs live in
.tftui/runs/ beside the flow file; by default this lists ./.tftui/runs and
./*/.tftui/runs (so sample_flows/ runs show up from the repository root), or
$TFTUI_RUNS_DIR when set. Give a flow file to list its runs, or a directory to
list the runs recorded beside the flows in it.

Status is the run's own (completed, failed, blocked), "paused" after Ctrl+C or
SIGTERM, "interrupted" when the journal has no RunFinished (the process was
killed), or "running" while the process that writes it is still alive on this
host. Paused and interrupted runs continue with `tftui run FLOW --resume RUN_ID`.

Phases are the n/m the debugger's header shows for the run: how many reached an end
(done, blocked, failed or skipped) of all, then how many ended in each status other
than done, with the glyphs the debugger and `tftui run` use:
{legend}.

Attempts are the model calls each run sent to its runner, as `tftui run` counts
them (a call a resume answered from the journal counts once). Tokens and cost are
what each run spent. A re-run started in the TUI (`u` after an edit, `r` on a
gate) gets a line of its own: its journal starts with the earlier run's events so
it is complete on its own, but those calls and tokens are counted on the earlier
run's line only (--json also gives `tokens_with_seed`).

--json prints the same as data: numbers, null for what is not known (a cost
without prices, tokens a CLI agent did not report); the keys are listed in
docs/inputs.md §6.

examples:
  tftui runs
  tftui runs sample_flows/map_reduce.json
  tftui runs --runs-dir /tmp/ci-runs --json

exit codes: 0 listed (even if empty), 2 bad arguments
""".format(legend=", ".join(f"{present.glyph(s)} {present.status_word(s)}" for s in ("failed", "skipped", "blocked", "pending")))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target", nargs="?", metavar="FLOW_OR_DIR", help="a flow file or a directory of flows"
    )
    parser.add_argument("--runs-dir", metavar="DIR", help="the runs directory itself (env TFTUI_RUNS_DIR)")
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    add_ascii_argument(parser)


def _pid_alive(meta: dict[str, Any]) -> bool:
    pid = meta.get("pid")
    if not isinstance(pid, int) or meta.get("host") != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def summarize(run_dir: Path) -> dict[str, Any]:
    """One run's listing entry, folded from its journal. Raises JournalDamaged for a journal that
    cannot be read as a run (docs/inputs.md §3)."""
    from tftui.engine.events import RunFinished
    from tftui.engine.journal import load_events
    from tftui.engine.state import fold

    events, meta, warnings = load_events(run_dir)
    state = fold(events)
    finished = any(isinstance(event, RunFinished) for event in events)
    if finished:
        status = state.status
    elif _pid_alive(meta):
        status = "running"
    else:
        status = "interrupted"
    # the phases the n/m counts (top level and grafted children: present.counted_phase_ids)
    statuses = [present.display_status(state.phases[pid]) for pid in present.counted_phase_ids(state)]
    usage = state.usage
    total_tokens = int(usage.get("input", 0) or 0) + int(usage.get("output", 0) or 0)
    total_cost = float(usage.get("cost", 0.0) or 0.0)
    # A TUI re-run (`u`, `r`) starts its journal with the earlier run's events (seeded): those
    # tokens were spent by that run, listed on its own line; count them once.
    seeded = meta.get("seededEvents")
    tokens, cost = total_tokens, total_cost
    unpriced, untracked = present.unpriced_calls(usage), present.untracked_calls(usage)
    calls = present.run_calls(state)
    settled, counted = present.progress(state)
    if isinstance(seeded, int) and 0 < seeded <= len(events):
        seeded_state = fold(events[:seeded])
        before = seeded_state.usage
        tokens -= int(before.get("input", 0) or 0) + int(before.get("output", 0) or 0)
        cost -= float(before.get("cost", 0.0) or 0.0)
        unpriced -= present.unpriced_calls(before)
        untracked -= present.untracked_calls(before)
        calls -= present.run_calls(seeded_state)
    # this run's own spend, as a usage record the formatters read (unknown is not 0)
    spend = {"input": tokens, "output": 0, "cost": cost, "unpriced": unpriced, "untracked": untracked}
    return {
        "run_id": str(meta.get("runId") or run_dir.name),
        "flow": meta.get("flowName") or state.flow_name or "?",
        "flow_path": meta.get("flowPath") or state.flow_path,
        "started": meta.get("started"),
        "status": status,
        "phases_done": settled,  # the n of the header's n/m (present.progress)
        "phases_total": counted,
        "phase_statuses": {s: statuses.count(s) for s in present.DISPLAY_STATUSES if s in statuses},
        "attempts": calls,  # the model calls this run sent, as `tftui run` counts them
        # data, not display text (the schema is documented in docs/inputs.md §6)
        "tokens": tokens if present.tokens_known(spend) else None,  # null: no call reported its tokens
        "cost_usd": present.cost_json(spend),  # null: some call's cost is unknown
        "cost_usd_at_least": round(cost, 6),  # what the priced calls cost (= cost_usd when all are priced)
        "unpriced_calls": unpriced,  # calls whose cost is unknown
        "untracked_calls": untracked,  # calls that reported no tokens (a CLI agent): tokens is a lower bound
        "seeded_from": meta.get("seededFrom"),  # the earlier run this re-run continues (its tokens are not counted)
        "tokens_with_seed": total_tokens if present.tokens_known(usage) else None,
        "run_dir": str(run_dir),
        "warnings": warnings,
    }


def _roots(args: argparse.Namespace) -> tuple[list[Path], Path | None]:
    """(runs directories to list, flow file to filter by or None)."""
    from tftui.engine.journal import RUNS_SUBDIR, default_roots, runs_root

    target = Path(args.target) if args.target else None
    if args.runs_dir:
        return [Path(args.runs_dir)], target if target is not None and target.is_file() else None
    if target is not None and target.is_dir():
        return [target / RUNS_SUBDIR], None
    if target is not None:
        return [runs_root(target)], target
    return default_roots(), None


def _fmt_started(started: Any) -> str:
    if not isinstance(started, str):
        return "?"
    return started.replace("T", " ")[:19]


def _phases_cell(entry: dict[str, Any], glyphs: present.Glyphs) -> str:
    """`5/5 ■1 ⊘2`: the n/m of the debugger's header (present.progress), then how many ended in each
    status other than done."""
    counts = entry.get("phase_statuses") or {}
    rest = [f"{glyphs.glyph(s)}{n}" for s, n in counts.items() if s != "done" and n]
    return " ".join([f"{entry['phases_done']}/{entry['phases_total']}", *rest])


def _status_cell(status: str, glyphs: present.Glyphs) -> str:
    return f"{glyphs.glyph(status)} {present.status_word(status)}"


HEADER = ("RUN", "FLOW", "STARTED (UTC)", "STATUS", "PHASES", "ATTEMPTS", "TOKENS", "COST")


def _spend(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry's spend as the usage record the formatters read (`summarize` gives the data)."""
    cost = entry.get("cost_usd_at_least", entry.get("cost_usd"))
    return {"input": entry.get("tokens") or 0, "output": 0, "cost": cost or 0.0,
            "unpriced": entry.get("unpriced_calls", 0), "untracked": entry.get("untracked_calls", 0)}


def table_rows(entries: list[dict[str, Any]], glyphs: present.Glyphs) -> list[tuple[str, ...]]:
    """The listing's header and one row per `summarize` entry, as `tftui runs` prints them."""
    rows: list[tuple[str, ...]] = [HEADER]
    return rows + [
        (
            term_line(str(e["run_id"])),
            glyphs.fold(term_line(str(e["flow"]))),
            _fmt_started(e["started"]),
            _status_cell(e["status"], glyphs),
            _phases_cell(e, glyphs),
            str(e["attempts"]),
            present.spend_tokens_count(_spend(e)),
            present.spend_cost_variants(_spend(e))[-1],
        )
        for e in entries
    ]


def run(args: argparse.Namespace) -> int:
    from tftui.engine.journal import JournalDamaged, list_runs

    if args.target and not Path(args.target).exists():
        print(f"tftui runs: no such flow file or directory: {args.target}", file=sys.stderr)
        return 2
    roots, flow_filter = _roots(args)
    runs = [entry for root in roots for entry in list_runs(root)]
    runs.sort(key=lambda e: (str(e.meta.get("started") or ""), e.run_dir.name))
    entries: list[dict[str, Any]] = []
    damaged: list[dict[str, Any]] = []
    for entry in runs:
        try:
            entries.append(summarize(entry.run_dir))
        except JournalDamaged as exc:  # listed as an error; the other runs are still shown
            damaged.append({"run_id": entry.run_id, "run_dir": str(entry.run_dir), "status": "damaged",
                            "error": str(exc), "flow_path": entry.meta.get("flowPath")})
    code = 2 if damaged else 0
    if flow_filter is not None:
        wanted = str(flow_filter.resolve())
        entries = [e for e in entries if e["flow_path"] == wanted]
        damaged = [e for e in damaged if e["flow_path"] in (wanted, None)]
        code = 2 if damaged else 0
    for e in damaged:
        print(f"tftui runs: {e['error']}", file=sys.stderr)
    if args.json:
        write_raw(sys.stdout, json.dumps(entries + damaged, ensure_ascii=False, indent=2) + "\n")
        return code
    if not entries:
        if not damaged:
            print(f"no runs recorded under {', '.join(str(r) for r in roots)}", file=sys.stderr)
        return code
    header, *rows = table_rows(entries, output_glyphs(sys.stdout, args.ascii))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    for e in entries:
        for warning in e["warnings"]:
            print(f"warning: {e['run_id']}: {warning}", file=sys.stderr)
    return code
