"""What every phase handler receives and returns.

A handler is `async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome`. `run` is the
part of the running `Run` a handler may use (`PhaseHost`: read the flow, args and results so
far, emit events, call the runner, pause, run an upstream phase again), not the whole
scheduler; `pr` is the scratch record of one execution of one phase: warnings and usage
accumulate there while the handler makes calls through `tftui.engine.calls.call_with_retry`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tftui.agent_types import AgentRunner
from tftui.engine import events as ev
from tftui.engine.clock import Clock
from tftui.engine.seams import Approver, RunDebugger
from tftui.engine.state import METERED, Metering, RunState, add_usage, empty_usage
from tftui.flow.model import Flow, PhaseBase
from tftui.lang.interpolate import Context, StepView
from tftui.lang.values import MISSING

if TYPE_CHECKING:
    from tftui.engine.calls import CallConfig
    from tftui.engine.subflow_def import StackEntry


@dataclass(slots=True)
class PhaseRun:
    phase: PhaseBase
    depth: int = 0
    round: int = 0
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=empty_usage)
    calls: int = 0  # model-call attempts made by this execution
    timed_out: bool = False
    started: float = 0.0
    paused_before: float = 0.0  # Run.paused_s[phase] when it started (its duration leaves pauses out)
    call_config: CallConfig | None = None  # built on the first call
    # The context the phase's guard was evaluated on (None: no guard). Nothing is awaited between
    # the guard and the handler, so it is the context the handler would build.
    context: Context | None = None

    def warn(self, message: str) -> bool:
        """Record a phase warning once; True when it is new (so the caller may emit it)."""
        if message in self.warnings:
            return False
        self.warnings.append(message)
        return True

    def add_usage(self, usage: dict[str, Any] | None, *, answered: bool = True, metering: Metering = METERED) -> None:
        add_usage(self.usage, usage, answered=answered, metering=metering)


@dataclass(slots=True)
class PhaseOutcome:
    status: str  # "done" | "failed"
    output: str | None = None
    json: Any = MISSING
    error: str | None = None
    attempts: int = 1
    gate: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Set when this phase blocks the run (gate BLOCK, rejected approval): the reason or "".
    block_reason: str | None = None
    budget_truncated: bool = False


class PhaseHost(Protocol):
    """The run as a phase handler sees it (`tftui.engine.run.Run` is one)."""

    @property
    def flow(self) -> Flow: ...
    @property
    def flow_path(self) -> str | None: ...
    @property
    def args(self) -> dict[str, Any]: ...
    @property
    def phases(self) -> dict[str, PhaseBase]: ...
    @property
    def edges(self) -> dict[str, list[str]]:
        """Each phase's dependencies (`dependsOn`, as the DAG resolved them)."""
        ...
    @property
    def state(self) -> RunState: ...
    @property
    def views(self) -> dict[str, StepView]:
        """What placeholders see of each finished phase; grafted sub-flow phases add theirs."""
        ...
    @property
    def runner(self) -> AgentRunner: ...
    @property
    def metering(self) -> Metering:
        """What the runner reports (`reports_usage` / `reports_cost`), as RunStarted says it."""
        ...
    @property
    def clock(self) -> Clock: ...
    @property
    def aborted(self) -> bool: ...
    @property
    def debugging(self) -> bool:
        """True when a debugger owns the pause points (`debug_point` is a no-op otherwise)."""
        ...
    @property
    def approver(self) -> Approver | None:
        """Who decides approval phases: the debugger's, else the run's own (headless `--approve`)."""
        ...
    @property
    def flow_stack(self) -> list[StackEntry]:
        """The flows being run above this one (sub-flow nesting guard); empty at the top."""
        ...
    @property
    def map_item_limit(self) -> int | None: ...
    @property
    def sandboxed(self) -> bool:
        """True inside a generated flow and everything it reaches (docs/trust.md §2)."""
        ...

    def emit(self, event: ev.Event) -> None: ...
    def phase_warning(self, phase_id: str, message: str) -> None: ...
    def debug_point(self, point: str, phase_id: str | None, **info: Any) -> Awaitable[None]: ...
    def over_budget(self) -> str | None: ...
    def abort(self) -> None: ...
    def execute_phase(
        self, phase: PhaseBase, *, depth: int = 0, round: int = 0, admit: bool = True
    ) -> Awaitable[None]:
        """Run one phase of this flow (a gate's onBlock rework re-runs its upstream phases)."""
        ...
    def child_debugger(
        self, rename_phase: Callable[[str], str], rename_node: Callable[[str], str], *, observe_all: bool
    ) -> RunDebugger | None:
        """The debugger a sub-flow's run gets (pauses renamed into this run's), or None when not debugging."""
        ...


P = TypeVar("P", bound=PhaseBase)


def phase_as(pr: PhaseRun, cls: type[P]) -> P:
    """`pr.phase` as the model class its handler is for (the dispatch table guarantees it)."""
    phase = pr.phase
    if not isinstance(phase, cls):
        raise TypeError(f"phase '{phase.id}': a {phase.type} phase was handed to the {cls} handler")
    return phase


def agent_of(phase: PhaseBase) -> str:
    return phase.agent or "default"


def unresolved_warning(missing: list[str]) -> str:
    """docs/language.md §3.6 warning for unresolved placeholders (de-duplicated, in order)."""
    refs = ", ".join("{" + m.strip("{}") + "}" for m in dict.fromkeys(missing))
    return f"unresolved refs in task: {refs} — left intact (check dependsOn / placeholder spelling)"
