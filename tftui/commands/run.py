"""`tftui run FLOW`: run a flow headless, journal it, print progress and the final output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

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
false` phase (it is reported and marked failed instead). The flow file must be
unchanged since the run started.

examples:
  tftui run sample_flows/map_reduce.json
  tftui run flow.json --arg topic="release notes" --arg limit:=3
  tftui run flow.json --replies answers.json --json > result.json
  tftui run flow.json --resume 20261130-041500-ab12
  tftui run flow.json --from repro.tftui.zip       cassette: re-run at zero tokens
  tftui runs                       list recorded runs

--arg NAME=VALUE passes a string; NAME:=JSON passes a typed JSON value.

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
    who = parser.add_argument_group(
        "who answers the model calls (at most one; default: config, then NAME.replies.json)"
    )
    who.add_argument("--replies", metavar="FILE", help="scripted replies: node path -> replies")
    who.add_argument("--provider", metavar="NAME", help="an OpenAI-compatible provider from config.toml")
    who.add_argument("--agent-cmd", metavar="CMD", help="a CLI agent: prompt on stdin, answer on stdout")
    parser.add_argument(
        "--from",
        dest="from_",
        metavar="RUN_DIR|BUNDLE",
        help="cassette mode: calls with an unchanged prompt get the recorded answer (zero tokens)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    parser.add_argument(
        "--approve", action="store_true", help="approve approval phases (headless default: reject)"
    )
    parser.add_argument("--resume", metavar="RUN_ID", help="continue a run that was killed, from its journal")
    parser.add_argument("--no-journal", action="store_true", help="do not record the run under .tftui/runs")
    parser.add_argument("--runs-dir", metavar="DIR", help="where runs are journaled (env TFTUI_RUNS_DIR)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines, only the final output")
    parser.add_argument("--no-wait", action="store_true", help="skip retry backoff waits (tests, dry runs)")


class UsageProblem(Exception):
    """Bad input: printed as `tftui run: <message>` and exit 2."""


def parse_arg_pairs(pairs: list[str]) -> dict[str, Any]:
    """`NAME=VALUE` (string) and `NAME:=JSON` (typed) pairs -> dict; raises UsageProblem on bad input."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or name == ":":
            raise UsageProblem(f"--arg expects NAME=VALUE or NAME:=JSON, got {pair!r}")
        if name.endswith(":"):
            name = name[:-1]
            try:
                out[name] = json.loads(value)
            except ValueError as exc:
                raise UsageProblem(f"--arg {name}:= needs a JSON value ({exc})") from exc
        else:
            out[name] = value
    return out


def run(args: argparse.Namespace) -> int:
    from tftui.commands.run_exec import execute

    try:
        return execute(args)
    except UsageProblem as exc:
        print(f"tftui run: {exc}", file=sys.stderr)
        return 2
