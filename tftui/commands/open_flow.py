"""`tftui FLOW` (alias `tftui open FLOW`): open the terminal debugger on a flow."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tftui.commands.ascii_choice import add_ascii_argument, ascii_wanted

if TYPE_CHECKING:
    from tftui.agent_types import AgentRunner
    from tftui.agents.cassette import CassetteRunner

HELP = "open the terminal debugger on a flow (the default: `tftui FLOW`)"

DESCRIPTION = """\
Open the terminal debugger on FLOW: the DAG with live per-phase status, the selected
phase's prompt/output/gate detail, and an event log. Press c to run, n to step,
b for a breakpoint, ? for every key. The flow file is watched: save it in your editor
and the changed phases (plus everything downstream) are marked stale; u re-runs them.

Who answers the model calls (the first that applies):
  --replies FILE / --provider NAME / --agent-cmd CMD   (as `tftui run` takes them)
  a default provider or agent command from your settings (tftui config)
  FLOW.replies.json     scripted replies, used when it sits next to the flow
  otherwise you: each call opens a box showing the prompt; type the answer, ctrl+s sends

Every run is journaled like `tftui run` (.tftui/runs/<id>/ beside the flow, or --runs-dir;
events.jsonl, then trace.json when it ends), so it appears in `tftui runs` and can be
traced, gated, replayed and resumed. A re-run of stale phases (u) gets a new run directory
that starts with the previous run's events. The Trace tab shows the run's normalized trace
and, with --rules FILE (default: FLOW.rules.toml, else rules.toml beside the flow), each
rule's PASS/FAIL.

examples:
  tftui sample_flows/gate_block.json
  tftui flow.json --replies replies.json --arg topic=rust
  NO_COLOR=1 tftui flow.json --ascii --no-animations      (plain terminals, screen readers)
  tftui flow.json --from .tftui/runs/20261130-041500-ab12  (cassette: unchanged calls replayed)

--from RUN_DIR|BUNDLE (cassette mode): a model call whose node path and prompt are
byte-identical to one in the recording gets the recorded answer at zero tokens; any
other call goes to the runner chosen above. The header counts replayed/live calls.

exit codes: 0 quit normally, 2 the flow file could not be loaded or bad arguments
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("flow", metavar="FLOW", help="the flow file (JSON or JSONC)")
    from tftui.commands.runner_args import add_cwd_bridge_argument, add_runner_arguments

    add_runner_arguments(parser)  # as `tftui run` takes them
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="flow argument (repeatable), as `tftui run` takes it; NAME:=JSON for a typed value",
    )
    add_ascii_argument(parser)
    parser.add_argument("--no-animations", action="store_true", help="no spinners or animations")
    parser.add_argument(
        "--theme", metavar="NAME", help="colour theme (tftui-dark, tftui-light, or a Textual theme)"
    )
    parser.add_argument(
        "--no-watch", action="store_true", help="do not reload the flow when the file changes"
    )
    parser.add_argument(
        "--no-journal", action="store_true", help="do not journal runs (no .tftui/runs/<id>/, no trace.json)"
    )
    parser.add_argument(
        "--runs-dir", metavar="DIR", help="journal runs here (default: .tftui/runs beside the flow; env TFTUI_RUNS_DIR)"
    )
    parser.add_argument(
        "--rules", metavar="FILE", help="trace rule set for the Trace tab (default: FLOW.rules.toml, else rules.toml, beside the flow)"
    )
    add_cwd_bridge_argument(parser)
    parser.add_argument(
        "--from",
        dest="from_",
        metavar="RUN_DIR|BUNDLE",
        help="cassette mode: answer calls whose prompt is unchanged from this recorded run (zero tokens)",
    )


def cassette_runner(
    source: str, live: AgentRunner | None, *, factory: type[CassetteRunner] | None = None
) -> tuple[CassetteRunner | None, str | None]:
    """`--from`: wrap `live` in a CassetteRunner (or `factory`) over a run directory, run id or
    bundle; (None, the problem) when the source cannot be read."""
    from tftui.agents.cassette import CassetteRunner
    from tftui.bundle import load_recording
    from tftui.commands.replay import resolve_source
    from tftui.engine.recorded import recorded_calls
    from tftui.engine.replay import ReplayError

    path, problem = resolve_source(source)
    if path is None:
        if problem and "ambiguous" in problem:  # a run-id prefix matching several runs: list them
            return None, f"--from {source}: {problem}"
        return None, f"--from {source}: no such run directory, run id or bundle"
    try:
        return (factory or CassetteRunner)(recorded_calls(load_recording(path).events), live), None
    except ReplayError as exc:
        return None, f"--from: {exc}"


