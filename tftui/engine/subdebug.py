"""The debugger as seen from inside a sub-flow: pauses, breakpoints and overrides go to the parent's.

A child run (flow phase, expand) gets a `SubDebugger` wrapping the parent run's
debugger. Pause points inside the child become pause points of the parent run with
the child's phase ids and node paths renamed the way its events are (`research/summarize`
for nested sub-flows, `x-a` for grafted expand children), so a breakpoint set on
`research/summarize` stops there, stepping walks into the sub-flow, and the `Paused`
event lands in the parent's event stream (journal, TUI).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tftui.engine import events as ev
from tftui.engine.seams import Approver, RunDebugger

if TYPE_CHECKING:
    from tftui.engine.run import Run


class SubDebugger:
    def __init__(
        self,
        parent: Run,
        debugger: RunDebugger,
        rename_phase: Callable[[str], str],
        rename_node: Callable[[str], str],
        *,
        observe_all: bool,
    ) -> None:
        """`debugger`: the parent run's (a `Run` makes these: `Run.child_debugger`)."""
        self.parent = parent
        self.debugger = debugger
        self.rename_phase = rename_phase
        self.rename_node = rename_node
        # Nested children's lifecycle events reach the parent only wrapped in SubflowEvents,
        # which the parent debugger does not look into: forward them for break-on-failure/block.
        self.observe_all = observe_all
        self.child: Run | None = None

    @property
    def approver(self) -> Approver | None:
        return self.debugger.approver

    # engine hooks (the subset `Run` uses)
    def attach(self, run: Run) -> None:
        self.child = run

    def detach(self, run: Run) -> None:
        self.child = None

    def guard_override(self, phase_id: str) -> str | None:
        return self.debugger.guard_override(self.rename_phase(phase_id))

    def observe(self, event: ev.Event) -> None:
        if self.observe_all:
            self.debugger.observe(event)

    async def checkpoint(self, run: Run, point: str, phase_id: str | None, **info: Any) -> None:
        if self.parent.aborted:
            run.abort()  # the user stopped the parent run: the child stops at this point
            return
        if info.get("node_path"):
            info["node_path"] = self.rename_node(info["node_path"])
        await self.debugger.checkpoint(self.parent, point, self.rename_phase(phase_id) if phase_id else None, **info)
        if self.parent.aborted:
            run.abort()
