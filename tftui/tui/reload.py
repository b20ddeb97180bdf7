"""Hot reload: the file watcher, applying a saved change, and `u` (kept apart: one reason to change).

A valid change is diffed by per-phase fingerprints; the engine decides what became stale
(`stale_after_reload`, folded as a `PhasesStale` event): changed and added phases plus
everything downstream; unchanged finished phases keep their outputs, so `u` re-runs only
the stale part (a partial re-run: the engine resets those phases) at zero tokens for the
rest. An invalid change never replaces the last good flow: its diagnostics are shown
beside it until the file is fixed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tftui.engine.resume import stale_after_reload, stale_after_run
from tftui.engine.state import apply
from tftui.flow.diagnostics import Diagnostic
from tftui.flow.graph import dag_of, diff_flows
from tftui.flow.model import Flow
from tftui.present.events import id_list
from tftui.tui.messages import FlowChanged, FlowLinted
from tftui.tui.watch import FlowWatcher, Reload, linted, load_saved
from tftui.verbs import key_said

if TYPE_CHECKING:
    from tftui.tui.main_screen import MainScreen

WATCH_WORKERS = "watch"  # the watcher's worker group (the app routes its errors)
LINT_WORKERS = "lint"  # a saved version's linter pass
LINT_AFTER_S = 0.25  # it starts this long after the frame showing the version (and not during a run)


class Reloader:
    """The main screen's hot reload: owns the watcher and what it knows about saved versions."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.run_flow_version: Flow | None = None  # the flow the current/last run executes (set by start_run)
        self.reload_errors = 0  # errors of the last saved version (0: it loaded)
        self.watcher: FlowWatcher | None = None
        self.arg_notes: set[str] | None = None  # `--arg` warnings already in the log (None: not read yet)

    def start_watcher(self) -> None:
        path = self.screen.session.flow_path
        if path is None:
            return
        session = self.screen.session
        start = session.loaded_at_start
        session.loaded_at_start = None  # the watcher keeps the last version from now on
        self.watcher = FlowWatcher(path, self._post_reload, last_text=session.flow_text,
                                   rules=session.admit_rules, defer_lint=True,
                                   previous=start)
        self.screen.run_worker(self.watcher.run(), group=WATCH_WORKERS, exit_on_error=False)

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    def _post_reload(self, reload: Reload) -> None:
        self.screen.post_message(FlowChanged(reload.path, reload.result, reload.text, reload.arg_warnings, reload))

    def lint_after_paint(self, reload: Reload) -> None:
        """The saved version's linter pass, in a thread a little after the frame showing it is out
        and not while a run goes (its warnings never refuse a version; on a 2,000-phase save they
        were ~40 % of the checks, and a pass beside the UI thread slowed its frames)."""
        screen = self.screen

        def lint() -> None:
            result = linted(reload)
            try:
                screen.app.call_from_thread(screen.post_message, FlowLinted(result))
            except RuntimeError:  # the app is closing
                pass

        def start() -> None:
            if reload.result.flow is not screen.session.flow:
                return  # a later save replaced it: its own pass comes
            if screen.session.ctl.running:  # a run (u, say) goes first: the warnings can wait for it
                screen.set_timer(LINT_AFTER_S, start)
                return
            screen.run_worker(lint, thread=True, group=LINT_WORKERS, description="the linter's pass",
                              exit_on_error=False)

        screen.call_after_refresh(lambda: screen.set_timer(LINT_AFTER_S, start))

    def apply_lint(self, message: FlowLinted) -> None:
        """The linter's warnings for the flow shown (a later save's version replaced it: dropped)."""
        session = self.screen.session
        if message.load_result.flow is None or message.load_result.flow is not session.flow:
            return
        session.set_file_warnings(message.load_result.warnings)
        self.screen.show_selected()

    # -- applying a change --------------------------------------------------------------
    def show_diagnostics(self, diagnostics: list[Diagnostic]) -> list[str]:
        """Show the errors of a saved version in the panel (none: hide it); returns them as
        written (`file:line:col: ...`, in file order, at most 20)."""
        panel = self.screen.diagnostics_panel
        errors = sorted((d for d in diagnostics if d.is_error), key=lambda d: (d.line or 0, d.col or 0))  # file order
        if not errors:
            panel.remove_class("-visible")
            return []
        name = self.screen.session.flow_path or "<flow>"
        written = [d.format(name) for d in errors[:20]]
        # The panel is at most 8 rows (80x24 leaves no more): the log below holds every error too.
        panel.update("\n".join([f"{len(errors)} error(s), all in the log — the last good flow stays until fixed:",
                                *written]))
        panel.add_class("-visible")
        return written

    def note_arg_warnings(self, warnings: list[str]) -> None:
        """The `--arg` name warnings of a saved version the log does not show yet (a save removed
        the `args` entry a passed name matched: it is passed through unchanged, as `tftui run` says)."""
        if self.arg_notes is None:  # those shown at start (tftui FLOW's notes)
            self.arg_notes = set(self.screen.session.config_problems)
        for warning in warnings:
            if warning not in self.arg_notes:
                self.screen.note(f"reload: {warning}")
        self.arg_notes = set(warnings) | set(self.screen.session.config_problems)

    def apply(self, message: FlowChanged) -> None:
        screen, session = self.screen, self.screen.session
        result = message.load_result
        self.note_arg_warnings(message.arg_warnings)
        if result.flow is None:
            self.reload_errors = len(result.errors)
            written = self.show_diagnostics(result.diagnostics)
            screen.note(f"reload: {len(result.errors)} error(s); keeping the last good flow")
            for line in written:
                screen.note(f"reload: {line}")
            return
        self.reload_errors = 0
        self.show_diagnostics([])
        session.set_file_warnings(result.warnings)
        old, new = session.flow, result.flow
        diff = diff_flows(old, new)
        marked = stale_after_reload(session.state, old, new)  # the engine decides what went stale
        session.flow = new
        session.flow_text = message.text
        if message.reload is not None and message.reload.pending_lint is not None:
            self.lint_after_paint(message.reload)
        note = screen.reload_note
        tree = screen.dag
        if marked is None:
            note.remove_class("-visible")
            screen.note("reload: no phase changed")
            tree.set_flow(new)
            return
        apply(session.state, marked)
        if not same_shape(old, new):
            tree.load(new)  # ids or edges changed: the tree's shape must be rebuilt
        else:
            tree.set_flow(new)
            tree.refresh_phases(set(diff.stale) | set(diff.changed))  # labels in place, nothing else
        # the ids as the log words a list of phases (a change upstream of 1,000 phases would
        # otherwise write them all, and lay out all of them in the note and the log)
        parts = []
        if diff.changed:
            parts.append("changed " + id_list(diff.changed))
        if diff.added:
            parts.append("added " + id_list(diff.added))
        if diff.removed:
            parts.append("removed " + id_list(diff.removed))
        summary = "; ".join(parts)
        stale = session.state.stale
        update = key_said("rerun_stale", session.keymap)
        stale_text = f" — stale: {id_list(sorted(stale))} ({update} re-runs them)" if stale else ""
        if session.ctl.running:
            # The engine runs the flow object it started with; switching mid-run would mix versions.
            stale_text += f" — this run keeps the version it started with (stale marks and {update} after it)"
        note.update(f"Reloaded: {summary}{stale_text}")
        note.add_class("-visible")
        screen.note(f"reload: {summary}{stale_text}")
        screen.refresh_header()
        screen.show_selected()

    def adopt(self, text: str) -> None:
        """The debugger itself wrote the flow file (the guard editor's save): take that text as a
        reload now, so the flow, Info and `u` read what the file says at once."""
        path = self.screen.session.flow_path
        if path is None:
            return
        watcher = self.watcher
        reload = load_saved(text, path, self.screen.session.admit_rules,
                            previous=watcher.previous if watcher is not None else None)
        if watcher is not None:
            watcher.last_text = text  # the watcher then sees no change to report again
            watcher.previous = reload.result
        self.apply(FlowChanged(path, reload.result, text, reload.arg_warnings))

    def mark_stale_after_run(self) -> None:
        """A run that ended after the file changed ran the old version of the changed phases:
        the engine marks those stale (see `stale_after_run`), so `u` brings them up to date."""
        screen, session = self.screen, self.screen.session
        ran_version = self.run_flow_version
        if ran_version is None or ran_version is session.flow:
            return
        marked = stale_after_run(session.state, ran_version, session.flow)
        self.run_flow_version = session.flow
        if marked is None:
            return
        apply(session.state, marked)
        screen.dag.refresh_phases(marked.phase_ids)
        note = screen.reload_note
        text = (f"The run used the version of the flow it started with; stale now: "
                f"{id_list(sorted(session.state.stale))} ({key_said('rerun_stale', session.keymap)} re-runs them "
                "with the saved file)")
        note.update(text)
        note.add_class("-visible")
        screen.note(f"reload: {text}")

    def rerun_stale(self) -> None:
        """`u`: re-run the phases the engine marked stale."""
        screen, stale = self.screen, self.screen.session.state.stale
        if not stale:
            if self.reload_errors:
                screen.app.notify(f"The saved flow has {self.reload_errors} error(s) (see the panel): "
                                  "fix and save it; the changed phases are then marked stale for u.")
            else:
                screen.app.notify("Nothing is stale: edit the flow file and save to mark changed phases.")
            return
        screen.rerun_phases(sorted(stale), reason="stale", why="re-running stale phases")


def same_shape(old: Flow, new: Flow) -> bool:
    """The same phase ids in the same order with the same edges (the tree is laid out from
    those alone, tree_layout.py): read from the versions' graphs, which the watcher built."""
    if len(old.phases) != len(new.phases):
        return False
    before, after = dag_of(old), dag_of(new)
    if before.ids != after.ids or len(before.ids) != len(old.phases) or len(after.ids) != len(new.phases):
        return False  # (a duplicated id is in one graph once: compare the lists as they are)
    return before.deps == after.deps
