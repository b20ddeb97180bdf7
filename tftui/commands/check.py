"""`tftui check FLOW...`: validate flow files and print compiler-style diagnostics."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

from tftui.agents.select import REPLIES_SUFFIX
from tftui.commands.runner_args import add_cwd_bridge_argument
from tftui.present.terminal import write_raw

HELP = "validate flow files (errors and warnings with file:line:col)"
DESCRIPTION = """\
Validate one or more flow files without running them: JSON/JSONC syntax, the flow
schema, per-type requirements, dependencies and cycles, guard syntax, scorer shapes.
The linter adds warnings for what taskflow lets through (docs/linter.md): a placeholder
naming no phase, head or field, a field the upstream `expect` contract does not declare,
a `when` value its `enum` excludes, an agent no definition matches.

Each problem is printed as
  FILE:LINE:COL: error|warning: MESSAGE [phase-id]
followed by a one-line summary such as `3 files checked: 1 error, 2 warnings`.
Replies files (`*.replies.json`) are not flows and are skipped, so globs just work.

examples:
  tftui check flow.json
  tftui check sample_flows/*.json --strict
  tftui check flow.json --arg topic=rust      (runtime mode: also report missing {args.X})
  tftui check flow.json --arg limit:=3        (NAME:=JSON passes a typed value, as in `tftui run`)
  tftui check flow.json --json                (machine-readable diagnostics)

exit codes:
  0  no errors (warnings allowed unless --strict)
  1  at least one error (or a warning under --strict)
  2  a file could not be read, or bad usage
"""


# Scripted replies live next to flows (`NAME.replies.json`); a `*.json` glob picks them up.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("flows", nargs="+", metavar="FLOW", help="flow files to check")
    parser.add_argument("--json", action="store_true", help="print the diagnostics as a JSON object")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a flow argument, as `tftui run` takes it (NAME:=JSON for a typed value); "
        "any --arg (or --runtime) switches to runtime-mode checks",
    )
    parser.add_argument(
        "--runtime", action="store_true", help="runtime-mode checks even without --arg (missing {args.X})"
    )
    add_cwd_bridge_argument(parser, checking=True)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    from tftui.admit import admission_rules, admit
    from tftui.commands.flow_args import parse_arg_list
    from tftui.config import load_config

    parsed = parse_arg_list(args.arg)
    if not parsed.ok:
        for error in parsed.errors:
            print(f"tftui check: {error}", file=sys.stderr)
        return 2
    flow_args = parsed.values if (args.arg or args.runtime) else None

    unreadable = False
    errors = warnings = 0
    report: list[dict[str, Any]] = []
    flows = [p for p in args.flows if not p.endswith(REPLIES_SUFFIX)]
    for path in flows:
        # the same admission as `tftui run`, the debugger and its hot reload (tftui/admit.py); an
        # un-opted bridged cwd is valid here, so a warning (`tftui run` refuses it)
        rules = admission_rules(load_config(path), args=flow_args, typed=parsed.typed,
                                allow_cwd_bridge=args.allow_cwd_bridge, checking=True)
        result = admit(path, rules)
        unreadable = unreadable or result.unreadable
        diags = [*result.diagnostics, *result.arg_names.diagnostics()]  # the --arg names, as `tftui run` checks them
        if args.strict:
            diags = [d if d.is_error else replace(d, severity="error") for d in diags]
        # In file order, as a reader scans the file (stable: same-place messages keep the checks' order;
        # file-level ones without a position come first).
        diags = sorted(diags, key=lambda d: (d.line or 0, d.col or 0))
        for diag in diags:
            if diag.is_error:
                errors += 1
            else:
                warnings += 1
            if not args.json:
                print(diag.format(path))
        report.append(
            {
                "path": path,
                "ok": not any(d.is_error for d in diags),
                "diagnostics": [d.to_dict() for d in diags],
            }
        )

    summary = (
        f"{_plural(len(flows), 'file')} checked: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    )
    if args.json:
        payload = {"files": report, "errors": errors, "warnings": warnings, "summary": summary}
        write_raw(sys.stdout, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        print(summary)
    if unreadable:
        return 2
    return 1 if errors else 0
