"""The TUI shows the same outcome as a headless run for the sample flows (map, loop,
tournament, optional failure, onBlock rework, judge gate), and every detail tab renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.load import load_flow
from tftui.tui.widgets.phase_detail import TABS, PhaseDetail

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
NAMES = ["map_reduce", "loop_reflexion", "tournament", "optional_fallback", "onblock_rework", "validate_judge"]


@pytest.mark.parametrize("name", NAMES)
async def test_sample_flow_matches_headless(h, name):
    flow_path = SAMPLES / f"{name}.json"
    replies = SAMPLES / f"{name}.replies.json"
    if not (flow_path.exists() and replies.exists()):
        pytest.skip(f"sample flow {name} is not in this checkout")
    headless = await run_flow(load_flow(flow_path).flow, runner=ScriptedRunner.from_file(replies), clock=InstantClock())
    app = h.make_app(flow_path, replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == headless.status
        assert {k: str(v.status) for k, v in app.state.phases.items()} == {
            k: str(v.status) for k, v in headless.phases.items()
        }
        assert app.state.final_output == headless.final_output
        detail = app.query_one(PhaseDetail)
        for pid in h.tree_labels(app):
            app.query_one("#tree").select_phase(pid)
            await pilot.pause()
            for tab in TABS:
                assert detail.text(tab).strip()  # every tab says something for every phase
