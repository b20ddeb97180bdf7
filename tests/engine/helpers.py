"""Shared helpers for the engine tests (imported by path-independent name)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tftui.agents.scripted import MarkerRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def cases(kind: str) -> list[dict[str, Any]]:
    return json.loads((CONFORMANCE / f"{kind}.json").read_text(encoding="utf-8"))["cases"]


def flow_of(data: dict[str, Any]) -> Flow:
    return Flow.model_validate(data)


async def run_marker(flow: dict[str, Any], script: dict[str, Any] | None = None, args=None, **kw: Any):
    runner = MarkerRunner(script or {})
    clock = kw.pop("clock", None) or InstantClock()
    result = await run_flow(flow_of(flow), args=args, runner=runner, clock=clock, keep_events=True, **kw)
    return result, runner, clock
