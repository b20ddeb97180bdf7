"""Gate tools, as a mixin of TftuiApp: the gate tab's evaluation history, the Calls tab's
attempts timeline, what-if (`w`) and data breakpoints (`B`).

Every engine event the app applies is fed here (`record_tool_events`) to two incremental
builders: the gate history and the timelines are built from events, because the folded
RunState keeps only a phase's latest run while these views show every attempt, round and re-run.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tftui.engine import events as ev
from tftui.engine.gate_history import GateHistoryBuilder, GateRecord
from tftui.engine.timeline import TimelineBuilder
from tftui.tui import gate_text, timeline_text


class GateToolsMixin:
    # provided by TftuiApp
    flow: Any
    flow_path: str | None
    flow_text: str | None
    state: Any
    ctl: Any

    _gate_builder: GateHistoryBuilder
    _timeline_builder: TimelineBuilder
    _gate_index: dict[str, int]
    calls_diff: bool

    # -- event intake -------------------------------------------------------------------
    def _tools(self) -> None:
        if not hasattr(self, "_gate_builder"):
            self._gate_builder = GateHistoryBuilder(self.flow)
            self._timeline_builder = TimelineBuilder()
            self._gate_index = {}
            self.calls_diff = False

    def record_tool_events(self, events: list[ev.Event]) -> None:
        self._tools()
        builder, timeline = self._gate_builder, self._timeline_builder
        builder.flow = self.flow  # after a reload, new evaluations are explained with the new file
        for event in events:
            if isinstance(event, ev.GateVerdict) or (isinstance(event, ev.PhaseFinished) and event.status == "failed"):
                self._gate_index.pop(event.phase_id, None)  # a new evaluation: show the latest
            builder.feed(event)
            timeline.feed(event)

    def reset_tool_events(self) -> None:
        """A run from scratch: the history starts over (re-runs and resumes keep it)."""
        for name in ("_gate_builder", "_timeline_builder", "_gate_index"):
            if hasattr(self, name):
                delattr(self, name)
        self._tools()

    def gate_records(self, pid: str) -> list[GateRecord]:
        self._tools()
        return self._gate_builder.records(pid)

    # -- what the detail tabs show (PhaseDetail asks the app) -------------------------
    def gate_tab_panes(self, pid: str, width: int = 80) -> tuple[Text, Text]:
        spec = self.flow.phase(pid) if self.flow is not None else None  # type: ignore[attr-defined]
        kind = getattr(spec, "type", None)
        return gate_text.panes(pid, self.gate_records(pid), self._gate_index.get(pid), width, kind)

    def calls_tab_text(self, pid: str) -> Text:
        self._tools()
        return timeline_text.calls(self._timeline_builder.get(pid), diff=self.calls_diff)

    def _selected_gate(self) -> str | None:
        pid = self.query_one("#tree").selected_phase()  # type: ignore[attr-defined]
        spec = self.flow.phase(pid) if pid else None
        if spec is None or spec.type != "gate":
            self.notify("Select a gate first.")  # type: ignore[attr-defined]
            return None
        return pid

    # -- verbs ----------------------------------------------------------------------------
    def _flip(self, step: int) -> None:
        pid = self._selected_gate()
        if pid is None:
            return
        records = self.gate_records(pid)
        detail = self.query_one("#detail")  # type: ignore[attr-defined]
        if not records:
            detail.active = "gate"
            self.notify(f"{pid} has not been evaluated yet.")  # type: ignore[attr-defined]
            return
        current = self._gate_index.get(pid, len(records) - 1)
        self._gate_index[pid] = max(0, min(len(records) - 1, current + step))
        if detail.active != "gate":
            detail.active = "gate"  # renders on the tab change
        else:
            self.show_selected()  # type: ignore[attr-defined]

    def action_gate_prev(self) -> None:
        self._flip(-1)

    def action_gate_next(self) -> None:
        self._flip(1)

    def action_toggle_diff(self) -> None:
        self._tools()
        self.calls_diff = not self.calls_diff
        detail = self.query_one("#detail")  # type: ignore[attr-defined]
        if detail.active != "attempts":
            detail.active = "attempts"
        else:
            self.show_selected()  # type: ignore[attr-defined]

    def action_what_if(self) -> None:
        from tftui.engine.statectx import context_from_state
        from tftui.tui.screens.whatif import WhatIfScreen

        pid = self._selected_gate()
        if pid is None:
            return
        spec = self.flow.phase(pid)
        records = self.gate_records(pid)
        index = self._gate_index.get(pid, len(records) - 1)
        previous = records[index] if records else None
        ctx = context_from_state(self.flow, self.state, pid, args=self.ctl.args)
        self.push_screen(  # type: ignore[attr-defined]
            WhatIfScreen(spec, ctx, previous, flow_path=self.flow_path, flow_text=self.flow_text)
        )

    def action_data_breakpoint(self) -> None:
        from tftui.tui.screens.databreak import DataBreakpointScreen

        def done(expr: str | None) -> None:
            if not expr:
                return
            if expr in self.ctl.data_breakpoints:
                self.ctl.remove_data_breakpoint(expr)
                self.notify(f"Data breakpoint removed: {expr}")  # type: ignore[attr-defined]
            else:
                error = self.ctl.add_data_breakpoint(expr)
                if error:
                    self.notify(error, title="Not a valid condition", severity="error")  # type: ignore[attr-defined]
                    return
                self.notify(f"Data breakpoint: stop when {expr}")  # type: ignore[attr-defined]
            self.refresh_header()  # type: ignore[attr-defined]

        self.push_screen(DataBreakpointScreen(list(self.ctl.data_breakpoints)), done)  # type: ignore[attr-defined]

    def data_breakpoint_header(self) -> str | None:
        """`stop when {phase.attempt} >= 2` (or `3 data breakpoints (B)`) for the header."""
        exprs = list(self.ctl.data_breakpoints)
        if not exprs:
            return None
        if len(exprs) == 1:
            return f"stop when {exprs[0]}"
        return f"{len(exprs)} data breakpoints (B)"
