"""P2 phase types (SPEC §2.4, §8.7, §8.8): flow (use/def), race, expand (nested and graft)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.debugger import Debugger
from tftui.engine.journal import Journal, decode_events, read_journal
from tftui.engine.run import run_flow
from tftui.engine.state import fold
from tftui.engine.subflow_def import StackEntry, child_budget, cycle_text, definition_of, nesting_depth
from tftui.flow.model import Budget, Flow

TIMEOUT = 10  # a guard against hangs, not a timing assertion


def flow(*phases, **top):
    return Flow.model_validate({"name": "t", "concurrency": 1, "phases": list(phases), **top})


async def scripted(f, replies, **kw):
    runner = ScriptedRunner(replies)
    result = await asyncio.wait_for(run_flow(f, runner=runner, clock=InstantClock(), keep_events=True, **kw), TIMEOUT)
    return result, runner


# ── flow: use ────────────────────────────────────────────────────────────────────────


def _save(folder: Path, name: str, phases: list, **top) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"name": name, "phases": phases, **top}), encoding="utf-8")


async def test_use_finds_flows_beside_then_in_the_user_config(tmp_path, monkeypatch):
    config = tmp_path / "cfg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    _save(tmp_path / "proj" / "flows", "local", [{"id": "l", "task": "local {args.topic}"}], args={"topic": {}})
    _save(config / "tftui" / "flows", "shared", [{"id": "s", "task": "shared"}])
    _save(config / "tftui" / "flows", "local", [{"id": "never", "task": "shadowed"}])
    f = flow({"id": "a", "type": "flow", "use": "local", "with": {"topic": "cats"}},
             {"id": "b", "type": "flow", "use": "shared"},
             {"id": "c", "type": "flow", "use": "missing"},
             {"id": "d", "type": "flow", "use": "../escape"})
    result, runner = await scripted(f, {"a/l": "L", "b/s": "S"}, flow_path=str(tmp_path / "proj" / "main.json"))
    assert (result.phases["a"].output, result.phases["b"].output) == ("L", "S")
    assert [r.task for r in runner.calls if r.node_path == "a/l"] == ["local cats"]
    missing = result.phases["c"].error
    assert missing.startswith("Phase 'c': saved flow 'missing' not found (looked in ")
    assert str(tmp_path / "proj" / "flows") in missing and str(config / "tftui" / "flows") in missing
    assert "must be a plain name" in result.phases["d"].error
    assert result.status == "failed"


async def test_recursive_use_is_refused_naming_the_cycle(tmp_path):
    _save(tmp_path / "flows", "summarize", [{"id": "again", "type": "flow", "use": "research"}])
    _save(tmp_path / "flows", "research", [{"id": "go", "type": "flow", "use": "summarize"}])
    top = {"name": "research", "phases": [{"id": "go", "type": "flow", "use": "summarize"}]}
    (tmp_path / "research.json").write_text(json.dumps(top), encoding="utf-8")
    result, _ = await scripted(Flow.model_validate(top), {}, flow_path=str(tmp_path / "research.json"))
    go = result.phases["go"]
    assert str(go.status) == "failed"
    refusal = "Phase 'again': recursive use of flow 'research' refused: research -> summarize -> research"
    assert go.sub.phases["again"].error == refusal  # the nested state, folded from SubflowEvents
    assert refusal in go.error


def test_cycle_text_by_path_or_name():
    stack = [StackEntry("/x/main.json", "main"), StackEntry("/x/flows/a.json", "a")]
    assert cycle_text(stack, "/x/flows/a.json", "a") == "a -> a"
    assert cycle_text(stack, "/y/main.json", "main") == "main -> a -> main"
    assert cycle_text(stack, "/x/flows/b.json", "b") is None


# ── flow: def ────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("planner_reply", "name"),
    [
        ('Here you go:\n```json\n{"name": "gen", "phases": [{"id": "s", "task": "step {args.n}"}]}\n```', "gen"),
        ('[{"id": "s", "task": "step {args.n}"}]', "run"),
        ('{"phases": [{"id": "s", "task": "step {args.n}"}]}', "run"),
    ],
)
async def test_generated_def_forms(planner_reply, name):
    f = flow({"id": "plan", "task": "plan"},
             {"id": "run", "type": "flow", "def": "{steps.plan.output}", "with": {"n": "{steps.count.json}"},
              "dependsOn": ["plan", "count"]},
             {"id": "count", "task": "count", "output": "json"})
    result, runner = await scripted(f, {"plan": planner_reply, "count": "3", "run/s": "done"})
    state = result.phases["run"]
    assert (str(state.status), state.output, state.def_error) == ("done", "done", None)
    assert state.extra["subflow"]["flow"] == name
    assert [r.task for r in runner.calls if r.node_path == "run/s"] == ["step 3"]


async def test_with_exact_placeholders_keep_their_type():
    child = {"name": "c", "args": {"cfg": {}}, "phases": [
        {"id": "s", "task": "{args.cfg.k}", "when": "{args.cfg.n} > 2"}]}
    f = flow({"id": "src", "task": "src", "output": "json"},
             {"id": "sub", "type": "flow", "def": child, "with": {"cfg": "{steps.src.json}"}, "dependsOn": ["src"]})
    result, runner = await scripted(f, {"src": '{"k": "deep", "n": 5}', "sub/s": "ok"})
    assert result.phases["sub"].output == "ok"
    assert [r.task for r in runner.calls if r.node_path == "sub/s"] == ["deep"]


def _nested_def(levels: int) -> dict:
    inner: dict = {"name": "leaf", "phases": [{"id": "leaf", "task": "leaf"}]}
    for _ in range(levels - 1):
        inner = {"name": "n", "phases": [{"id": "n", "type": "flow", "def": inner}]}
    return inner


HARDENING = [
    ("phases", {"name": "g", "phases": [{"id": f"p{i}", "task": "x"} for i in range(101)]},
     "def has 101 phases (a generated flow allows at most 100)"),
    ("flow concurrency", {"name": "g", "concurrency": 17, "phases": [{"id": "a", "task": "x"}]},
     "def concurrency 17 exceeds the generated-flow limit of 16"),
    ("phase concurrency", {"name": "g", "phases": [{"id": "a", "type": "parallel", "concurrency": 32,
                                                    "branches": [{"task": "x"}]}]},
     "phase 'a': concurrency 32 exceeds the generated-flow limit of 16"),
    ("nesting", _nested_def(6), "def nests sub-flows 6 levels deep (at most 5)"),
    ("script", {"name": "g", "phases": [{"id": "s", "type": "script", "run": ["echo", "hi"]}]},
     "phase 's': script phases are not allowed in a generated flow"),
    ("code-compiles", {"name": "g", "phases": [{"id": "q", "type": "gate", "score": {
        "scorers": [{"type": "code-compiles", "language": "python"}]}}]},
     "phase 'q': 'code-compiles' scorers are not allowed in a generated flow"),
    ("regex", {"name": "g", "phases": [{"id": "q", "type": "gate", "score": {
        "scorers": [{"type": "regex", "pattern": "x"}]}}]},
     "phase 'q': 'regex' scorers are not allowed in a generated flow"),
    ("cwd", {"name": "g", "phases": [{"id": "a", "task": "x", "cwd": "/tmp"}]},
     "phase 'a': 'cwd' is not allowed in a generated flow"),
    ("branch cwd", {"name": "g", "phases": [{"id": "a", "type": "parallel", "branches": [{"task": "x", "cwd": "/"}]}]},
     "phase 'a': 'cwd' is not allowed in a generated flow"),
    ("context", {"name": "g", "phases": [{"id": "a", "task": "x", "context": ["README.md"]}]},
     "phase 'a': 'context' pre-reads are not allowed in a generated flow"),
    ("not json", "no plan today", "def is not valid JSON"),
    ("not a flow", '{"steps": []}', 'def must be a flow definition: {"phases": [...]} or a bare array of phases'),
]


@pytest.mark.parametrize(("limit", "definition", "message"), HARDENING, ids=[h[0] for h in HARDENING])
async def test_generated_def_breaking_a_hardening_limit_is_a_def_error(limit, definition, message):
    reply = definition if isinstance(definition, str) else json.dumps(definition)
    f = flow({"id": "plan", "task": "plan"},
             {"id": "run", "type": "flow", "def": "{steps.plan.output}", "dependsOn": ["plan"]},
             {"id": "after", "task": "after {steps.run.output}", "dependsOn": ["run"]})
    result, runner = await scripted(f, {"plan": reply, "after": "fine"})
    state = result.phases["run"]
    assert (str(state.status), state.output, state.def_error) == ("done", "", message)
    assert not [r for r in runner.calls if r.node_path.startswith("run/")]  # nothing of the def ran
    assert result.phases["after"].output == "fine" and result.status == "completed"
    finished = [e for e in result.events if isinstance(e, ev.PhaseFinished) and e.phase_id == "run"]
    assert finished[-1].extra["defError"] == message


async def test_generated_map_is_capped_at_200_items_with_a_warning():
    gen = {"name": "g", "args": {"items": {"default": list(range(250))}},
           "phases": [{"id": "m", "type": "map", "over": "{args.items}", "task": "[{item}]"}]}
    f = flow({"id": "plan", "task": "plan"},
             {"id": "run", "type": "flow", "def": "{steps.plan.output}", "dependsOn": ["plan"]})
    replies = {"plan": json.dumps(gen), **{f"run/m#item-{i}": str(i) for i in range(250)}}
    result, runner = await scripted(f, replies)
    assert len([r for r in runner.calls if r.node_path.startswith("run/m#")]) == 200
    inner = result.phases["run"].sub.phases["m"]
    assert inner.warnings == ["map: 'over' has 250 items; a generated flow runs at most 200 (the rest dropped)"]
    assert nesting_depth(_nested_def(3)) == 3


def test_definition_forms_and_budget_minimum():
    assert definition_of('[{"id": "a"}]', "p") == ({"name": "p", "phases": [{"id": "a"}]}, None)
    assert definition_of({"name": "x", "phases": []}, "p")[0]["name"] == "x"
    assert definition_of(42, "p")[0] is None
    parent = Budget(maxUSD=1.0, maxTokens=500)
    inline = child_budget(Budget(maxTokens=1000, maxUSD=0.5), parent, inline=True)
    assert (inline.max_usd, inline.max_tokens) == (0.5, 500)
    assert child_budget(None, parent, inline=True).max_tokens == 500
    saved = child_budget(Budget(maxTokens=1000), parent, inline=False)
    assert (saved.max_usd, saved.max_tokens) == (None, 1000)  # a saved flow keeps its own
    assert child_budget(None, parent, inline=False).max_usd == 1.0  # … or inherits the parent's
    assert child_budget(Budget(maxTokens=9), None, inline=True).max_tokens == 9


async def test_inline_def_runs_under_the_parents_budget():
    child = {"name": "c", "budget": {"maxTokens": 10000},
             "phases": [{"id": "a", "task": "a"}, {"id": "b", "task": "b", "dependsOn": ["a"]},
                        {"id": "c", "task": "c", "dependsOn": ["b"]}]}
    f = flow({"id": "sub", "type": "flow", "def": child}, budget={"maxTokens": 50})
    usage = {"input": 20, "output": 10}
    result, runner = await scripted(f, {"sub/a": {"output": "A", "usage": usage}, "sub/b": {"output": "B", "usage": usage},
                                        "sub/c": {"output": "C", "usage": usage}})
    inner = result.phases["sub"].sub.phases
    assert str(inner["c"].status) == "skipped" and inner["c"].error == "Budget exceeded: tokens 60 exceeded cap 50"
    assert [r.node_path for r in runner.calls] == ["sub/a", "sub/b"]


# ── nested events, journal, debugger ─────────────────────────────────────────────────


async def test_nested_events_are_journaled_and_fold_back(tmp_path):
    child = {"name": "c", "args": {"items": {"default": ["x", "y"]}},
             "phases": [{"id": "s", "task": "s"}, {"id": "m", "type": "map", "over": "{args.items}",
                                                   "task": "{item}", "dependsOn": ["s"]}]}
    f = flow({"id": "research", "type": "flow", "def": child})
    journal = Journal.create(tmp_path, flow_name="t")
    result, _ = await scripted(f, {"research/s": "S", "research/m#item-0": "X", "research/m#item-1": "Y"},
                               journal=journal)
    journal.close()
    rows, _, warnings = read_journal(journal.run_dir)
    assert not warnings
    kinds = [(r["kind"], r.get("event", {}).get("kind"), r.get("event", {}).get("phase_id")) for r in rows]
    assert ("subflow_event", "phase_finished", "m") in kinds
    nodes = [r["node_path"] for r in rows if r["kind"] == "attempt_started"]
    assert nodes == ["research/s", "research/m#item-0", "research/m#item-1"]
    events, _ = decode_events(rows)
    replayed = fold(events).phases["research"]
    live = result.phases["research"]
    assert replayed.sub.phases["m"].output == live.sub.phases["m"].output == live.output
    assert {pid: str(p.status) for pid, p in replayed.sub.phases.items()} == {"s": "done", "m": "done"}


async def test_debugger_pauses_inside_a_sub_flow():
    child = {"name": "c", "phases": [{"id": "s", "task": "s"}, {"id": "t", "task": "t", "dependsOn": ["s"]}]}
    f = flow({"id": "research", "type": "flow", "def": child})
    dbg = Debugger()
    dbg.set_breakpoint("research/t")
    task = asyncio.ensure_future(run_flow(f, runner=ScriptedRunner({"research/s": "S", "research/t": "T"}),
                                          debugger=dbg, clock=InstantClock(), keep_events=True))
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("before-phase", "research/t", "breakpoint")
    assert dbg.run.state.phases["research"].sub.phases["s"].output == "S"  # the child's progress is visible
    dbg.step()
    attempt = await dbg.wait_paused(TIMEOUT)
    assert (attempt.point, attempt.phase_id, attempt.node_path) == ("before-attempt", "research/t", "research/t")
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "completed" and result.phases["research"].output == "T"


# ── expand ───────────────────────────────────────────────────────────────────────────


async def test_expand_graft_promotes_children_to_top_level_phases():
    fragment = {"name": "frag", "args": {"items": {"default": ["p", "q"]}}, "phases": [
        {"id": "a", "task": "a"},
        {"id": "b", "type": "map", "over": "{args.items}", "task": "{item}", "dependsOn": ["a"]},
        {"id": "skip", "task": "never", "when": "{steps.a.output} == nope", "dependsOn": ["a"]},
        {"id": "c", "task": "c {steps.b.output}", "dependsOn": ["b"], "final": True}]}
    f = flow({"id": "x", "type": "expand", "expandMode": "graft", "def": fragment},
             {"id": "after", "task": "after {steps.x-a.output}", "dependsOn": ["x"]})
    replies = {"x-a": "A", "x-b#item-0": "P", "x-b#item-1": "Q", "x-c": "C", "after": "ok"}
    result, runner = await scripted(f, replies)
    phases = result.phases
    assert {pid: str(phases[pid].status) for pid in ("x", "x-a", "x-b", "x-skip", "x-c")} == {
        "x": "done", "x-a": "done", "x-b": "done", "x-skip": "skipped", "x-c": "done"}
    assert (phases["x-a"].type, phases["x-b"].type) == ("agent", "map")
    assert phases["x"].output == "C" and phases["x"].extra["subflow"]["grafted"] == ["x-a", "x-b", "x-skip", "x-c"]
    assert {a.node_path for a in phases["x-b"].attempt_log} == {"x-b#item-0", "x-b#item-1"}
    assert [r.task for r in runner.calls if r.node_path == "after"] == ["after A"]
    assert phases["x"].sub is None  # graft re-emits child events as phases, nothing is wrapped
    assert not any(isinstance(e, ev.SubflowEvent) for e in result.events)


async def test_expand_nested_and_max_nodes():
    fragment = {"name": "frag", "phases": [{"id": "a", "task": "a"}, {"id": "b", "task": "b", "dependsOn": ["a"]}]}
    f = flow({"id": "x", "type": "expand", "def": fragment},
             {"id": "y", "type": "expand", "def": fragment, "maxNodes": 1})
    result, _ = await scripted(f, {"x/a": "A", "x/b": "B"})
    assert result.phases["x"].output == "B" and set(result.phases["x"].sub.phases) == {"a", "b"}
    assert result.phases["y"].def_error == "def has 2 phases (maxNodes is 1)"
    assert "x-a" not in result.phases


# ── race ─────────────────────────────────────────────────────────────────────────────


def _race(**extra):
    return flow({"id": "r", "type": "race", "branches": [{"task": "one"}, {"task": "two"}, {"task": "three"}],
                 **extra})


async def test_race_fast_failure_loses_to_slow_success_and_the_third_is_cancelled():
    replies = {"r#branch-0": {"error": "400 bad request", "exitCode": 1},
               "r#branch-1": {"output": "two", "delayMs": 30, "usage": {"input": 1, "output": 2}},
               "r#branch-2": {"output": "three", "delayMs": 5000}}
    result, _ = await scripted(_race(), replies)
    state = result.phases["r"]
    assert (str(state.status), state.output) == ("done", "two")
    assert state.warnings == ["race: branch 2/3 won (first success)",
                              "race: cancelLosers aborted 2 loser branch(es) (best-effort AbortSignal)"]
    last = {a.node_path: a for a in state.attempt_log}
    assert (last["r#branch-0"].status, last["r#branch-2"].why) == ("failed", "aborted")
    assert state.usage["input"] == 1 and state.usage["output"] == 2


async def test_race_keeps_losers_when_asked_and_counts_their_usage():
    replies = {"r#branch-0": {"output": "one", "delayMs": 5, "usage": {"input": 1, "output": 1}},
               "r#branch-1": {"output": "two", "delayMs": 40, "usage": {"input": 10, "output": 10}},
               "r#branch-2": {"error": "boom", "exitCode": 1, "delayMs": 20, "usage": {"input": 100, "output": 0}}}
    result, _ = await scripted(_race(cancelLosers=False, output="json"), {**replies, "r#branch-0": {
        "output": '{"v": 1}', "delayMs": 5, "usage": {"input": 1, "output": 1}}})
    state = result.phases["r"]
    assert state.output == '{"v": 1}' and state.json == {"v": 1}
    assert state.warnings == ["race: branch 1/3 won (first success)"]
    assert {a.node_path: a.status for a in state.attempt_log} == {
        "r#branch-0": "ok", "r#branch-1": "ok", "r#branch-2": "failed"}
    assert (state.usage["input"], state.usage["output"]) == (111, 11)


async def test_race_all_failed():
    replies = {f"r#branch-{i}": {"error": f"e{i}", "exitCode": 1} for i in range(3)}
    result, _ = await scripted(_race(), replies)
    state = result.phases["r"]
    assert str(state.status) == "failed"
    assert state.error == "race phase 'r': all 3 branches failed: e0; e1; e2"
    assert result.status == "failed"


async def test_resume_after_a_graft_keeps_the_grafted_outputs():
    fragment = {"name": "frag", "phases": [{"id": "a", "task": "a"}]}
    f = flow({"id": "x", "type": "expand", "expandMode": "graft", "def": fragment},
             {"id": "after", "task": "after {steps.x-a.output}", "dependsOn": ["x"]})
    first, _ = await scripted(f, {"x-a": "A", "after": "ok"})
    cut = next(i for i, e in enumerate(first.events) if isinstance(e, ev.PhaseFinished) and e.phase_id == "x")
    state = fold(first.events[: cut + 1])  # the run stopped right after the expand phase
    again, runner = await scripted(f, {"after": "ok"}, resume_state=state)
    assert [r.node_path for r in runner.calls] == ["after"]  # the grafted child is not re-run
    assert [r.task for r in runner.calls] == ["after A"]


async def test_a_saved_flow_over_the_size_limit_fails_the_phase_cleanly(tmp_path, monkeypatch):
    """Issue 17, fault 7: `use` reads a saved flow as every flow is read (a regular file, bounded)."""
    import tftui.flow.load as load

    _save(tmp_path / "flows", "big", [{"id": "s", "task": "x" * 4000}])
    monkeypatch.setattr(load, "MAX_FLOW_BYTES", 1024)
    f = flow({"id": "a", "type": "flow", "use": "big"})
    result, _ = await scripted(f, {}, flow_path=str(tmp_path / "main.json"))
    assert str(result.phases["a"].status) == "failed"
    assert "saved flow 'big' is invalid: cannot read file: the file is larger than" in result.phases["a"].error
