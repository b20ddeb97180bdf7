"""The sample flows are what a new user runs first: none may raise a placeholder warning.

A literal `{word}` in a task reads as a placeholder (SPEC §4.2) and shows up as
`unresolved refs in task: {word}` on the phase — noise in a walkthrough.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
NAMES = sorted(p.stem for p in SAMPLES.glob("*.json") if not p.name.endswith(".replies.json"))


@pytest.mark.parametrize("name", NAMES)
async def test_sample_flow_has_no_unresolved_placeholders(tools, name):
    _, result, _ = await tools.run_sample(name)
    warned = {pid: [w for w in st.warnings if "unresolved refs" in w] for pid, st in result.state.phases.items()}
    assert {pid: w for pid, w in warned.items() if w} == {}
