"""A ReDoS gate in the debugger (docs/trust.md §3, issue 17 fault 2): while the regex scorer is
matching, the debugger answers keys; the gate then blocks with the budget's detail."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.lang.jsregex import default_budget, set_default_budget
from tftui.scoring import scorers
from tftui.tui.screens.modals import HelpScreen

BUDGET_S = 0.3  # the budget every real match below gets ([limits] regex_budget_ms = 300)


def _matching() -> bool:
    return any(t.name == "tftui-regex" for t in threading.enumerate())


async def _until(pilot, predicate, limit: int = 3000) -> None:
    """h.settle without its idle waits: with the worker thread busy the process is never idle,
    so each of Textual's idle waits (in pilot.press and pilot.pause()) would last its 1 s cap."""
    for _ in range(limit):
        await pilot.pause(0.01)
        if predicate():
            return
    raise AssertionError("the app did not reach the expected state")


def _key(app, key: str, char: str | None = None) -> None:
    """A key as the terminal delivers it (pilot.press would then wait for an idle process)."""
    from textual import events

    app.post_message(events.Key(key, char))


async def test_the_debugger_answers_keys_while_a_redos_gate_runs(h, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    flow = tmp_path / "redos.json"
    flow.write_text(json.dumps({"name": "redos", "phases": [
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "regex", "pattern": "^(a|a)*$"}]}},
    ]}))
    # The worker thread's match is the real catastrophic backtrack, cut at the budget, started
    # again until the test has opened and closed the help screen: the keys are answered while a
    # real match holds the thread, on a loaded machine too, without a budget of many seconds.
    done_with_keys = threading.Event()
    real_search = scorers.search_within

    def search_until_the_keys_are_done(compiled, text: str, budget_s: float, *, offload: bool = False) -> bool:
        if not offload:  # the short try in place, on the event loop
            return real_search(compiled, text, budget_s, offload=offload)
        while True:
            try:
                return real_search(compiled, text, budget_s, offload=True)
            except TimeoutError:
                if done_with_keys.is_set():
                    raise

    monkeypatch.setattr(scorers, "search_within", search_until_the_keys_are_done)
    before = default_budget()
    set_default_budget(BUDGET_S)
    try:
        app = h.make_app(flow, runner=ScriptedRunner({"gen": "a" * 48 + "!"}))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("c")
            await _until(pilot, _matching)
            _key(app, "question_mark", "?")  # the help screen opens while the match runs
            await _until(pilot, lambda: isinstance(app.screen, HelpScreen))
            assert _matching()
            _key(app, "escape")
            await _until(pilot, lambda: not isinstance(app.screen, HelpScreen))
            assert app.last_result is None  # the gate is still matching
            done_with_keys.set()
            await h.settle(pilot, lambda: app.last_result is not None and not app.ctl.running, limit=3000)
            gate = app.state.phases["g"].gate
            assert app.state.status == "blocked"
            assert "regex timed out after 300ms" in json.dumps(gate, default=str)
    finally:
        done_with_keys.set()
        set_default_budget(before)
