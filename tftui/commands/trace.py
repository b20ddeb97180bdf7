"""`tftui trace RUN_DIR`: write the normalized trace of a recorded run (docs/trace-gates.md §8);
`tftui trace import FILE --format otlp-json|openinference`: the same from an OpenTelemetry export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "write the normalized trace (trace.json) of a recorded run or an OpenTelemetry export, for `tftui gate`"
DESCRIPTION = """\
Build the normalized trace of a recorded run from its journal
(.tftui/runs/<id>/events.jsonl) and write it as trace.json beside the journal
(or to --out). Every model-call attempt becomes a `model` step named by its node
path (`phase`, `phase#item-0`, `phase#judge`, …), script phases `tool` steps, gate
and approval decisions `policy` steps, fail-open substitutions `fallback` steps,
under one root `run` step; skipped phases get no step (root metadata skippedCount).
Volatile data (timestamps, request ids, prompts and outputs) never enters the trace.

`tftui trace import FILE` does the same for spans exported by any OpenTelemetry
instrumentation (OTLP/JSON, as the collector's file exporter writes it): one step per
span with its parent link; the step kind from gen_ai.operation.name (GenAI semantic
conventions, --format otlp-json) or openinference.span.kind (--format openinference),
the parentless span being the run; usage from gen_ai.usage.input_tokens/output_tokens
(llm.token_count.prompt/completion); span status ERROR -> error; attempts from
http.request.resend_count; tftui.step.kind / tftui.step.status / tftui.step.attempt
attributes override (e.g. a policy span that blocked the run). Other attributes are
dropped. The trace is written to --out (default FILE's stem + .trace.json).
`tftui gate` also reads such files directly.

examples:
  tftui trace .tftui/runs/20240501-120000-ab12
  tftui trace .tftui/runs/20240501-120000-ab12 --out traces/validate.json --fixture validate
  tftui trace import spans.otlp.json --format otlp-json --out traces/agent.json
  tftui gate .tftui/runs/20240501-120000-ab12 --rules sample_flows/validate.rules.toml

exit codes:
  0  trace written
  2  no such run directory or file, or no readable events in it
  3  (import) a malformed export or a trace that fails integrity: the message names the span and field
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (.tftui/runs/<id>), or `import`")
    parser.add_argument("file", nargs="?", metavar="FILE", help="with `import`: the OTLP/JSON export")
    parser.add_argument("--out", metavar="FILE", help="where to write the trace (default RUN_DIR/trace.json)")
    parser.add_argument("--fixture", metavar="NAME", help="fixture name (default: the flow file's / FILE's stem)")
    parser.add_argument(
        "--fake-clock", action="store_true", help="keep durationMs (the run used a fake clock, so they are exact)"
    )
    parser.add_argument(
        "--format", dest="otlp_format", choices=("otlp-json", "openinference"),
        help="with `import`: the attribute conventions (default: detected)",
    )


def _import(args: argparse.Namespace) -> int:
    from tftui.trace.otlp import import_normalized, otlp_fixture_name
    from tftui.trace.record import write_trace

    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"tftui trace import: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    fixture = args.fixture or otlp_fixture_name(path)
    cols, error = import_normalized(data, fixture=fixture, fmt=args.otlp_format, fake_clock=args.fake_clock)
    if cols is None:
        print(f"tftui trace import: {path}: {error}", file=sys.stderr)
        return 3
    out = Path(args.out) if args.out else path.with_name(f"{fixture}.trace.json")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_trace(out.parent, cols, out.name)
    except OSError as exc:
        print(f"tftui trace import: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0


def run(args: argparse.Namespace) -> int:
    from tftui.trace.record import trace_run_dir

    if args.run_dir == "import" and (args.file is not None or not Path("import").is_dir()):
        if args.file is None:
            print("tftui trace import: give the OTLP/JSON file to import", file=sys.stderr)
            return 2
        return _import(args)
    if args.file is not None:
        print(f"tftui trace: unexpected argument {args.file} (did you mean `tftui trace import FILE`?)",
              file=sys.stderr)
        return 2
    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        print(f"tftui trace: no run directory at {run_dir}", file=sys.stderr)
        return 2
    try:
        path, warnings = trace_run_dir(run_dir, fixture=args.fixture, fake_clock=args.fake_clock, out=args.out)
    except OSError as exc:
        print(f"tftui trace: cannot write the trace: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for warning in warnings[:-1] if path is None else warnings:
        print(f"tftui trace: warning: {warning}", file=sys.stderr)
    if path is None:  # the last message says why there is no trace
        if warnings:
            print(f"tftui trace: {warnings[-1]}", file=sys.stderr)
        return 2
    print(path)
    return 0
