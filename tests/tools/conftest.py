"""Shared fixtures for the debugging-tools tests: run flows offline and keep their events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.load import load_flow
from tftui.flow.model import Flow

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


class FailRunner:
    """A runner that fails the test if anything calls it."""

    async def run(self, request):  # pragma: no cover - reaching it is the failure
        pytest.fail(f"unexpected model call: {request.node_path}")


async def run_sample(name: str, *, replies: dict | None = None, runner: Any = None, **kw: Any):
    flow = load_flow(SAMPLES / f"{name}.json").flow
    if runner is None:
        runner = ScriptedRunner(replies) if replies is not None else ScriptedRunner.from_file(
            SAMPLES / f"{name}.replies.json"
        )
    result = await run_flow(flow, runner=runner, clock=InstantClock(), keep_events=True, **kw)
    return flow, result, runner


async def run_dict(data: dict[str, Any], replies: dict[str, Any], **kw: Any):
    flow = Flow.model_validate({"name": "t", **data})
    runner = kw.pop("runner", None) or ScriptedRunner(replies)
    result = await run_flow(flow, runner=runner, clock=InstantClock(), keep_events=True, **kw)
    return flow, result, runner


class _Tools:
    SAMPLES = SAMPLES
    FailRunner = FailRunner
    run_sample = staticmethod(run_sample)
    run_dict = staticmethod(run_dict)


@pytest.fixture
def tools() -> type[_Tools]:
    """`tools.run_sample(name)`, `tools.run_dict(data, replies)`, `tools.FailRunner`, `tools.SAMPLES`."""
    return _Tools
