"""One module per phase type; `HANDLERS[type]` is `async (run, pr) -> PhaseOutcome`.

Every phase type of the flow format has a handler (a test checks it against the models).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tftui.engine.phases import agent, approval, fanout, gate, loop, race, script, subflow, tournament
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun

Handler = Callable[[PhaseHost, PhaseRun], Awaitable[PhaseOutcome]]

HANDLERS: dict[str, Handler] = {
    "agent": agent.execute,
    "reduce": agent.execute,
    "parallel": fanout.execute_parallel,
    "map": fanout.execute_map,
    "gate": gate.execute,
    "approval": approval.execute,
    "loop": loop.execute,
    "tournament": tournament.execute,
    "script": script.execute,
    "race": race.execute,
    "flow": subflow.execute,
    "expand": subflow.execute,
}
