"""Hot reload and partial re-runs, as a mixin of TftuiApp (kept apart: one reason to change).

A valid change is diffed by per-phase fingerprints; the engine decides what became stale
(`stale_after_reload`, folded as a `PhasesStale` event): changed and added phases plus
everything downstream; unchanged finished phases keep their outputs, so `u` re-runs only
the stale part (a partial re-run: the engine resets those phases) at zero tokens for the
rest. An invalid change never replaces the last good flow: its diagnostics are shown
beside it until the file is fixed.
"""

from __future__ import annotations

import copy
from typing import Any

from textual import work
from textual.widgets import Static

from tftui.engine.resume import RerunReason, stale_after_reload, stale_after_run
from tftui.engine.state import apply
from tftui.flow.graph import diff_flows
from tftui.tui.journaling import Rerun
from tftui.tui.messages import FlowChanged
from tftui.tui.watch import FlowWatcher, Reload


class ReloadMixin:
    # provided by TftuiApp
    flow: Any
    flow_path: str | None
    flow_text: str | None
    state: Any
    ctl: Any
    run_flow_version: Any = None  # the flow the current/last run executes (set by start_run)
    reload_errors: int = 0  # errors of the last saved version (0: it loaded)

    def start_watcher(self) -> None:
        self.watcher = FlowWatcher(self.flow_path, self._post_reload, last_text=self.flow_text)  # type: ignore[arg-type]
        self._watch_worker()

    @work(group="watch", exit_on_error=False)
    async def _watch_worker(self) -> None:
        try:
            await self.watcher.run()
        except Exception as exc:  # the watcher is a convenience: report and keep the app running
            self.query_one("#log").add_note(f"file watching stopped: {exc}")  # type: ignore[attr-defined]

    def _post_reload(self, reload: Reload) -> None:
        self.post_message(FlowChanged(reload.path, reload.result, reload.text))  # type: ignore[attr-defined]

    # -- applying a change --------------------------------------------------------------
    def show_diagnostics(self, diagnostics: list[Any]) -> None:
        panel = self.query_one("#diagnostics", Static)  # type: ignore[attr-defined]
        errors = sorted((d for d in diagnostics if getattr(d, "is_error", True)),
                        key=lambda d: (getattr(d, "line", None) or 0, getattr(d, "col", None) or 0))  # file order
        if not errors:
            panel.remove_class("-visible")
            return
        name = self.flow_path or "<flow>"
        lines = [f"{len(errors)} error(s) — showing the last good flow until the file is fixed:"]
        lines += [d.format(name) for d in errors[:20]]
        panel.update("\n".join(lines))
        panel.add_class("-visible")

    def apply_reload(self, message: FlowChanged) -> None:
        log = self.query_one("#log")  # type: ignore[attr-defined]
        result = message.load_result
        if result.flow is None:
            self.reload_errors = len(result.errors)
            self.show_diagnostics(result.diagnostics)
            log.add_note(f"reload: {len(result.errors)} error(s); keeping the last good flow")
            return
        self.reload_errors = 0
        self.show_diagnostics([])
        self.set_file_warnings(result.warnings)  # type: ignore[attr-defined]
        old, new = self.flow, result.flow
        diff = diff_flows(old, new)
        marked = stale_after_reload(self.state, old, new)  # the engine decides what went stale
        self.flow = new
        self.flow_text = message.text
        note = self.query_one("#reload-note", Static)  # type: ignore[attr-defined]
        if marked is None:
            note.remove_class("-visible")
            log.add_note("reload: no phase changed")
            self.query_one("#tree").flow = new  # type: ignore[attr-defined]
            return
        apply(self.state, marked)
        tree = self.query_one("#tree")  # type: ignore[attr-defined]
        if _shape(old) != _shape(new):
            tree.load(new)  # ids or edges changed: the tree's shape must be rebuilt
        else:
            tree.flow = new
            tree._phase_types = {p.id: p.type for p in new.phases}
            tree.refresh_phases(set(diff.stale) | set(diff.changed))  # labels in place, nothing else
        parts = []
        if diff.changed:
            parts.append("changed " + ", ".join(diff.changed))
        if diff.added:
            parts.append("added " + ", ".join(diff.added))
        if diff.removed:
            parts.append("removed " + ", ".join(diff.removed))
        summary = "; ".join(parts)
        stale_text = f" — stale: {', '.join(sorted(self.stale))} (u re-runs them)" if self.stale else ""
        if self.ctl.running:
            # The engine runs the flow object it started with; switching mid-run would mix versions.
            stale_text += " — this run keeps the version it started with (stale marks and u after it)"
        note.update(f"Reloaded: {summary}{stale_text}")
        note.add_class("-visible")
        log.add_note(f"reload: {summary}{stale_text}")
        self.refresh_header()  # type: ignore[attr-defined]
        self.show_selected()  # type: ignore[attr-defined]

    def mark_stale_after_run(self) -> None:
        """A run that ended after the file changed ran the old version of the changed phases:
        the engine marks those stale (see `stale_after_run`), so `u` brings them up to date."""
        ran_version = self.run_flow_version
        if ran_version is None or ran_version is self.flow:
            return
        marked = stale_after_run(self.state, ran_version, self.flow)
        self.run_flow_version = self.flow
        if marked is None:
            return
        apply(self.state, marked)
        self.query_one("#tree").refresh_phases(marked.phase_ids)  # type: ignore[attr-defined]
        note = self.query_one("#reload-note", Static)  # type: ignore[attr-defined]
        text = (f"The run used the version of the flow it started with; stale now: {', '.join(sorted(self.stale))} "
                "(u re-runs them with the saved file)")
        note.update(text)
        note.add_class("-visible")
        self.query_one("#log").add_note(f"reload: {text}")  # type: ignore[attr-defined]

    # -- partial re-runs ------------------------------------------------------------------
    def rerun_phases(self, phase_ids: list[str], *, reason: RerunReason, why: str) -> None:
        """Re-run just these phases (the engine resets them), keeping every other finished phase's output."""
        if self.ctl.running:
            self.notify("A run is in progress; pause/finish it first.")  # type: ignore[attr-defined]
            return
        self.query_one("#reload-note", Static).remove_class("-visible")  # type: ignore[attr-defined]
        self.query_one("#log").add_note(f"{why}: {', '.join(sorted(phase_ids))}")  # type: ignore[attr-defined]
        # The run continues a copy: the engine thread never shares this thread's state.
        self.start_run(rerun=Rerun(list(phase_ids), reason, copy.deepcopy(self.state)))  # type: ignore[attr-defined]

    def action_rerun_stale(self) -> None:
        if not self.stale:
            if self.reload_errors:
                self.notify(f"The saved flow has {self.reload_errors} error(s) (see the panel): "  # type: ignore[attr-defined]
                            "fix and save it; the changed phases are then marked stale for u.")
            else:
                self.notify("Nothing is stale: edit the flow file and save to mark changed phases.")  # type: ignore[attr-defined]
            return
        self.rerun_phases(sorted(self.stale), reason="stale", why="re-running stale phases")


def _shape(flow: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [(p.id, tuple(p.edges)) for p in flow.phases]
