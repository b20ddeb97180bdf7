"""trace.json written straight from columns (what journaled runs do) is the same file as the one
written from the model objects, for real runs of the sample flows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.load import load_flow
from tftui.trace.model import dump_trace, parse_trace, trace_to_json
from tftui.trace.record import trace_columns_from_events, trace_from_events, write_trace

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


@pytest.mark.parametrize("name", ["validate_judge", "transient_retry", "onblock_rework", "subflow_race", "map_reduce"])
async def test_columns_dump_matches_model_dump(name: str, tmp_path: Path) -> None:
    loaded = load_flow(SAMPLES / f"{name}.json")
    assert loaded.flow is not None
    replies = json.loads((SAMPLES / f"{name}.replies.json").read_text())
    result = await run_flow(loaded.flow, runner=ScriptedRunner(replies), clock=InstantClock(), keep_events=True)

    trace = trace_from_events(result.events, name, fake_clock=True)
    from_models = dump_trace(trace)
    written = write_trace(tmp_path, trace_columns_from_events(result.events, name, fake_clock=True))
    text = written.read_text(encoding="utf-8")

    assert text == from_models
    assert json.loads(text) == trace_to_json(trace)  # the file says what the model objects say
    assert text.count("\n    {") == len(trace.steps)  # one step per line
    loaded_back = parse_trace(text)
    assert loaded_back.trace is not None, loaded_back.error
    assert len(loaded_back.trace.steps) > 2
    assert loaded_back.trace.steps[0].kind == "run"
