"""Command-line entry point: `tftui FLOW` opens the debugger; subcommands run headless.

Each subcommand lives in `tftui/commands/<name>.py` and exposes `HELP` (one line),
`DESCRIPTION` (the --help text), `add_arguments(parser)` and `run(args) -> int`.
Command modules import heavy dependencies (Textual, httpx) inside `run`, so building
the parser and the headless paths stay fast and never pull in the UI.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from tftui import __version__
from tftui.commands import check, config, gate, open_flow, replay, run, runs, schema, trace
from tftui.present.terminal import guarded_streams

# name -> command module, in the order `tftui --help` lists them.
SUBCOMMANDS: dict[str, ModuleType] = {
    "open": open_flow,
    "run": run,
    "check": check,
    "runs": runs,
    "gate": gate,
    "trace": trace,
    "replay": replay,
    "schema": schema,
    "config": config,
}

EPILOG = """\
examples:
  tftui sample_flows/validate.json        open the debugger on a flow
  tftui run sample_flows/validate.json    run a flow headless (replies file found next to it)
  tftui check sample_flows/*.json         validate flows (exit 1 on errors)
  tftui gate trace.json --rules rules.toml  check a recorded trace with deterministic rules

exit codes: 0 success, 1 failure (errors, failed or blocked run), 2 invalid input or usage
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tftui",
        description="tftui runs and debugs taskflow flows (JSON DAGs of agent phases with quality gates).\n"
        "`tftui FLOW` opens the terminal debugger; the subcommands below run headless.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tftui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in SUBCOMMANDS.items():
        cmd = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(cmd)
        cmd.set_defaults(handler=module.run, subparser=cmd)
    return parser


TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")


def main(argv: Sequence[str] | None = None) -> int:
    # Every text a command prints goes through the one sanitiser (docs/inputs.md §1).
    with guarded_streams():
        code = _main(argv)
    if argv is None and gate.holds_big_trace():
        # The process's own command line (not a caller's argv): everything is written and closed,
        # so end here instead of freeing the big trace's millions of objects one by one
        # (docs/trace-gates.md §4, big traces). A reader that went away (`| head`) changes
        # nothing: the reports are files, already closed, and the exit code is the gate's.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    gate.release_big_traces()  # a caller's main([...]): its process goes on, so free them
    return code


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `tftui --ascii FLOW` (options first) is `tftui open --ascii FLOW` too.
    if args_list and args_list[0].startswith("-") and args_list[0] not in TOP_LEVEL_OPTIONS:
        positional = next((a for a in args_list if not a.startswith("-")), None)
        if positional is not None and positional not in SUBCOMMANDS:
            args_list.insert(0, "open")
    # `tftui FLOW ...` is shorthand for `tftui open FLOW ...`.
    if args_list and not args_list[0].startswith("-") and args_list[0] not in SUBCOMMANDS:
        first = args_list[0]
        if not Path(first).exists() and not any(c in first for c in "./\\"):
            # `tftui chek x.json` is a typo'd command, not a flow file named "chek"
            guess = difflib.get_close_matches(first, list(SUBCOMMANDS), n=1)
            hint = f" — did you mean '{guess[0]}'?" if guess else ""
            print(f"tftui: unknown command '{first}'{hint} (commands: {', '.join(SUBCOMMANDS)}; "
                  "or give a flow file's path to open it)", file=sys.stderr)
            return 2
        args_list.insert(0, "open")
    parser = build_parser()
    if not args_list:
        parser.print_help()
        return 2
    args, extra = parser.parse_known_args(args_list)
    if extra:  # name the subcommand and show its usage, not the top-level one
        (getattr(args, "subparser", None) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
