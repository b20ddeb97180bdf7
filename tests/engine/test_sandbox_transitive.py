"""Generated flows are sandboxed transitively (docs/trust.md §2, docs/language.md §2.5, issue 17 fault 1).

A model's `def` may `use` a saved flow; that saved flow (and every saved flow it reaches)
must keep the generated-flow rules, or the phase fails naming the chain, before anything runs.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

TIMEOUT = 20  # a guard against hangs, not a timing assertion


def _save(folder: Path, name: str, phases: list, **top) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"name": name, "phases": phases, **top}), encoding="utf-8")


def _touchit(folder: Path) -> None:
    _save(folder, "touchit", [{"id": "t", "type": "script", "run": ["touch", "{args.path}"]}], args={"path": {}})


def planner_flow() -> Flow:
    """The issue's planner: a model answers with a definition that the next phase runs."""
    return Flow.model_validate({
        "name": "planner",
        "concurrency": 1,
        "phases": [
            {"id": "plan", "task": "plan the work"},
            {"id": "run", "type": "flow", "def": "{steps.plan.output}", "dependsOn": ["plan"]},
        ],
    })


async def _run(f: Flow, replies: dict, flow_path: Path):
    runner = ScriptedRunner(replies)
    result = await asyncio.wait_for(
        run_flow(f, runner=runner, clock=InstantClock(), flow_path=str(flow_path), keep_events=True), TIMEOUT
    )
    return result, runner


async def test_a_model_chosen_use_of_a_script_flow_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    _touchit(tmp_path / "flows")
    target = tmp_path / "created-by-the-model"
    reply = json.dumps({"phases": [{"id": "u", "type": "flow", "use": "touchit", "with": {"path": str(target)}}]})
    result, _ = await _run(planner_flow(), {"plan": reply}, tmp_path / "planner.json")
    assert not target.exists()
    phase = result.phases["run"]
    assert phase.status == "failed" and result.status == "failed"
    assert "saved flow 'touchit' refused inside a generated flow" in phase.error
    assert "(planner -> run (def) -> touchit)" in phase.error  # the chain, from the top flow down
    assert "script phases are not allowed in a generated flow" in phase.error


async def test_the_rules_hold_for_every_saved_flow_reached_and_nothing_of_it_runs(tmp_path: Path) -> None:
    _touchit(tmp_path / "flows")
    target = tmp_path / "created-two-levels-down"
    _save(
        tmp_path / "flows", "wrapper",
        [{"id": "hello", "task": "harmless"},
         {"id": "w", "type": "flow", "use": "touchit", "with": {"path": "{args.path}"}, "dependsOn": ["hello"]}],
        args={"path": {}},
    )
    reply = json.dumps([{"id": "u", "type": "flow", "use": "wrapper", "with": {"path": str(target)}}])
    result, runner = await _run(planner_flow(), {"plan": reply}, tmp_path / "planner.json")
    assert not target.exists()
    assert "(planner -> run (def) -> wrapper -> touchit)" in result.phases["run"].error
    assert [call.node_path for call in runner.calls] == ["plan"]  # the wrapper's own phase never ran


async def test_a_saved_flow_with_a_regex_scorer_is_refused_from_a_generated_flow(tmp_path: Path) -> None:
    scorer = {"type": "regex", "pattern": "^(\\w+\\s?)+$"}
    _save(tmp_path / "flows", "checker", [{"id": "g", "type": "gate", "score": {"target": "x", "scorers": [scorer]}}])
    reply = json.dumps([{"id": "u", "type": "flow", "use": "checker"}])
    result, _ = await _run(planner_flow(), {"plan": reply}, tmp_path / "planner.json")
    assert "phase 'g': 'regex' scorers are not allowed in a generated flow" in result.phases["run"].error


async def test_a_clean_saved_flow_runs_from_a_generated_flow_under_the_caps(tmp_path: Path) -> None:
    items = list(range(250))
    _save(tmp_path / "flows", "fanout", [{"id": "m", "type": "map", "over": json.dumps(items), "task": "item {item}"}])
    reply = json.dumps([{"id": "u", "type": "flow", "use": "fanout"}])
    replies = {"plan": reply, **{f"run/u/m#item-{i}": f"r{i}" for i in items}}
    result, runner = await _run(planner_flow(), replies, tmp_path / "planner.json")
    assert result.phases["run"].status == "done", result.phases["run"].error
    item_calls = [call for call in runner.calls if "#item-" in call.node_path]
    assert len(item_calls) == 200  # the map cap of generated flows holds inside the saved flow too


async def test_the_flow_author_may_still_use_a_script_flow_directly(tmp_path: Path) -> None:
    _touchit(tmp_path / "flows")
    target = tmp_path / "created-by-the-author"
    f = Flow.model_validate({
        "name": "author",
        "phases": [{"id": "u", "type": "flow", "use": "touchit", "with": {"path": str(target)}}],
    })
    result, _ = await _run(f, {}, tmp_path / "author.json")
    assert result.phases["u"].status == "done", result.phases["u"].error
    assert target.exists()
