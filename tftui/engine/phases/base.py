"""What every phase handler receives and returns.

A handler is `async def execute(run, pr) -> PhaseOutcome`; `pr` (a `PhaseRun`) is the
scratch record of one execution of one phase: warnings and usage accumulate there
while the handler makes calls through `tftui.engine.calls.call_with_retry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tftui.engine.state import add_usage, empty_usage
from tftui.flow.model import PhaseBase
from tftui.lang.values import MISSING


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
    call_config: Any = None  # tftui.engine.calls.CallConfig, built on the first call

    def warn(self, message: str) -> bool:
        """Record a phase warning once; True when it is new (so the caller may emit it)."""
        if message in self.warnings:
            return False
        self.warnings.append(message)
        return True

    def add_usage(self, usage: dict[str, Any] | None) -> None:
        add_usage(self.usage, usage)


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


def agent_of(phase: PhaseBase) -> str:
    return phase.agent or "default"


def unresolved_warning(missing: list[str]) -> str:
    """SPEC §4.6 warning for unresolved placeholders (de-duplicated, in order)."""
    refs = ", ".join("{" + m.strip("{}") + "}" for m in dict.fromkeys(missing))
    return f"unresolved refs in task: {refs} — left intact (check dependsOn / placeholder spelling)"
