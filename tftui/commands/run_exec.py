"""The body of `tftui run`: load + check, pick the runner, journal, run, report.

Kept apart from `run.py` (argument surface) so building the CLI parser stays cheap.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tftui import present, run_service
from tftui.commands.ascii_choice import output_glyphs
from tftui.commands.progress import Progress
from tftui.commands.run import UsageProblem, parse_arg_pairs
from tftui.commands.run_report import EXIT_INTERRUPTED, EXIT_USAGE, exit_code_for, run_json, summary_line
from tftui.commands.runner_select import RunnerSelectionError, runner_flags, select_runner
from tftui.engine import journal as jr
from tftui.engine.resume import why_never_repeated
from tftui.engine.state import RunState
from tftui.present.terminal import write_lines, write_raw

if TYPE_CHECKING:
    from tftui.agent_types import AgentRunner
    from tftui.agents.cassette import CassetteRunner
    from tftui.commands.flow_args import ParsedArgs
    from tftui.config import Config
    from tftui.engine.clock import Clock
    from tftui.engine.run import RunResult
    from tftui.flow.model import Flow


@dataclass
class Admitted:
    """A flow file as `tftui run` admitted it, with what was decided for it on the way: each is
    worked out once per run and handed on (the settings, read for the flow's folder, feed the
    runner choice and the credentials check too)."""

    flow: Flow
    flow_text: str  # the file as read and checked (the journal's flow.json)
    config: Config
    glyphs: present.Glyphs  # chosen once per run (commands/ascii_choice.py)


@dataclass
class Plan:
    """Everything decided before the engine starts."""

    flow: Flow
    flow_path: Path
    flow_text: str
    args: dict[str, Any]
    root: Path | None
    config: Config
    glyphs: present.Glyphs
    session: run_service.RunSession | None = None  # resume: prepared from the journal
    notes: list[str] = field(default_factory=list)
    # the phases' types in file order, for the progress lines and the report (ids are unique in
    # an admitted flow)
    phase_types: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.phase_types = {p.id: p.type for p in self.flow.phases}

    @property
    def run_dir(self) -> Path | None:
        return self.session.run_dir if self.session is not None else None

    @property
    def run_id(self) -> str | None:
        return self.session.run_id if self.session is not None else None

    @property
    def resume_state(self) -> RunState | None:
        return self.session.resume_state if self.session is not None else None


def _err(*messages: str, glyphs: present.Glyphs | None = None) -> None:
    """Lines on stderr, in one write; with `glyphs` (the run's choice, see commands/ascii_choice.py)
    folded to them."""
    write_lines(sys.stderr, [glyphs.fold(m) for m in messages] if glyphs is not None else list(messages))


def _load_checked(
    flow_path: Path, args: dict[str, Any], given: ParsedArgs, cli: argparse.Namespace
) -> Admitted | None:
    """Load + check the flow (runtime mode: with the run's args); print diagnostics; None on errors.
    `given`: the `--arg` list as parsed, whose names are checked against the flow (a resume's
    `args` also hold the journal's, which were checked when the run started).

    With --json an invalid flow also gets a JSON object on stdout (`status: "invalid"`), so a CI
    step that parses stdout sees why nothing ran.
    """
    from tftui.admit import admission_rules, admit
    from tftui.config import load_config

    config = load_config(flow_path)
    glyphs = output_glyphs(sys.stderr, bool(getattr(cli, "ascii", False)), ui=config.get("ui") or {})
    # the same admission as `tftui check`, the debugger and its hot reload (tftui/admit.py)
    rules = admission_rules(config, args=args, allow_cwd_bridge=bool(getattr(cli, "allow_cwd_bridge", False)))
    cli.allow_cwd_bridge = rules.cwd_bridge  # what the run is given (tftui.engine.cwd_bridge)
    result = admit(flow_path, rules, lint=False)
    if result.flow is None or not cli.quiet:  # the linter only warns: --quiet shows no warning of a valid flow
        result = result.linted()
    shown = [d.format(str(flow_path)) for d in result.diagnostics if d.is_error or result.flow is None or not cli.quiet]
    if result.flow is None:
        shown.append(f"tftui run: {result.refusal}; not run")
    _err(*shown, glyphs=glyphs)  # a flow with 2,000 warnings: one write, not 2,000 writes and flushes
    if result.flow is None:
        if cli.json:
            import json

            data = {
                "status": "invalid",
                "flow": str(flow_path),
                "diagnostics": [d.to_dict() for d in result.diagnostics],
            }
            write_raw(sys.stdout, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return None
    from tftui.commands.flow_args import check_arg_names

    names = check_arg_names(given, result.flow)
    if names.errors:  # a typo of a name the flow knows
        raise UsageProblem("\n".join(names.errors))
    for warning in names.warnings:
        _err(f"tftui run: warning: {warning}", glyphs=glyphs)
    return Admitted(result.flow, result.file_text, config, glyphs)


def _plan_fresh(args: argparse.Namespace, given: ParsedArgs) -> Plan | int:
    if not args.flow:
        raise UsageProblem("missing FLOW (the flow file to run), or --resume RUN_ID")
    flow_path = Path(args.flow)
    if not flow_path.exists():
        from tftui.admit import flow_not_found

        raise UsageProblem(flow_not_found(flow_path))
    admitted = _load_checked(flow_path, given.values, given, args)
    if admitted is None:
        return EXIT_USAGE
    root = None if args.no_journal else jr.runs_root(flow_path, args.runs_dir)
    return Plan(flow=admitted.flow, flow_path=flow_path, flow_text=admitted.flow_text, args=given.values, root=root,
                config=admitted.config, glyphs=admitted.glyphs)


def _plan_resume(args: argparse.Namespace, given: ParsedArgs) -> Plan | int:
    from tftui.engine.journal import find_run

    if args.no_journal:
        raise UsageProblem("--resume continues a journal; it cannot be combined with --no-journal")
    if args.flow or args.runs_dir:
        roots = [jr.runs_root(args.flow, args.runs_dir)]
    else:
        roots = jr.default_roots()  # no FLOW: look where `tftui runs` looks
    found = [d for d in (find_run(root, args.resume) for root in roots) if d is not None]
    if len(found) != 1:
        where = ", ".join(str(r) for r in roots)
        if not found:  # find_run says None for a prefix of several runs too: list them
            found = [e.run_dir for root in roots for e in jr.list_runs(root) if e.run_dir.name.startswith(args.resume)]
        if len(found) > 1:
            listed = "\n".join(f"  {d}" for d in found)
            raise UsageProblem(f"run '{args.resume}' is ambiguous: it matches {len(found)} runs\n{listed}\n"
                               "give more of the run id")
        if not found:
            raise UsageProblem(f"run '{args.resume}' was not found under {where} (list runs with `tftui runs`)")
    run_dir = found[0]
    try:
        recorded = run_service.read_recorded(run_dir)
    except jr.JournalDamaged as exc:
        raise UsageProblem(f"cannot resume run {run_dir.name}: {exc}") from exc
    for warning in recorded.warnings:
        _err(f"warning: {warning}")
    flow_path = Path(args.flow) if args.flow else recorded.flow_path
    if not flow_path.exists():
        from tftui.admit import flow_not_found

        raise UsageProblem(f"{flow_not_found(flow_path)} (pass FLOW explicitly)")
    if recorded.flow_changed(flow_path):
        raise UsageProblem(
            f"{flow_path} changed since run {run_dir.name} started (its copy is {run_dir / jr.FLOW_FILE}); "
            "resuming would mix two versions of the flow — start a new run instead"
        )
    merged_args, redacted = recorded.args(given.values)
    if redacted:
        raise UsageProblem(
            f"argument(s) {', '.join(redacted)} were redacted from the journal; pass them again with --arg"
        )
    admitted = _load_checked(flow_path, merged_args, given, args)
    if admitted is None:
        return EXIT_USAGE
    flow = admitted.flow
    session = run_service.resume(recorded, flow, args=merged_args, flow_path=str(flow_path.resolve()))
    plan = Plan(flow=flow, flow_path=flow_path, flow_text=admitted.flow_text, args=merged_args, root=run_dir.parent,
                config=admitted.config, glyphs=admitted.glyphs, session=session)
    info = session.resumed
    assert info is not None
    plan.notes.append(f"resuming run {plan.run_id}: {info.finished}/{info.total} phases already finished")
    specs = {p.id: p for p in flow.phases}
    for pid in info.side_effects_in_flight:
        plan.notes.append(
            f"phase '{pid}' ({why_never_repeated(specs[pid])}) was in flight when the run stopped; "
            "it is NOT repeated — it is marked failed so you can check its side effect"
        )
    for pid, kept in info.rerun:
        reuse = f", replaying its {kept} recorded call(s) from the journal (answers and failures)" if kept else ""
        plan.notes.append(f"phase '{pid}' was in flight when the run stopped; it runs again{reuse}")
    return plan


def _resume_hint(plan: Plan, args: argparse.Namespace) -> str:
    """` — resume with: tftui run FLOW --resume ID` plus every flag the run needs again (runner,
    journal, switches: `runner_flags`) and an `--arg NAME=VALUE` for each argument the journal
    masked (docs/inputs.md §3); '' for a run without a journal."""
    if plan.run_dir is None:
        return ""
    again = shlex.join([str(plan.flow_path), "--resume", str(plan.run_id), *runner_flags(args)])
    from tftui.redaction import is_masked

    masked = [name for name, value in ((jr.read_meta(plan.run_dir) or {}).get("args") or {}).items()
              if is_masked(value)]
    if not masked:
        return f" — resume with: tftui run {again}"
    given = " ".join(f"--arg {shlex.quote(name)}=VALUE" for name in masked)
    return f" — resume with: tftui run {again} {given} (VALUE: the journal does not keep secrets)"


def _already_finished(plan: Plan, args: argparse.Namespace) -> int | None:
    """A resumed run that already has its RunFinished is reported, not re-run."""
    state = plan.resume_state
    if state is None or state.status not in ("completed", "failed", "blocked"):
        return None
    _err(f"run {plan.run_id} already finished ({state.status}); nothing to resume")
    _report(plan, args, state, state.status, state.final_output, 0.0)
    return exit_code_for(state.status)


def _report(
    plan: Plan,
    args: argparse.Namespace,
    state: RunState,
    status: str,
    final_output: str | None,
    duration_ms: float,
) -> None:
    if args.json:
        import json

        data = run_json(
            state,
            status=status,
            final_output=final_output,
            run_id=plan.run_id,
            run_dir=plan.run_dir,
            phase_order=list(plan.phase_types),
            phase_types=plan.phase_types,
            duration_ms=duration_ms,
            notes=plan.notes,
        )
        write_raw(sys.stdout, json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
        sys.stdout.flush()
        return
    if final_output is not None:
        text = final_output + ("" if final_output.endswith("\n") else "\n")
        # the product: raw into a file or pipe, sanitised on a terminal (docs/inputs.md §1)
        if sys.stdout.isatty():
            sys.stdout.write(text)
        else:
            write_raw(sys.stdout, text)
        sys.stdout.flush()
    if not args.quiet:
        _err(
            summary_line(state, status=status, run_dir=plan.run_dir, duration_ms=duration_ms),
            glyphs=plan.glyphs,
        )


async def _drive(
    session: run_service.RunSession,
    runner: AgentRunner,
    progress: Progress,
    clock: Clock,
    approve: bool,
    cwd_bridge: bool = False,
) -> RunResult:
    approver = None
    if approve:
        # Headless approval phases auto-reject (docs/language.md §6.6) unless an approver is given.
        from tftui.engine.phases.approval import approve_all

        approver = approve_all

    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None:
        try:
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
        except (NotImplementedError, RuntimeError):
            pass  # not on the main thread / not supported: Ctrl+C still works
    progress.start()
    try:
        return await run_service.execute(
            session,
            runner=runner,
            approver=approver,
            clock=clock,
            on_event=progress.on_event,
            state=progress.state,  # the run folds into it; the progress lines only read it
            cwd_bridge=cwd_bridge,
        )
    finally:
        await progress.stop()
        from tftui.agents.select import close_runner

        # Cassette and resume answers wrap the real runner (which may pool connections): close the chain.
        link: object | None = runner
        while link is not None:
            await close_runner(link)
            link = None if hasattr(link, "aclose") else getattr(link, "live_runner", None)
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, RuntimeError):
            pass


def execute(args: argparse.Namespace) -> int:
    given = parse_arg_pairs(args.args)
    plan = _plan_resume(args, given) if args.resume else _plan_fresh(args, given)
    if isinstance(plan, int):
        return plan
    done = _already_finished(plan, args)
    if done is not None:
        return done
    cassette_from = getattr(args, "from_", None)
    live: AgentRunner | None  # who answers what a cassette (--from) does not
    try:
        live = select_runner(args, plan.flow_path, plan.config)
    except RunnerSelectionError as exc:
        if cassette_from:
            live = None  # cassette only: a call the recording lacks fails, naming its node path
        elif not plan.flow.makes_model_calls():
            from tftui.agents.none import NoModelRunner

            live = NoModelRunner()  # scripts only: nothing to answer (docs/language.md §2)
        else:
            _err(f"tftui run: {exc}")
            return EXIT_USAGE
    runner: AgentRunner
    cassette: CassetteRunner | None = None
    if cassette_from:
        from tftui.commands.open_flow import cassette_runner

        cassette, problem = cassette_runner(cassette_from, live)
        if cassette is None:
            _err(f"tftui run: {problem}")
            return EXIT_USAGE
        runner = cassette
    else:
        assert live is not None  # set above whenever there is no cassette
        runner = live

    from tftui.agents.scripted import ScriptedRunner
    from tftui.commands import credentials

    deterministic = ("cassette --from" if cassette_from else
                     "scripted replies" if isinstance(runner, ScriptedRunner) else None)
    message, refuse = credentials.check(deterministic=deterministic, deny_flag=bool(getattr(args, "deny_credentials",
                                        False)), config=plan.config)
    if message:
        _err(f"tftui run: {message}")
    if refuse:
        return EXIT_USAGE

    session = plan.session
    if session is None:
        session = plan.session = run_service.start(
            plan.flow,
            args=plan.args,
            flow_path=str(plan.flow_path.resolve()),
            flow_text=plan.flow_text,  # the file as checked, not a second read
            root=plan.root,
            runner=runner,
        )
        refused = [n for n in session.notes if n.kind == "not-journaled"]
        if refused:
            _err(
                f"tftui run: cannot create the run journal under {plan.root}: {refused[0].detail} "
                "(choose another place with --runs-dir, or run with --no-journal)"
            )
            return EXIT_USAGE
    runner = session.runner_for(runner)

    # One fold: the run's (a resume continues the journal's folded state in place); the
    # progress lines read it as the engine updates it.
    state = plan.resume_state if plan.resume_state is not None else RunState()
    progress = Progress(
        phase_types=plan.phase_types,
        quiet=args.quiet or args.json,
        glyphs=plan.glyphs,
        state=state,
        flow=plan.flow,
    )
    for note in plan.notes:
        if not args.quiet:  # stderr, so also with --json (whose notes list repeats them)
            progress.message(note)

    if session.resumed is not None:
        try:
            run_service.reopen(session)
        except run_service.JournalBusy as exc:
            _err(f"tftui run: cannot resume {plan.run_id}: {exc} (is it still running? see `tftui runs`)")
            return EXIT_USAGE
        except jr.JournalDamaged as exc:
            _err(f"tftui run: cannot resume {plan.run_id}: {exc}")
            return EXIT_USAGE

    from tftui.engine.clock import Clock

    clock = Clock()
    clock.skip_all = bool(args.no_wait)
    started = time.monotonic()
    try:
        bridge = bool(getattr(args, "allow_cwd_bridge", False))
        result = asyncio.run(_drive(session, runner, progress, clock, bool(args.approve), bridge))
    except (KeyboardInterrupt, asyncio.CancelledError):
        _err(f"interrupted{_resume_hint(plan, args)}")
        return EXIT_INTERRUPTED
    duration_ms = (time.monotonic() - started) * 1000
    if not args.quiet:
        for item in session.notes:
            if item.kind == "trace":
                _err(f"trace: {item.detail}")
    state = result.state or progress.state
    session.run_id = session.run_id or result.run_id
    answers = session.answers  # the run's call count is the fold's (present.run_calls): replays once
    if answers is not None:
        if answers.replayed:
            saved = present.not_spent_again(answers.saved_usage.input + answers.saved_usage.output,
                                            answers.unrecorded, "tokens")
            plan.notes.append(
                f"resume: {answers.replayed} call(s) replayed from the journal instead of asking the agent again "
                f"({saved})"
            )
            if not args.quiet:
                progress.message(plan.notes[-1])
    _report(plan, args, state, result.status, result.final_output, duration_ms)
    if cassette is not None and not args.quiet:
        saved = present.not_spent_again(cassette.saved_usage.input + cassette.saved_usage.output, cassette.unrecorded)
        _err(f"cassette: {cassette.replayed} replayed, {cassette.live} live ({saved})")
    return exit_code_for(result.status)
