"""`tftui FLOW` (alias `tftui open FLOW`): open the terminal debugger on a flow."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HELP = "open the terminal debugger on a flow (the default: `tftui FLOW`)"

DESCRIPTION = """\
Open the terminal debugger on FLOW: the DAG with live per-phase status, the selected
phase's prompt/output/gate detail, and an event log. Press c to run, n to step,
b for a breakpoint, ? for every key. The flow file is watched: save it in your editor
and the changed phases (plus everything downstream) are marked stale; u re-runs them.

Who answers the model calls (the first that applies):
  --replies FILE / --provider NAME
  a default provider or agent command from your settings (tftui config)
  FLOW.replies.json     scripted replies, used when it sits next to the flow
  otherwise you: each call opens a box showing the prompt; type the answer, ctrl+s sends

examples:
  tftui sample_flows/gate_block.json
  tftui flow.json --replies replies.json --arg topic=rust
  NO_COLOR=1 tftui flow.json --ascii --no-animations      (plain terminals, screen readers)

exit codes: 0 quit normally, 2 the flow file could not be loaded or bad arguments
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("flow", metavar="FLOW", help="the flow file (JSON or JSONC)")
    parser.add_argument("--replies", metavar="FILE", help="scripted replies file (node path -> replies)")
    parser.add_argument("--provider", metavar="NAME", help="answer model calls with a configured provider")
    parser.add_argument(
        "--arg", action="append", default=[], metavar="K=V", help="flow argument (repeatable)"
    )
    parser.add_argument("--ascii", action="store_true", help="plain ASCII glyphs instead of Unicode symbols")
    parser.add_argument("--no-animations", action="store_true", help="no spinners or animations")
    parser.add_argument(
        "--theme", metavar="NAME", help="colour theme (tftui-dark, tftui-light, or a Textual theme)"
    )
    parser.add_argument(
        "--no-watch", action="store_true", help="do not reload the flow when the file changes"
    )


def parse_args_kv(items: list[str]) -> tuple[dict[str, Any], str | None]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            return {}, f"--arg expects KEY=VALUE, got {item!r}"
        out[key] = value
    return out, None


def run(args: argparse.Namespace) -> int:
    from tftui.flow.load import load_flow

    flow_path = Path(args.flow)
    flow_args, problem = parse_args_kv(args.arg)
    if problem:
        print(f"tftui: {problem}", file=sys.stderr)
        return 2
    result = load_flow(flow_path)
    if result.flow is None:
        for diag in result.errors:
            print(diag.format(str(flow_path)), file=sys.stderr)
        print(
            f"tftui: {flow_path} has errors; fix them and open it again (tftui check {flow_path}).",
            file=sys.stderr,
        )
        return 2

    from tftui.agents.select import build_runner
    from tftui.config import ConfigError, load_config

    cfg = load_config(flow_path)
    try:
        runner = build_runner(
            cfg, provider=args.provider, replies=args.replies, flow_path=flow_path, allow_human=True
        )
    except ConfigError as exc:  # includes bad replies files and provider settings
        print(f"tftui: {exc}", file=sys.stderr)
        return 2

    from tftui.tui.app import TftuiApp

    if runner is None:  # nothing configured: the person at the keyboard answers each call
        from tftui.agents.human import HumanRunner

        runner = HumanRunner(lambda request: app.ask_human(request))
    ui = cfg.get("ui") or {}
    app = TftuiApp(
        result.flow,
        flow_path=str(flow_path),
        flow_text=result.source_text,
        runner=runner,
        args=flow_args,
        ascii=args.ascii or bool(ui.get("ascii", False)),
        animations=not args.no_animations and bool(ui.get("animations", True)),
        theme=args.theme,
        watch=not args.no_watch,
        settings={"ui": ui, "keys": cfg.get("keys") or {}},
        initial_diagnostics=result.warnings,
    )
    code = app.run()
    return int(code or 0)
