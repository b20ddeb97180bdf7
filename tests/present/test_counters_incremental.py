"""The tree's counters (`a2`, `i3`, `7/10`) are kept up to date incrementally while a run goes;
at every event they equal the counters of a fresh copy of the phase (computed from scratch)."""

from __future__ import annotations

import asyncio
import copy

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.engine.state import RunState, apply
from tftui.flow.model import Flow
from tftui.present import counters_text


def test_counters_follow_a_map_with_retries_event_by_event() -> None:
    flow = Flow.model_validate({"name": "m", "phases": [
        {"id": "src", "task": "list", "output": "json"},
        {"id": "each", "type": "map", "over": "{steps.src.json}", "task": "do {item}", "dependsOn": ["src"],
         "concurrency": 3, "retry": {"max": 2, "backoffMs": 0}},
        {"id": "loop", "type": "loop", "task": "again", "until": "false", "maxIterations": 3, "dependsOn": ["src"]},
    ]})
    replies = {"src": "[1, 2, 3, 4, 5]", "each#item-1": [{"error": "503 busy"}, "ok"], "each#item-3": "ok",
               "each#item-0": "ok", "each#item-2": "ok", "each#item-4": [{"error": "503"}, {"error": "503"}, "ok"],
               "loop": "more"}
    result = asyncio.run(run_flow(flow, runner=ScriptedRunner(replies), clock=InstantClock(), keep_events=True))
    assert result.events is not None
    state = RunState()
    seen: set[str] = set()
    for event in result.events:
        apply(state, event)
        for pid in ("each", "loop"):
            phase = state.phases.get(pid)
            if phase is None:
                continue
            spec = next(p for p in flow.phases if p.id == pid)
            live = counters_text(phase, spec)
            assert live == counters_text(copy.deepcopy(phase), spec), (event, live)
            seen.add(live)
    assert "5/5" in " ".join(seen) and any("/5" in text and "5/5" not in text for text in seen)
