"""One module per phase type; `HANDLERS[type]` is `async (run, pr) -> PhaseOutcome`."""

from __future__ import annotations

from tftui.engine.phases import agent, approval, fanout, gate, loop, race, script, subflow, tournament
from tftui.engine.phases.base import PhaseOutcome, PhaseRun


async def unsupported(run, pr: PhaseRun) -> PhaseOutcome:  # noqa: ANN001 - Run (import cycle)
    phase = pr.phase
    message = f"Phase '{phase.id}': type '{phase.type}' is not supported yet by tftui"
    return PhaseOutcome(status="failed", output=message, error=message)


HANDLERS = {
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
