"""What a run is given from outside, as protocols: the journal it appends to, the debugger that
owns its pause points, and who decides approval phases. (The runner is `tftui.agent_types.AgentRunner`.)

`Run` relies on these members only; anything with them will do (`tftui.engine.journal.Journal`,
`tftui.engine.debugger.Debugger`, the sub-flow proxy `tftui.engine.subdebug.SubDebugger`,
test doubles).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from tftui.engine import events as ev

if TYPE_CHECKING:
    from tftui.engine.phases.approval import ApprovalRequest, Decision
    from tftui.engine.run import Run

# Decides an approval phase (docs/language.md §6.6): the debugger's (a person), or headless `--approve`.
Approver = Callable[["ApprovalRequest"], Awaitable["Decision"]]


class RunJournal(Protocol):
    """Where a run's events go to be durable (events.jsonl). The run calls `sync` only where
    durability cannot wait (docs/scheduling.md §4.4); fsyncing in between, at most every 50 ms,
    is the journal's own business (`tftui.engine.journal.Journal` group-commits on a timer)."""

    def append(self, event: ev.Event) -> None: ...

    def sync(self) -> None:
        """Make everything appended so far durable (fsync)."""
        ...


class RunDebugger(Protocol):
    """The engine hooks of a debugger: pause points, guard overrides, and what it sees."""

    @property
    def approver(self) -> Approver | None: ...

    def attach(self, run: Run) -> None: ...

    def detach(self, run: Run) -> None: ...

    def guard_override(self, phase_id: str) -> str | None:
        """The `when` expression the user set for this phase instead of the file's, or None."""
        ...

    def observe(self, event: ev.Event) -> None: ...

    async def checkpoint(self, run: Run, point: str, phase_id: str | None, **info: Any) -> None:
        """A pause point: returns when the run may go on (at once unless the debugger pauses here)."""
        ...
