"""The contract between the engine and whatever answers model calls.

The engine builds an `AgentRequest` for every model call (a phase's own call, each
map item, branch, variant, loop iteration, gate task and judge) and awaits
`runner.run(request)`. Runners never raise for call failures: they return an
`AgentResult` with `error` set, so the retry layer can classify it (docs/retry.md §2).

These types sit below the engine, the gate pipeline (`tftui.scoring.gate` builds judge
requests) and the runners in `tftui.agents`, which re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass
class Usage:
    """Token and cost figures of one call. `cost_usd` is None when the cost is unknown (never silently 0)."""

    input: int = 0
    output: int = 0
    cost_usd: float | None = None
    cache_read: int = 0
    cache_write: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"input": self.input, "output": self.output}
        if self.cost_usd is not None:
            data["costUSD"] = self.cost_usd
        if self.cache_read:
            data["cacheRead"] = self.cache_read
        if self.cache_write:
            data["cacheWrite"] = self.cache_write
        return data

    @classmethod
    def from_json(cls, data: Any) -> Usage | None:
        if not isinstance(data, dict):
            return None

        def num(key: str) -> int:
            value = data.get(key, 0)
            return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

        cost = data.get("costUSD", data.get("cost"))
        return cls(
            input=num("input"),
            output=num("output"),
            cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
            cache_read=num("cacheRead"),
            cache_write=num("cacheWrite"),
        )


@dataclass
class AgentRequest:
    node_path: str  # docs/language.md §7: `phase`, `phase#item-0`, `phase#branch-1`, `phase#variant-2`, `phase#judge`
    phase_id: str
    agent: str
    task: str  # the final prompt text, after interpolation and every appended suffix
    system: str | None = None
    model: str | None = None
    attempt: int = 0  # 0-based attempt number within the retry loop
    output: Literal["text", "json"] = "text"
    timeout_ms: int | None = None
    thinking: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentResult:
    output: str = ""
    error: str | None = None
    exit_code: int = 0
    stderr: str = ""
    usage: Usage | None = None
    timed_out: bool = False
    aborted: bool = False
    # Answered from a recording (cassette, resume): the backoff after a replayed failure was
    # waited when it was recorded, so the engine does not wait it again.
    replayed: bool = False
    # The agent that actually answered, when the runner ran another one than the request named
    # (an unknown name falls back to the default agent, docs/language.md §1.4); None: the named one.
    agent: str | None = None
    # Answered from this run's own journal by a resume (`tftui run --resume`): the interrupted
    # process made this call, and counted it; the engine marks its AgentReturned `resumed`, so the
    # run's call count and spend do not count it again (docs/inputs.md §3). A cassette (`--from`)
    # answer is `replayed` only: it is a call of this run, answered from another run's recording.
    resumed: bool = False

    @property
    def failed(self) -> bool:
        """docs/retry.md §2: a call failed iff it exited non-zero, carries an error, or was aborted."""
        return self.exit_code != 0 or self.error is not None or self.aborted or self.timed_out


@runtime_checkable
class AgentRunner(Protocol):
    async def run(self, request: AgentRequest) -> AgentResult: ...


# What a runner's usage records can be trusted for (docs/scheduling.md §6). A runner says so with
# `reports_usage` / `reports_cost` attributes; one that says nothing is metered. A runner that
# wraps another (a cassette, a node-path prefix) reports what the wrapped one does.
def reports_usage(runner: object) -> bool:
    return getattr(runner, "reports_usage", True) is not False


def reports_cost(runner: object) -> bool:
    return getattr(runner, "reports_cost", True) is not False


# A runner whose calls never leave the process (scripted replies, a replayed recording) says so
# with `in_process = True`: nothing outside can see a call start, so the journal need not be
# written before each one (docs/scheduling.md §4.4). One that says nothing is taken to leave it.
def stays_in_process(runner: object) -> bool:
    return getattr(runner, "in_process", False) is True
