"""The debugger verbs (`action_*` named by the registry in actions.py) and the modal
bridge the human runner and the approver use. A mixin of TftuiApp: one reason to change.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import Any

from tftui.engine.resume import guard_rerun, with_downstream
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.event_log import EventLog
from tftui.tui.widgets.phase_detail import PhaseDetail


class VerbsMixin:
    # provided by TftuiApp / ReloadMixin
    flow: Any
    state: Any
    stale: set[str]
    ctl: Any
    batcher: Any
    keymap: dict[str, str]
    _restart_pending: bool
    _ui_context: Any

    def action_run_continue(self) -> None:
        if self.ctl.running:
            self.ctl.resume()
            return
        self.start_run()

    def action_step(self) -> None:
        if self.ctl.running:
            self.ctl.step()
        else:
            self.start_run(step_first=True)

    def action_pause(self) -> None:
        if not self.ctl.running:
            self.notify("No run in progress (c runs, n steps).")
        else:
            self.ctl.pause()

    def action_toggle_breakpoint(self) -> None:
        tree = self.query_one(DagTree)
        pid = tree.selected_phase()
        if pid is None:
            return
        on_now = self.ctl.toggle_breakpoint(pid)
        tree.breakpoints = self.ctl.breakpoints
        tree.refresh_phases([pid])
        self.show_selected()
        self.notify(f"Breakpoint {'set on' if on_now else 'cleared from'} {pid}")

    def action_toggle_break_on_failure(self) -> None:
        self.ctl.set_break_on_failure(not self.ctl.break_on_failure)
        self.notify(f"Break on failure/block: {'on' if self.ctl.break_on_failure else 'off'}")

    def action_fast_forward(self) -> None:
        woken = self.ctl.fast_forward()
        self.notify(f"Fast-forward: backoff waits skipped ({woken} cut short)")

    def action_restart(self) -> None:
        if self.ctl.running:
            self._restart_pending = True  # starts again when the cancelled run has ended
            self.ctl.stop()
        else:
            self.start_run()

    # Toggling `display` on one widget restyles only that widget (a screen class would
    # restyle the whole DOM on every press).
    def action_toggle_log(self) -> None:
        log = self.query_one(EventLog)
        log.display = not log.display

    def action_toggle_detail(self) -> None:
        right = self.query_one("#right")
        right.display = not right.display
        self.query_one(DagTree).styles.width = "1fr" if not right.display else None

    def action_next_tab(self) -> None:
        self.query_one(PhaseDetail).cycle(1)

    def action_prev_tab(self) -> None:
        self.query_one(PhaseDetail).cycle(-1)

    def action_full_text(self) -> None:
        from tftui.tui.screens.full_text import FullTextScreen
        from tftui.tui.widgets.phase_detail import LABELS

        detail = self.query_one(PhaseDetail)
        tab = detail.active
        text = detail.text(tab)
        if not text.strip():
            self.notify("Nothing to show in this tab.")
            return
        where = detail.phase_id if tab != "trace" else "run"
        self.push_screen(FullTextScreen(f"{where or 'tftui'} · {LABELS.get(tab, tab)}", self.glyphs.fold(text)))

    def action_cycle_theme(self) -> None:
        names = sorted(self.available_themes)
        ours = [n for n in names if n.startswith("tftui-")] or names
        nxt = ours[(ours.index(self.theme) + 1) % len(ours)] if self.theme in ours else ours[0]
        self.set_theme(nxt)

    def action_help(self) -> None:
        from tftui.tui.screens.modals import HelpScreen

        self.push_screen(HelpScreen(self.keymap))

    def action_filter_log(self) -> None:
        from tftui.tui.screens.modals import LineInputScreen

        log = self.query_one(EventLog)

        def done(value: str | None) -> None:
            if value is not None:
                log.set_filter(value)

        self.push_screen(
            LineInputScreen("Filter the event log", log.query_text, "failed · phase:ID · kind:KIND · any text"),
            done,
        )

    def action_edit_guard(self) -> None:
        from tftui import present
        from tftui.tui.screens.guard_editor import GuardEditorScreen

        pid = self.query_one(DagTree).selected_phase()
        spec = self.flow.phase(pid) if pid else None
        if pid is None or spec is None:
            return
        original = spec.when or ""
        current = self.ctl.guard_overrides.get(pid, original)

        def done(result: Any) -> None:
            if result is None:
                return
            log = self.query_one(EventLog)
            if result.action == "saved":
                self.flow_text = result.new_text  # the next save is checked against what was written
                log.add_note(f"guard of {pid} saved to {self.flow_path}: {result.expr!r}")
                self.notify(f"Saved the guard of {pid} to {self.flow_path}")
                return
            self.ctl.set_guard(pid, None if result.expr == original else result.expr)
            rerun = guard_rerun(self.flow, self.state, pid)  # the engine: re-run now, or when reached
            if rerun is not None and not self.ctl.running:
                # re-evaluate it now: the phase and its downstream re-run, other outputs are kept
                self.rerun_phases(rerun, reason="guard-applied", why=f"guard of {pid} applied")
                return
            self.show_selected()
            when = "when the run reaches it" if rerun is None else "on its next re-run"
            self.notify(f"Guard of {pid}: {result.expr!r} — applies {when} (this session; empty = always run)")

        self.push_screen(
            GuardEditorScreen(
                self.flow,
                self.state,
                pid,
                current,
                flow_path=self.flow_path,
                loaded_text=self.flow_text,
                args=self.ctl.args,
                ascii=self.glyphs is present.ASCII,
            ),
            done,
        )

    def action_export_bundle(self) -> None:
        if self.ctl.running:
            self.notify("Export once the run has ended (the journal is complete then).")
            return
        self.export_run_dir(getattr(self, "run_dir", None))

    def export_run_dir(self, run_dir: Any) -> None:
        """Ask where, then write the repro bundle of a journaled run directory."""
        from tftui.tui.screens.modals import LineInputScreen

        if run_dir is None:
            self.notify("No journaled run to export yet: run the flow first (c); --no-journal turns journaling off.")
            return

        def done(value: str | None) -> None:
            if not value or not value.strip():
                return
            from tftui.bundle import BundleError, export_bundle

            try:
                path, warnings = export_bundle(run_dir, value.strip())
            except (BundleError, OSError) as exc:
                self.notify(f"Bundle not written: {exc}", title="Export", severity="error")
                return
            log = self.query_one(EventLog)
            for warning in warnings:
                log.add_note(f"export: {warning}")
            log.add_note(f"repro bundle written: {path}")
            self.notify(f"Repro bundle written: {path}")

        self.push_screen(
            LineInputScreen("Export a repro bundle to", f"{run_dir.name}.tftui.zip", "a .tftui.zip path · enter writes · esc"),
            done,
        )

    def action_rerun_gate(self) -> None:
        pid = self.query_one(DagTree).selected_phase()
        spec = self.flow.phase(pid) if pid else None
        if pid and spec is None and "/" in pid:
            # The debugger re-runs top-level phases: a nested phase runs again with its parent.
            parent = pid.split("/")[0]
            self.notify(f"{pid} runs inside '{parent}' and re-runs only with it: "
                        f"an edit to '{parent}' marks it stale for u; R restarts the whole run.")
            return
        if spec is None or spec.type != "gate":
            self.notify("Select a gate to re-run it.")
            return
        if self.ctl.running:
            self.notify("Wait for the run to finish or pause (the gate re-runs after it).")
            return
        self.rerun_phases(with_downstream(self.flow, pid), reason="rerun-gate", why=f"re-run gate {pid}")

    # -- human answers and approvals (the agents and debugger call these) --------------
    # They are awaited on the engine's loop (another thread): the modal runs on the UI loop.
    async def _modal_on_ui(self, make_screen: Callable[[], Any]) -> Any:
        """Show a modal on the UI loop and await its result from whichever loop we are on.

        The screen is built inside the UI loop's context (widgets need the active app).
        """
        ui_loop = self.batcher.loop
        if ui_loop is None or asyncio.get_running_loop() is ui_loop:
            return await self._modal(make_screen())
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def start() -> None:
            task = asyncio.ensure_future(self._modal(make_screen()))

            def finish(t: asyncio.Future[Any]) -> None:
                if t.cancelled():
                    done.cancel()
                elif t.exception() is not None:
                    done.set_exception(t.exception())  # type: ignore[arg-type]
                else:
                    done.set_result(t.result())

            task.add_done_callback(finish)

        ui_loop.call_soon_threadsafe(start, context=self._ui_context)
        return await asyncio.wrap_future(done)

    async def _modal(self, screen: Any) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.push_screen(screen, lambda result: future.done() or future.set_result(result))
        return await future

    async def ask_human(self, request: Any) -> str | None:
        """The human runner's `ask`: the answer typed in a modal, or None when cancelled."""
        from tftui.tui.screens.modals import AnswerScreen

        return await self._modal_on_ui(lambda: AnswerScreen(request.node_path, request.task, request.attempt))

    async def ask_approval(self, request: Any) -> Any:
        """The debugger's approver hook: approve / edit / reject with an optional note."""
        from tftui.engine.phases.approval import Decision
        from tftui.tui.screens.modals import ApprovalScreen

        answer = await self._modal_on_ui(
            lambda: ApprovalScreen(request.phase_id, request.message, request.previous_output)
        )
        action, note = answer if answer else ("reject", None)
        return Decision(action, note)

