"""A ReDoS gate in the debugger (docs/trust.md §3, issue 17 fault 2): while the regex scorer is
matching, the debugger answers keys; the gate then blocks with the budget's detail."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from tftui.agents.scripted import ScriptedRunner
from tftui.lang.jsregex import default_budget, set_default_budget
from tftui.tui.screens.modals import HelpScreen


def _matching() -> bool:
    return any(t.name == "tftui-regex" for t in threading.enumerate())


async def test_the_debugger_answers_keys_while_a_redos_gate_runs(h, tmp_path: Path) -> None:
    flow = tmp_path / "redos.json"
    flow.write_text(json.dumps({"name": "redos", "phases": [
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "regex", "pattern": "^(a|a)*$"}]}},
    ]}))
    before = default_budget()
    set_default_budget(10.0)  # room for a loaded machine to open the help screen meanwhile
    try:
        app = h.make_app(flow, runner=ScriptedRunner({"gen": "a" * 48 + "!"}))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("c")
            await h.settle(pilot, _matching, limit=3000)
            await pilot.press("?")  # the help screen opens while the match runs
            await h.settle(pilot, lambda: isinstance(app.screen, HelpScreen))
            assert _matching()
            await pilot.press("escape")
            await h.settle(pilot, lambda: not isinstance(app.screen, HelpScreen))
            assert app.last_result is None  # the gate is still matching
            await h.settle(pilot, lambda: app.last_result is not None and not app.ctl.running, limit=10000)
            gate = app.state.phases["g"].gate
            assert app.state.status == "blocked"
            assert "regex timed out after 10000ms" in json.dumps(gate, default=str)
    finally:
        set_default_budget(before)
