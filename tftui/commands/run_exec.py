"""The body of `tftui run`: load + check, pick the runner, journal, run, report.

Kept apart from `run.py` (argument surface) so building the CLI parser stays cheap.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tftui.commands.progress import Progress
from tftui.commands.run import UsageProblem, check_cli_arg_names, parse_arg_pairs
from tftui.commands.run_report import EXIT_INTERRUPTED, EXIT_USAGE, exit_code_for, run_json, summary_line
from tftui.commands.runner_select import RunnerSelectionError, select_runner
from tftui.engine import journal as jr
from tftui.engine.redaction import REDACTED
from tftui.engine.state import PhaseStatus, RunState, fold


@dataclass
class Plan:
    """Everything decided before the engine starts."""

    flow: Any
    flow_path: Path
    flow_text: str
    args: dict[str, Any]
    root: Path | None
    run_dir: Path | None = None
    resume_state: RunState | None = None
    run_id: str | None = None
    prior_calls: int = 0
    # Resume: successful calls that phases in flight at the interruption already made (served
    # again from the journal when the re-run asks the same thing; see cassette.in_flight_answers).
    journal_answers: list[Any] = field(default_factory=list)
    answered: dict[str, int] = field(default_factory=dict)  # resume: answers per node path so far
    notes: list[str] = field(default_factory=list)


def _err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _load_checked(flow_path: Path, args: dict[str, Any], cli: argparse.Namespace) -> tuple[Any, str] | None:
    """Load + check the flow (runtime mode: with the run's args); print diagnostics; None on errors.

    With --json an invalid flow also gets a JSON object on stdout (`status: "invalid"`), so a CI
    step that parses stdout sees why nothing ran.
    """
    from tftui.flow.load import load_flow

    result = load_flow(flow_path, args=args)
    for diag in result.diagnostics:
        if diag.is_error or result.flow is None or not cli.quiet:
            _err(diag.format(str(flow_path)))
    if result.flow is None:
        count = len(result.errors) or 1
        _err(
            f"tftui run: {flow_path} is not a valid flow ({count} error{'s' if count != 1 else ''}); not run"
        )
        if cli.json:
            import json

            data = {
                "status": "invalid",
                "flow": str(flow_path),
                "diagnostics": [d.to_dict() for d in result.diagnostics],
            }
            sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return None
    for warning in check_cli_arg_names(cli.args, result.flow):  # a typo'd name raises UsageProblem
        _err(f"tftui run: warning: {warning}")
    return result.flow, result.source_text


def _plan_fresh(args: argparse.Namespace, cli_args: dict[str, Any]) -> Plan | int:
    if not args.flow:
        raise UsageProblem("missing FLOW (the flow file to run), or --resume RUN_ID")
    flow_path = Path(args.flow)
    if not flow_path.exists():
        raise UsageProblem(f"flow file not found: {flow_path}")
    loaded = _load_checked(flow_path, cli_args, args)
    if loaded is None:
        return EXIT_USAGE
    flow, text = loaded
    root = None if args.no_journal else jr.runs_root(flow_path, args.runs_dir)
    return Plan(flow=flow, flow_path=flow_path, flow_text=text, args=cli_args, root=root)


def _plan_resume(args: argparse.Namespace, cli_args: dict[str, Any]) -> Plan | int:
    from tftui.engine.journal import decode_events, find_run, read_journal

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
    root = run_dir.parent
    rows, meta, warnings = read_journal(run_dir)
    for warning in warnings:
        _err(f"warning: {warning}")
    recorded_path = meta.get("flowPath")
    flow_path = (
        Path(args.flow) if args.flow else Path(recorded_path) if recorded_path else run_dir / jr.FLOW_FILE
    )
    if not flow_path.exists():
        raise UsageProblem(f"flow file not found: {flow_path} (pass FLOW explicitly)")
    copy_path = run_dir / jr.FLOW_FILE
    if copy_path.exists() and copy_path.read_bytes() != flow_path.read_bytes():
        raise UsageProblem(
            f"{flow_path} changed since run {run_dir.name} started (its copy is {copy_path}); "
            "resuming would mix two versions of the flow — start a new run instead"
        )
    events, decode_warnings = decode_events(rows)
    for warning in decode_warnings:
        _err(f"warning: {warning}")
    state = fold(events)
    recorded_args = dict(state.args or meta.get("args") or {})
    merged_args = {**recorded_args, **cli_args}
    redacted = [k for k, v in merged_args.items() if v == REDACTED and k not in cli_args]
    if redacted:
        raise UsageProblem(
            f"argument(s) {', '.join(redacted)} were redacted from the journal; pass them again with --arg"
        )
    loaded = _load_checked(flow_path, merged_args, args)
    if loaded is None:
        return EXIT_USAGE
    flow, text = loaded
    from tftui.engine.events import AttemptStarted

    plan = Plan(
        flow=flow,
        flow_path=flow_path,
        flow_text=text,
        args=merged_args,
        root=root,
        run_dir=run_dir,
        resume_state=state,
        run_id=str(meta.get("runId") or state.run_id or run_dir.name),
        prior_calls=sum(1 for e in events if isinstance(e, AttemptStarted)),
    )
    from tftui.engine.resume import plan_resume

    resume = plan_resume(events, flow.phases, folded=state)  # rolls back in-flight rework rounds, picks replays
    plan.resume_state = state = resume.state
    plan.journal_answers = resume.replay
    plan.answered = resume.answered
    finished = [p for p in state.phases.values() if p.status.terminal]
    plan.notes.append(
        f"resuming run {plan.run_id}: {len(finished)}/{len(state.phases)} phases already finished"
    )
    for phase in flow.phases:
        st = state.phases.get(phase.id)
        if st is not None and st.status == PhaseStatus.RUNNING and phase.idempotent is False:
            plan.notes.append(
                f"phase '{phase.id}' (idempotent: false) was in flight when the run stopped; "
                "it is NOT repeated — it is marked failed so you can check its side effect"
            )
    for pid in resume.rerun:
        kept = sum(1 for call in resume.replay if call.phase_id.split("/")[0] == pid)
        reuse = f", replaying its {kept} recorded call(s) from the journal (answers and failures)" if kept else ""
        plan.notes.append(f"phase '{pid}' was in flight when the run stopped; it runs again{reuse}")
    return plan


def _already_finished(plan: Plan, args: argparse.Namespace) -> int | None:
    """A resumed run that already has its RunFinished is reported, not re-run."""
    state = plan.resume_state
    if state is None or state.status not in ("completed", "failed", "blocked"):
        return None
    _err(f"run {plan.run_id} already finished ({state.status}); nothing to resume")
    _report(plan, args, state, state.status, state.final_output, plan.prior_calls, 0.0)
    return exit_code_for(state.status)


def _report(
    plan: Plan,
    args: argparse.Namespace,
    state: RunState,
    status: str,
    final_output: str | None,
    calls: int,
    duration_ms: float,
) -> None:
    order = [p.id for p in plan.flow.phases]
    types = {p.id: p.type for p in plan.flow.phases}
    if args.json:
        import json

        data = run_json(
            state,
            status=status,
            final_output=final_output,
            run_id=plan.run_id,
            run_dir=plan.run_dir,
            phase_order=order,
            phase_types=types,
            calls=calls,
            duration_ms=duration_ms,
            notes=plan.notes,
        )
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
        sys.stdout.flush()
        return
    if final_output is not None:
        sys.stdout.write(final_output + ("" if final_output.endswith("\n") else "\n"))
        sys.stdout.flush()
    if not args.quiet:
        _err(summary_line(state, status=status, run_dir=plan.run_dir, calls=calls, duration_ms=duration_ms))


async def _drive(plan: Plan, runner: Any, journal: Any, progress: Progress, clock: Any, approve: bool) -> Any:
    from tftui.engine import run_flow

    approver = None
    if approve:
        # Headless approval phases auto-reject (SPEC §8.6) unless an approver is given.
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
        return await run_flow(
            plan.flow,
            args=plan.args,
            runner=runner,
            approver=approver,
            journal=journal,
            clock=clock,
            on_event=progress.on_event,
            run_id=plan.run_id,
            resume_state=plan.resume_state,
            flow_path=str(plan.flow_path.resolve()),
        )
    finally:
        await progress.stop()
        from tftui.agents.select import close_runner

        # Cassette and resume answers wrap the real runner (which may pool connections): close the chain.
        while runner is not None:
            await close_runner(runner)
            runner = None if hasattr(runner, "aclose") else getattr(runner, "live_runner", None)
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, RuntimeError):
            pass


def _write_trace(run_dir: Path, args: argparse.Namespace) -> None:
    """Every journaled run leaves a normalized `trace.json` beside its journal (SPEC §9.8)."""
    from tftui.trace.record import trace_run_dir

    try:
        _path, warnings = trace_run_dir(run_dir)
    except Exception as exc:  # a trace problem must never turn a finished run into a crash
        warnings = [f"could not write trace.json: {exc}"]
    if not args.quiet:
        for warning in warnings:
            _err(f"trace: {warning}")


def execute(args: argparse.Namespace) -> int:
    cli_args = parse_arg_pairs(args.args)
    plan = _plan_resume(args, cli_args) if args.resume else _plan_fresh(args, cli_args)
    if isinstance(plan, int):
        return plan
    done = _already_finished(plan, args)
    if done is not None:
        return done
    cassette_from = getattr(args, "from_", None)
    try:
        runner = select_runner(args, plan.flow_path)
    except RunnerSelectionError as exc:
        if not cassette_from:
            _err(f"tftui run: {exc}")
            return EXIT_USAGE
        runner = None  # cassette only: a call the recording lacks fails, naming its node path
    if cassette_from:
        from tftui.commands.open_flow import cassette_runner

        runner, problem = cassette_runner(cassette_from, runner)
        if problem:
            _err(f"tftui run: {problem}")
            return EXIT_USAGE

    skip = getattr(runner, "skip_answered", None)
    if plan.answered and callable(skip):  # a replies file continues where the interrupted run was
        skip(plan.answered)
    answers = None
    if plan.journal_answers:
        from tftui.agents.cassette import CassetteRunner

        answers = runner = CassetteRunner(None, runner, calls=plan.journal_answers)

    progress = Progress(phase_types={p.id: p.type for p in plan.flow.phases}, quiet=args.quiet or args.json)
    if plan.resume_state is not None:
        progress.seed(copy.deepcopy(plan.resume_state))
    for note in plan.notes:
        if not args.quiet:  # stderr, so also with --json (whose notes list repeats them)
            progress.message(note)

    journal = None
    if plan.run_dir is not None:
        try:
            journal = jr.Journal.reopen(plan.run_dir)
        except jr.JournalBusy as exc:
            _err(f"tftui run: cannot resume {plan.run_id}: {exc} (is it still running? see `tftui runs`)")
            return EXIT_USAGE
    elif plan.root is not None:
        try:
            journal = jr.Journal.create(
                plan.root,
                flow_name=plan.flow.name,
                flow_path=plan.flow_path,
                flow_text=plan.flow_path.read_bytes().decode("utf-8", errors="replace"),
                args=plan.args,
            )
        except OSError as exc:
            _err(
                f"tftui run: cannot create the run journal under {plan.root}: {exc.strerror or exc} "
                "(choose another place with --runs-dir, or run with --no-journal)"
            )
            return EXIT_USAGE
        plan.run_dir, plan.run_id = journal.run_dir, journal.run_id

    from tftui.engine.clock import Clock

    clock = Clock()
    clock.skip_all = bool(args.no_wait)
    started = time.monotonic()
    try:
        result = asyncio.run(_drive(plan, runner, journal, progress, clock, bool(args.approve)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        if journal is not None:
            journal.close()
        hint = f" — resume with: tftui run {plan.flow_path} --resume {plan.run_id}" if plan.run_dir else ""
        _err(f"interrupted{hint}")
        return EXIT_INTERRUPTED
    finally:
        if journal is not None:
            journal.close()
    duration_ms = (time.monotonic() - started) * 1000
    if plan.run_dir is not None:
        _write_trace(plan.run_dir, args)
    state = result.state or progress.state
    plan.run_id = plan.run_id or result.run_id
    calls = plan.prior_calls + progress.calls
    if answers is not None:
        calls -= answers.replayed  # counted once already, in the interrupted run
        if answers.replayed:
            saved = answers.saved_usage.input + answers.saved_usage.output
            plan.notes.append(
                f"resume: {answers.replayed} call(s) replayed from the journal instead of asking the agent again "
                f"({saved} tokens not spent again)"
            )
            if not args.quiet:
                progress.message(plan.notes[-1])
    _report(plan, args, state, result.status, result.final_output, calls, duration_ms)
    if cassette_from and not args.quiet:
        saved = runner.saved_usage.input + runner.saved_usage.output
        _err(f"cassette: {runner.replayed} replayed, {runner.live} live ({saved} recorded tokens not spent again)")
    return exit_code_for(result.status)
