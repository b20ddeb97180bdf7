"""Hot reload and partial re-runs, as a mixin of TftuiApp (kept apart: one reason to change).

A valid change is diffed by per-phase fingerprints (`diff_flows`): changed and added
phases plus everything downstream become stale; unchanged finished phases keep
their outputs, so `u` re-runs only the stale part (a resume with those phases reset)
at zero tokens for the rest. An invalid change never replaces the last good flow:
its diagnostics are shown beside it until the file is fixed.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.widgets import Static

from tftui.tui.messages import FlowChanged
from tftui.tui.runctl import resume_state_without
from tftui.tui.watch import FlowWatcher, Reload


class ReloadMixin:
    # provided by TftuiApp
    flow: Any
    flow_path: str | None
    flow_text: str | None
    state: Any
    stale: set[str]
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
        from tftui.flow.graph import diff_flows

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
        self.flow = new
        self.flow_text = message.text
        note = self.query_one("#reload-note", Static)  # type: ignore[attr-defined]
        if diff.unchanged:
            note.remove_class("-visible")
            log.add_note("reload: no phase changed")
            self.query_one("#tree").flow = new  # type: ignore[attr-defined]
            return
        for pid in diff.removed:
            self.state.phases.pop(pid, None)
            self.stale.discard(pid)
        ran = {pid for pid, st in self.state.phases.items() if str(st.status) != "pending"}
        # Only results can go stale: before any run there is nothing to re-run.
        self.stale |= {pid for pid in diff.stale if pid in ran or (ran and pid in diff.added)}
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
        """A run that ended after the file changed ran the old version of the changed phases (and
        of what depends on them): mark those that ran stale, so `u` brings them up to date."""
        from tftui.flow.graph import diff_flows

        ran_version = self.run_flow_version
        if ran_version is None or ran_version is self.flow:
            return
        diff = diff_flows(ran_version, self.flow)
        ran = {pid for pid, st in self.state.phases.items() if str(st.status) != "pending"}
        newly = {pid for pid in diff.stale if pid in ran} - self.stale
        self.run_flow_version = self.flow
        if not newly:
            return
        self.stale |= newly
        self.query_one("#tree").refresh_phases(newly)  # type: ignore[attr-defined]
        note = self.query_one("#reload-note", Static)  # type: ignore[attr-defined]
        text = (f"The run used the version of the flow it started with; stale now: {', '.join(sorted(self.stale))} "
                "(u re-runs them with the saved file)")
        note.update(text)
        note.add_class("-visible")
        self.query_one("#log").add_note(f"reload: {text}")  # type: ignore[attr-defined]

    # -- partial re-runs ------------------------------------------------------------------
    def downstream_of(self, pid: str) -> set[str]:
        from tftui.flow.graph import Dag

        return set(Dag.from_flow(self.flow).downstream(pid))

    def rerun_phases(self, phase_ids: set[str], *, why: str) -> None:
        """Re-run just these phases, keeping every other finished phase's output."""
        if self.ctl.running:
            self.notify("A run is in progress; pause/finish it first.")  # type: ignore[attr-defined]
            return
        resume = resume_state_without(self.state, phase_ids)
        for pid in phase_ids:
            self.state.phases[pid] = resume.phases[pid].__class__(id=pid, type=resume.phases[pid].type)
        self.stale -= phase_ids
        self.query_one("#tree").refresh_phases(phase_ids)  # type: ignore[attr-defined]
        self.query_one("#reload-note", Static).remove_class("-visible")  # type: ignore[attr-defined]
        self.query_one("#log").add_note(f"{why}: {', '.join(sorted(phase_ids))}")  # type: ignore[attr-defined]
        self.start_run(resume=resume)  # type: ignore[attr-defined]

    def action_rerun_stale(self) -> None:
        if not self.stale:
            if self.reload_errors:
                self.notify(f"The saved flow has {self.reload_errors} error(s) (see the panel): "  # type: ignore[attr-defined]
                            "fix and save it; the changed phases are then marked stale for u.")
            else:
                self.notify("Nothing is stale: edit the flow file and save to mark changed phases.")  # type: ignore[attr-defined]
            return
        self.rerun_phases(set(self.stale), why="re-running stale phases")


def _shape(flow: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [(p.id, tuple(p.edges)) for p in flow.phases]
