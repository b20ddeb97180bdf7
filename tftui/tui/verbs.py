"""The longer debugger verbs of the main screen (each opens a modal and acts on its answer),
and the modal bridge the human runner and the approver use. The screen's `action_*`
methods call these; the engine decides what any of them changes in a run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.app import App
from textual.screen import Screen

from tftui import present
from tftui.agents.base import AgentRequest
from tftui.engine.resume import RerunReason, guard_rerun
from tftui.engine.state import RunState, copy_state
from tftui.present import events as present_events
from tftui.tui.journaling import Rerun
from tftui.verbs import key_said

if TYPE_CHECKING:
    from tftui.engine.phases.approval import Decision
    from tftui.tui.main_screen import MainScreen

__all__ = ["ModalBridge", "RerunReason", "rerun_of"]

T = TypeVar("T")


def rerun_of(state: RunState, phase_ids: list[str], reason: RerunReason) -> Rerun:
    """A partial re-run of the current state: the run continues a copy (the engine thread never
    shares the UI thread's state); the engine resets `phase_ids` in it."""
    return Rerun(list(phase_ids), reason, copy_state(state))


def confirm_new_run(screen: MainScreen, verb: str, start: Callable[[], None]) -> None:
    """Start a new run at once while nothing has run; once a run has ended, only after a
    confirmation, since the new run replaces the finished run's view (issue 15: a stray
    `n`/`s`/`c`/`R` must not wipe what is being read)."""
    from tftui.tui.screens.confirm import ConfirmNewRunScreen

    state = screen.session.state
    if state.status == "pending":  # nothing has run: no view to lose
        start()
        return
    done, total = present.progress(state, [p.id for p in screen.session.flow.phases])
    word = present.look(str(state.status)).headline
    how = {"step": "step through a new run", "restart": "restart from scratch"}.get(verb, "start a new run")
    question = f"The run has ended ({word}, {done}/{total}). {how[0].upper()}{how[1:]}?"
    keymap = screen.session.keymap
    detail = ("The new run replaces this view: every phase's output, the Calls and Gate history "
              f"and the event log. ({key_said('rerun_stale', keymap)} re-runs only stale phases; "
              f"{key_said('rerun_gate', keymap)} re-runs the selected gate.)")

    def answered(yes: bool | None) -> None:
        if yes:
            start()
        else:
            screen.app.notify("Kept the finished run's view.")

    screen.app.push_screen(ConfirmNewRunScreen(question, detail), answered)


def full_text(screen: MainScreen) -> None:
    from tftui.tui.clipboard import copyable
    from tftui.tui.screens.full_text import FullTextScreen
    from tftui.tui.widgets.phase_detail import LABELS

    detail = screen.detail
    tab = detail.active
    text = detail.text(tab)
    if not text.strip():
        screen.app.notify("Nothing to show in this tab.")
        return
    where = detail.phase_id if tab != "trace" else "run"
    title = f"{where or 'tftui'} · {LABELS.get(tab, tab)}"
    flow_path = screen.session.flow_path
    folder = (Path(flow_path).parent if flow_path else Path.cwd()) / ".tftui"  # beside the flow, as its runs
    text = copyable(text)  # every known secret masked, on screen and in what `y` copies
    screen.app.push_screen(FullTextScreen(title, screen.session.glyphs.show(text), copy_folder=folder, raw=text))


def help_screen(screen: MainScreen) -> None:
    from tftui.tui.screens.modals import HelpScreen

    screen.app.push_screen(HelpScreen(screen.session.keymap))


def filter_log(screen: MainScreen) -> None:
    from tftui.tui.screens.modals import LineInputScreen

    log = screen.event_log

    def done(value: str | None) -> None:
        if value is not None:
            log.set_filter(value)

    hint = f"failed · phase:ID · kind:KIND · any text; kinds: {present_events.kinds_list()}"
    screen.app.push_screen(
        LineInputScreen("Filter the event log", log.query_text, hint, check=present_events.kind_problem), done
    )


def edit_guard(screen: MainScreen) -> None:
    from tftui.tui.screens.guard_editor import GuardEdit, GuardEditorScreen

    session = screen.session
    pid = screen.dag.selected_phase()
    spec = session.flow.phase(pid) if pid else None
    if pid is None or spec is None:
        return
    original = spec.when or ""
    current = session.ctl.guard_overrides.get(pid, original)

    def done(result: GuardEdit | None) -> None:
        # One guard state (README, "Why was this branch skipped?"): saving applies the guard exactly as
        # enter does, and writes it; afterwards the file holds it, so no override is left.
        if result is None:
            return
        saved = result.action == "saved" and result.new_text is not None
        if saved and result.new_text is not None:
            session.flow_text = result.new_text  # the next save is checked against what was written
            screen.reloader.adopt(result.new_text)  # the flow is the saved file now (before the watcher sees it)
            screen.note(f"guard of {pid} saved to {session.flow_path}: {result.expr!r}")
            # a run in progress keeps the version it started with: the guard still applies to it
            session.ctl.set_guard(pid, result.expr if session.ctl.running else None)
        else:
            session.ctl.set_guard(pid, None if result.expr == original else result.expr)
        rerun = guard_rerun(session.flow, session.state, pid)  # the engine: re-run now, or when reached
        what = "saved and applied" if saved else "applied"
        if rerun is not None and not session.ctl.running:
            # re-evaluate it now: the phase and its downstream re-run, other outputs are kept
            screen.rerun_phases(rerun, reason="guard-applied", why=f"guard of {pid} {what}")
            return
        screen.show_selected()
        when = "when the run reaches it" if rerun is None else "on its next re-run"
        scope = f"saved to {session.flow_path}" if saved else "this session"
        screen.app.notify(f"Guard of {pid}: {result.expr!r} — applies {when} ({scope}; empty = always run)")

    screen.app.push_screen(
        GuardEditorScreen(
            session.flow,
            session.state,
            pid,
            current,
            flow_path=session.flow_path,
            loaded_text=session.flow_text,
            args=session.ctl.args,
            ascii=session.glyphs is present.ASCII,
        ),
        done,
    )


def bundle_path(run_dir: Path) -> str:
    """Where `x` offers to write a run's bundle: beside the run directories (`.tftui/runs/<id>.tftui.zip`
    beside the flow), never the current directory; said relative to it when it is below it."""
    from tftui.bundle import BUNDLE_SUFFIX

    target = (run_dir.parent / f"{run_dir.name}{BUNDLE_SUFFIX}").absolute()
    try:
        return str(target.relative_to(Path.cwd()))
    except ValueError:
        return str(target)


def export_run_dir(screen: MainScreen, run_dir: Path | None) -> None:
    """Ask where (beside the runs: `bundle_path`), then write the repro bundle of a journaled run directory."""
    from tftui.tui.screens.modals import LineInputScreen

    app = screen.app
    if run_dir is None:
        app.notify("No journaled run to export yet: run the flow first (c); --no-journal turns journaling off.")
        return

    def done(value: str | None) -> None:
        if not value or not value.strip():
            return
        from tftui.bundle import BundleError, export_bundle

        try:
            path, warnings = export_bundle(run_dir, value.strip())
        except (BundleError, OSError) as exc:
            app.notify(f"Bundle not written: {exc}", title="Export", severity="error")
            return
        for warning in warnings:
            screen.note(f"export: {warning}")
        written = path.absolute()
        screen.note(f"repro bundle written: {written}")
        app.notify(f"Repro bundle written: {written}", timeout=10)  # a path to read off the screen

    app.push_screen(
        LineInputScreen("Export a repro bundle to", bundle_path(run_dir),
                        "a .tftui.zip path (beside the runs; relative: to the current directory) · enter writes · esc cancels"),
        done,
    )


def what_if(screen: MainScreen, pid: str) -> None:
    from tftui.engine.statectx import context_from_state
    from tftui.tui.screens.whatif import WhatIfScreen

    session = screen.session
    spec = session.flow.phase(pid)
    records = screen.gate_tools.records(pid)
    index = screen.gate_tools.shown_index(pid)
    previous = records[len(records) - 1 if index is None else index] if records else None
    ctx = context_from_state(session.flow, session.state, pid, args=session.ctl.args)
    screen.app.push_screen(WhatIfScreen(spec, ctx, previous, flow_path=session.flow_path, flow_text=session.flow_text))


def data_breakpoint(screen: MainScreen) -> None:
    from tftui.tui.screens.databreak import DataBreakpointScreen

    ctl, app = screen.session.ctl, screen.app

    def done(expr: str | None) -> None:
        if not expr:
            return
        if expr in ctl.data_breakpoints:
            ctl.remove_data_breakpoint(expr)
            app.notify(f"Data breakpoint removed: {expr}")
        else:
            error = ctl.add_data_breakpoint(expr)
            if error:
                app.notify(error, title="Not a valid condition", severity="error")
                return
            app.notify(f"Data breakpoint: stop when {expr}")
        screen.refresh_header()

    app.push_screen(DataBreakpointScreen(list(ctl.data_breakpoints)), done)


class ModalBridge:
    """Human answers and approvals: the agents and the debugger await these on the engine's
    loop (another thread); the modal runs on the UI loop."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.ui_loop: asyncio.AbstractEventLoop | None = None  # set when the app mounts
        self.ui_context: Any = None  # contextvars.Context of the UI loop (widgets need the active app)

    async def modal(self, make_screen: Callable[[], Screen[T]]) -> T | None:
        """Show a modal on the UI loop and await its result from whichever loop we are on."""
        ui_loop = self.ui_loop
        if ui_loop is None or asyncio.get_running_loop() is ui_loop:
            return await self._modal(make_screen())
        done: concurrent.futures.Future[T | None] = concurrent.futures.Future()

        def start() -> None:
            shown = self._modal(make_screen())
            task = asyncio.ensure_future(shown)

            def finish(t: asyncio.Future[T | None]) -> None:
                if t.cancelled():
                    done.cancel()
                    return
                error = t.exception()
                if error is not None:
                    done.set_exception(error)
                else:
                    done.set_result(t.result())

            task.add_done_callback(finish)

        ui_loop.call_soon_threadsafe(start, context=self.ui_context)
        return await asyncio.wrap_future(done)

    async def _modal(self, screen: Screen[T]) -> T | None:
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def dismissed(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, dismissed)
        return await future

    async def ask_human(self, request: AgentRequest) -> str | None:
        """The human runner's `ask`: the answer typed in a modal, or None when cancelled."""
        from tftui.tui.screens.modals import AnswerScreen

        return await self.modal(lambda: AnswerScreen(request.node_path, request.task, request.attempt))

    async def ask_approval(self, request: Any) -> Decision:
        """The debugger's approver hook: approve / edit / reject with an optional note."""
        from tftui.tui.screens.modals import ApprovalScreen

        answer = await self.modal(lambda: ApprovalScreen(request.phase_id, request.message, request.previous_output))
        action, note = answer if answer else ("reject", None)
        from tftui.engine.phases.approval import Decision  # the engine's phases load after first paint

        return Decision(action, note)
