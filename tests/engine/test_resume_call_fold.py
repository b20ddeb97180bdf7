"""The fold counts a call a resume answered from the journal once (AgentReturned.resumed):
its call and its spend were counted when the interrupted process made it (docs/inputs.md §3)."""

from __future__ import annotations

import json

from tftui import present
from tftui.engine import events as ev
from tftui.engine.journal import decode_events
from tftui.engine.jsonl import encode_line
from tftui.engine.state import fold


def _run() -> list[ev.Event]:
    """A CLI agent's map (no usage reported): item 0 answered, the run killed in item 1's call;
    the resume replays item 0's answer from the journal and sends item 1's call again."""
    start = {"phase_ids": ["m"], "phase_types": {"m": "map"}, "reports_usage": False, "reports_cost": False}
    events = [
        ev.RunStarted(run_id="r", **start),
        ev.PhaseStarted(phase_id="m", phase_type="map"),
        ev.AttemptStarted(phase_id="m", node_path="m#item-0"),
        ev.AgentReturned(phase_id="m", node_path="m#item-0", output="zero"),
        ev.AttemptStarted(phase_id="m", node_path="m#item-1"),  # killed here, mid-call
        ev.RunStarted(run_id="r", resumed=True, **start),
        ev.PhaseStarted(phase_id="m", phase_type="map"),
        ev.AttemptStarted(phase_id="m", node_path="m#item-0"),
        ev.AgentReturned(phase_id="m", node_path="m#item-0", output="zero", resumed=True),
        ev.AttemptStarted(phase_id="m", node_path="m#item-1"),
        ev.AgentReturned(phase_id="m", node_path="m#item-1", output="one"),
    ]
    for seq, e in enumerate(events, 1):
        e.seq, e.ts = seq, float(seq)
    return events


def test_a_replayed_answer_is_no_new_call_and_no_new_spend() -> None:
    # through the journal's own line writer and reader, as `tftui runs` and `replay` see it
    lines = [encode_line(e) for e in _run()]
    assert '"resumed":true' in lines[8] and '"resumed":false' in lines[3]
    events, problems = decode_events([json.loads(line) for line in lines])
    assert not problems
    state = fold(events)
    assert present.run_calls(state) == 3  # item 0, item 1 (cut), item 1 again; not item 0's replay
    assert present.untracked_calls(state.usage) == 2  # two answers of unknown tokens, not three
    assert [a.output for a in state.phases["m"].attempt_log] == ["zero", "one"]  # the row shows the replay
