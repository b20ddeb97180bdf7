"""A catastrophic pattern typed into the what-if form (docs/trust.md §3): the match has the run's
budget and runs in a worker thread, so the dialog keeps answering ("checking…") and then says the
budget was hit, in the words a run uses (issue 15)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from textual.widgets import Input

from tftui.agents.scripted import ScriptedRunner
from tftui.lang.jsregex import default_budget, set_default_budget
from tftui.tui.screens.whatif import CHECKING, WhatIfScreen
from tftui.tui.widgets.dag_tree import DagTree


def _matching() -> bool:
    return any(t.name == "tftui-whatif" and t.is_alive() for t in threading.enumerate())


async def test_a_catastrophic_what_if_pattern_hits_the_budget_without_blocking(h, tmp_path: Path) -> None:
    flow = tmp_path / "redos.json"
    flow.write_text(json.dumps({"name": "redos", "phases": [
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "regex", "pattern": "a", "name": "as"}]}},
    ]}))
    before = default_budget()
    set_default_budget(0.3)
    try:
        app = h.make_app(flow, runner=ScriptedRunner({"gen": "a" * 48 + "!"}))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("c")
            await h.run_to_end(pilot, app)
            app.query_one(DagTree).select_phase("g")
            await pilot.pause()
            await pilot.press("w")
            await h.settle(pilot, lambda: isinstance(app.screen, WhatIfScreen))
            screen = app.screen
            assert not screen.checking
            screen.query_one("#wi-s0-pattern", Input).value = "^(a|a)*$"
            for _ in range(100):  # (not h.settle: its idle wait would sit out the busy worker thread)
                await pilot.pause(0.01)
                if screen.checking:
                    break
            shown = str(screen.query_one("#whatif-result").render())
            assert _matching() and shown == CHECKING  # the dialog answers while the match runs
            await h.settle(pilot, lambda: not screen.checking, limit=3000)
            shown = " ".join(str(screen.query_one("#whatif-result").render()).split())
            assert "as: regex timed out after 300ms (catastrophic backtracking?): /^(a|a)*$/" in shown, shown
            assert "after: BLOCK (score)" in shown, shown
    finally:
        set_default_budget(before)
