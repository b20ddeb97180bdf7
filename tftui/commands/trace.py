"""`tftui trace RUN_DIR`: write the normalized trace of a recorded run (SPEC §9.8)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "write the normalized trace (trace.json) of a recorded run, for `tftui gate`"
DESCRIPTION = """\
Build the normalized trace of a recorded run from its journal
(.tftui/runs/<id>/events.jsonl) and write it as trace.json beside the journal
(or to --out). Every model-call attempt becomes a `model` step named by its node
path (`phase`, `phase#item-0`, `phase#judge`, …), script phases `tool` steps, gate
and approval decisions `policy` steps, fail-open substitutions `fallback` steps,
under one root `run` step; skipped phases get no step (root metadata skippedCount).
Volatile data (timestamps, request ids, prompts and outputs) never enters the trace.

examples:
  tftui trace .tftui/runs/20240501-120000-ab12
  tftui trace .tftui/runs/20240501-120000-ab12 --out traces/validate.json --fixture validate
  tftui gate .tftui/runs/20240501-120000-ab12 --rules sample_flows/validate.rules.toml

exit codes:
  0  trace written
  2  no such run directory, or no readable events in it
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (.tftui/runs/<id>)")
    parser.add_argument("--out", metavar="FILE", help="where to write the trace (default RUN_DIR/trace.json)")
    parser.add_argument("--fixture", metavar="NAME", help="fixture name (default: the flow file's stem)")
    parser.add_argument(
        "--fake-clock", action="store_true", help="keep durationMs (the run used a fake clock, so they are exact)"
    )


def run(args: argparse.Namespace) -> int:
    from tftui.trace.record import trace_run_dir

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        print(f"tftui trace: no run directory at {run_dir}", file=sys.stderr)
        return 2
    try:
        path, warnings = trace_run_dir(run_dir, fixture=args.fixture, fake_clock=args.fake_clock, out=args.out)
    except OSError as exc:
        print(f"tftui trace: cannot write the trace: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"tftui trace: warning: {warning}", file=sys.stderr)
    if path is None:
        return 2
    print(path)
    return 0
