"""Engine events are folded in steps and shown in batches while a run goes (tui/main_screen.py,
README "Large flows"): what every tab, the tree and the log show at the end is what they show
when the same events are folded and shown one at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.engine.state import RunState
from tftui.tui import main_screen
from tftui.tui.app import TftuiApp
from tftui.tui.widgets.phase_detail import TABS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


def _seen(app: TftuiApp) -> dict[str, object]:
    """Every tab's text for every phase, every tree label and the log's event lines."""
    main = app.main
    tree, detail = main.dag, main.detail
    tabs: dict[tuple[str, str], str] = {}
    for pid in tree.phase_ids():
        tree.select_phase(pid)
        main.show_selected()
        for tab in TABS:
            tabs[(pid, tab)] = detail.text(tab)
    labels = {pid: [node.label.plain for node in nodes] for pid, nodes in tree._phase_nodes.items()}
    log = [entry.text for entry in main.event_log.entries if entry.kind != "note"]
    return {"tabs": tabs, "labels": labels, "log": log, "header": str(main.run_header.render())}


@pytest.mark.parametrize(("flow", "steps"), [("map_reduce", "small-steps"), ("gate_block", "whole-batches")])
async def test_batched_folding_shows_what_one_at_a_time_folding_shows(
    h, flow: str, steps: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if steps == "small-steps":  # a step folds two events; what they changed shows after each
        monkeypatch.setattr(main_screen, "FOLD_CHUNK", 2)
        monkeypatch.setattr(main_screen, "FOLD_STEP_S", 0.0)
        monkeypatch.setattr(main_screen, "SHOW_EVERY_S", 0.0)
    else:  # everything queued is folded in one step and shown once
        monkeypatch.setattr(main_screen, "FOLD_STEP_S", 60.0)
        monkeypatch.setattr(main_screen, "SHOW_EVERY_S", 60.0)
    app = h.make_app(SAMPLES / f"{flow}.json")
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        events: list = []  # every event the views were fed, in order
        feed = main.trace_tab.feed
        monkeypatch.setattr(main.trace_tab, "feed", lambda batch: (events.extend(batch), feed(batch)))
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        monkeypatch.setattr(main.trace_tab, "feed", feed)
        assert len(events) > 10
        batched = _seen(app)
        # the same events again, from nothing, folded and shown one at a time (as a replay's
        # step does): a fresh state and views
        main.set_state(RunState(flow_name=app.flow.name))
        main.event_log.reset()
        main.gate_tools.reset()
        main.trace_tab.restart([])
        for event in events:
            main.apply_events([event])
        one_by_one = _seen(app)
    assert batched["log"] == one_by_one["log"]
    assert batched["labels"] == one_by_one["labels"]
    assert batched["header"] == one_by_one["header"]
    assert batched["tabs"] == one_by_one["tabs"]
