"""`tftui run FLOW`: run a flow headless, journal it, print progress and the final output."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tftui.commands.ascii_choice import add_ascii_argument

if TYPE_CHECKING:
    from tftui.commands.flow_args import ParsedArgs

HELP = "run a flow headless (progress on stderr, final output on stdout)"

DESCRIPTION = """\
Run a taskflow flow without the debugger. Model calls are answered by
--provider NAME, --agent-cmd CMD or --replies FILE; else by the provider or
agent command configured in tftui.toml / config.toml; else by scripted replies
found next to the flow (NAME.replies.json for NAME.json).

Progress goes to stderr: one line per phase as it finishes (status glyph, id,
type, status, attempts, duration, tokens) and, on a terminal, a live status line.
The final output goes to stdout, then a summary line to stderr. Every run is
journaled under .tftui/runs/<run-id>/ beside the flow (events.jsonl, meta.json,
flow.json; --runs-dir or $TFTUI_RUNS_DIR move it) so a killed run can be resumed:
--resume RUN_ID keeps every finished phase, re-runs phases that were in flight
(the calls they had already made are replayed from the journal, answers and
failures alike: the done items of a map are not paid for again and a retry
does not start counting over), and never repeats an in-flight `idempotent:
false` or script phase (it is reported and marked failed instead). The flow file must be
unchanged since the run started.

examples:
  tftui run sample_flows/map_reduce.json
  tftui run flow.json --arg topic="release notes" --arg limit:=3
  tftui run flow.json --replies answers.json --json > result.json
  tftui run flow.json --resume 20261130-041500-ab12
  tftui run flow.json --from repro.tftui.zip       cassette: re-run at zero tokens
  tftui runs                       list recorded runs

--arg NAME=VALUE passes a string; NAME:=JSON passes a typed JSON value (a number,
true/false, null, an array, an object). `tftui check --arg` and `tftui FLOW --arg` read
them the same way. A name that looks like a typo of one of the flow's args is refused
(did you mean …?); a name the flow never uses is passed through, with a warning.

--from RUN_DIR|BUNDLE (cassette mode): a call whose node path and prompt are
byte-identical to one the recording made gets the recorded answer, at zero tokens;
every other call goes to the runner chosen as above (with none configured, such a
call fails naming its node path). A line on stderr counts replayed and live calls.

exit codes:
  0    the run completed
  1    the run failed or was blocked (a gate/approval blocked, or the budget ran out)
  2    invalid flow (diagnostics on stderr), bad arguments, or no way to answer model calls
  130  interrupted (Ctrl+C / SIGTERM); resume with --resume RUN_ID
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("flow", nargs="?", metavar="FLOW", help="flow file (optional with --resume)")
    parser.add_argument(
        "--arg",
        dest="args",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="flow argument (repeatable); NAME:=JSON for a typed value",
    )
    from tftui.commands.runner_args import add_cwd_bridge_argument, add_runner_arguments

    add_runner_arguments(parser)
    parser.add_argument(
        "--from",
        dest="from_",
        metavar="RUN_DIR|BUNDLE",
        help="cassette mode: calls with an unchanged prompt get the recorded answer (zero tokens)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    add_ascii_argument(parser)
    parser.add_argument(
        "--approve", action="store_true", help="approve approval phases (headless default: reject)"
    )
    parser.add_argument("--resume", metavar="RUN_ID", help="continue a run that was killed, from its journal")
    parser.add_argument("--no-journal", action="store_true", help="do not record the run under .tftui/runs")
    parser.add_argument("--runs-dir", metavar="DIR", help="where runs are journaled (env TFTUI_RUNS_DIR)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines, only the final output")
    parser.add_argument("--no-wait", action="store_true", help="skip retry backoff waits (tests, dry runs)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run the flow N times, one journal and trace each (samples for `tftui gate` distribution baselines)",
    )
    parser.add_argument(
        "--deny-credentials",
        action="store_true",
        help="refuse a deterministic run (replies, cassette) when provider credentials are in the environment "
        "(also: CI=true with ci.deny_credentials = true)",
    )
    add_cwd_bridge_argument(parser)


class UsageProblem(Exception):
    """Bad input: printed as `tftui run: <message>` and exit 2."""


def parse_arg_pairs(pairs: list[str]) -> ParsedArgs:
    """The `--arg` list parsed once per run (tftui.commands.flow_args): its values, and the names
    given as NAME:=JSON, which the check of the names against the flow reads too; raises
    UsageProblem naming every bad item."""
    from tftui.commands.flow_args import parse_arg_list

    parsed = parse_arg_list(pairs)
    if not parsed.ok:
        raise UsageProblem("\n".join(parsed.errors))
    return parsed


def run(args: argparse.Namespace) -> int:
    from tftui.commands.run_exec import execute

    repeat = getattr(args, "repeat", 1)
    if repeat < 1 or (repeat > 1 and args.resume):
        print("tftui run: --repeat takes N ≥ 1 and does not combine with --resume", file=sys.stderr)
        return 2
    try:
        if repeat == 1:
            return execute(args)
        import copy

        from tftui.commands.run_report import EXIT_INTERRUPTED

        worst = 0
        for index in range(repeat):
            if not args.quiet:
                print(f"tftui run: repeat {index + 1}/{repeat}", file=sys.stderr)
            code = execute(copy.copy(args))
            if code == EXIT_INTERRUPTED or code == 2:  # interrupted, or a usage error every run would repeat
                return code
            worst = max(worst, code)
        return worst
    except UsageProblem as exc:
        print(f"tftui run: {exc}", file=sys.stderr)
        return 2