def run(args: argparse.Namespace) -> int:
    import gc

    # Start-up makes ~1M objects (the flow's models, Textual's widgets and styles) that live as
    # long as the app: collecting while they are made only walks them again and again. The app
    # freezes them after its first frame and turns the collector back on (tui/app.py).
    gc.disable()
    try:
        return _open(args)
    finally:
        gc.enable()


def _open(args: argparse.Namespace) -> int:
    from tftui.admit import admission_rules, admit
    from tftui.commands.flow_args import parse_arg_list
    from tftui.config import load_config

    flow_path = Path(args.flow)
    parsed = parse_arg_list(args.arg)
    if not parsed.ok:
        for error in parsed.errors:
            print(f"tftui: {error}", file=sys.stderr)
        return 2
    flow_args = parsed.values
    cfg = load_config(flow_path)
    # The same admission as `tftui check`, `tftui run` and the hot reload (tftui/admit.py), which
    # keeps these rules for every saved version; with --arg, in runtime mode.
    rules = admission_rules(cfg, args=flow_args if args.arg else None, typed=parsed.typed,
                            allow_cwd_bridge=args.allow_cwd_bridge)
    # The linter only warns: the debugger opens without waiting for it and lints after its first
    # frame (tui/app.py); a refused file is linted here, so its warnings explain the errors.
    result = admit(flow_path, rules, lint=False, remember=not args.no_watch)  # a save reuses its unchanged phases
    if result.loaded.missing:  # nothing to fix in a file that is not there: say so, once
        print(f"tftui: {result.refusal}", file=sys.stderr)
        return 2
    if result.flow is None:
        result = result.linted()
        # Warnings too: a typo'd key ("taks") is a warning whose "did you mean" explains the error.
        for diag in result.diagnostics:
            print(diag.format(str(flow_path)), file=sys.stderr)
        print(
            f"tftui: {result.refusal}; fix it and open it again (tftui check {flow_path}).",
            file=sys.stderr,
        )
        return 2
    names = result.arg_names  # checked again on every saved version (the hot reload)
    if names.errors:
        for error in names.errors:
            print(f"tftui: {error}", file=sys.stderr)
        return 2

    from tftui.commands.runner_args import runner_choice
    from tftui.commands.runner_select import build_runner
    from tftui.config import ConfigError
    from tftui.present.live import LiveText

    live = LiveText()  # streamed answers, shown as they arrive (the runner's live-text callback)
    try:
        runner = build_runner(cfg, **runner_choice(args), flow_path=flow_path, allow_human=True, on_chunk=live.add)
    except ConfigError as exc:  # includes bad replies files and provider settings
        print(f"tftui: {exc}", file=sys.stderr)
        return 2

    from tftui.engine.journal import runs_root
    from tftui.tui.app import TftuiApp

    if runner is None:  # nothing configured: the person at the keyboard answers each call
        from tftui.agents.human import HumanRunner

        runner = HumanRunner(lambda request: app.ask_human(request))
    if args.from_:
        from tftui.run_service import SessionCassette

        cassette, problem = cassette_runner(args.from_, runner, factory=SessionCassette)
        if cassette is None:
            print(f"tftui: {problem}", file=sys.stderr)
            return 2
        runner = cassette
    ui = cfg.get("ui") or {}
    app = TftuiApp(
        result.flow,
        flow_path=str(flow_path),
        flow_text=result.source_text,
        runner=runner,
        args=flow_args,
        ascii=ascii_wanted(args.ascii, ui=ui),
        animations=not args.no_animations and bool(ui.get("animations", True)),
        theme=args.theme,
        watch=not args.no_watch,
        settings={"ui": ui, "keys": cfg.get("keys") or {}},
        initial_diagnostics=result.warnings,
        pending_lint=result,
        runs_root=None if args.no_journal else runs_root(flow_path, args.runs_dir),
        live_text=live,
    )
    # shown in the event log; the app goes on
    app.config_problems = [*cfg.ignored, *cfg.warnings, *names.warnings]
    app.rules_path = args.rules  # the Trace tab's rule set (default: beside the flow)
    app.ctl.cwd_bridge = rules.cwd_bridge
    app.admit_rules = rules  # the hot reload admits each saved version under the same rules
    try:
        code = app.run()
    finally:
        app.save_theme_choice()  # a theme chosen with `t` just before an exit or a crash is kept
    return int(code or 0)
