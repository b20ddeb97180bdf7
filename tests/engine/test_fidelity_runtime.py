"""Runtime behaviours that now match taskflow 0.2.4 (issue 14): tree reduce, a script that cannot
start, fan-out headers naming the agent that ran, the expand fragment cap, an empty inline def,
the reflexion first iteration, a failed tournament variant in the judge prompt."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tftui.agent_types import AgentRequest, AgentResult
from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

TIMEOUT = 10  # a guard against hangs, not a timing assertion


def flow(*phases, **top):
    return Flow.model_validate({"name": "t", "concurrency": 1, "phases": list(phases), **top})


async def scripted(f, replies, **kw):
    runner = ScriptedRunner(replies)
    result = await asyncio.wait_for(run_flow(f, runner=runner, clock=InstantClock(), **kw), TIMEOUT)
    return result, runner


def _inputs(n: int) -> list[dict]:
    return [{"id": f"s{i}", "task": f"source {i}"} for i in range(1, n + 1)]


# ── reduceStrategy: "tree" ────────────────────────────────────────────────────────────


async def test_tree_reduce_batches_rounds_until_one_answer():
    f = flow(*_inputs(5), {"id": "sum", "type": "reduce", "from": [f"s{i}" for i in range(1, 6)],
                          "reduceStrategy": "tree", "batchSize": 2, "task": "merge:\n{previous.output}"})
    replies = {f"s{i}": f"out{i}" for i in range(1, 6)}
    replies["sum"] = ["A", "B", "C", "D", "E", "FINAL"]
    result, runner = await scripted(f, replies)
    prompts = [r.task for r in runner.calls if r.node_path == "sum"]
    # 5 inputs, batches of 2: round 1 makes 3 calls, round 2 two, round 3 one
    assert len(prompts) == 6
    assert prompts[0] == "merge:\n### s1\n\nout1\n\n---\n\n### s2\n\nout2"
    assert prompts[2] == "merge:\nout5"  # a batch of one is the input as it is
    assert prompts[3] == "merge:\n### round-1-batch-1\n\nA\n\n---\n\n### round-1-batch-2\n\nB"
    assert prompts[4] == "merge:\nC"
    assert prompts[5] == "merge:\n### round-2-batch-1\n\nD\n\n---\n\n### round-2-batch-2\n\nE"
    st = result.phases["sum"]
    assert (st.status, st.output, result.final_output) == ("done", "FINAL", "FINAL")
    assert st.attempts == 6


async def test_tree_reduce_default_batch_and_one_shot_fallback():
    # no batchSize: batches of 2; one input done: an ordinary one-shot reduce
    f = flow(*_inputs(3), {"id": "sum", "type": "reduce", "from": ["s1", "s2", "s3"],
                          "reduceStrategy": "tree", "task": "{previous.output}"})
    result, runner = await scripted(f, {"s1": "a", "s2": "b", "s3": "c", "sum": ["x", "y", "z"]})
    assert len([r for r in runner.calls if r.node_path == "sum"]) == 3  # 2 + 1
    assert result.phases["sum"].output == "z"

    one = flow({"id": "s1", "task": "a"}, {"id": "s2", "task": "b"},
               {"id": "sum", "type": "reduce", "from": ["s1", "s2"], "reduceStrategy": "tree",
                "task": "{previous.output}", "dependsOn": ["s1", "s2"]})
    result, runner = await scripted(one, {"s1": "a", "s2": {"error": "boom", "exitCode": 1}, "sum": "only"})
    assert [r.task for r in runner.calls if r.node_path == "sum"] == []  # s2 failed: sum is skipped
    opt = flow({"id": "s1", "task": "a"}, {"id": "s2", "task": "b", "optional": True},
               {"id": "sum", "type": "reduce", "from": ["s1", "s2"], "reduceStrategy": "tree",
                "task": "{previous.output}"})
    result, runner = await scripted(opt, {"s1": "a", "s2": {"error": "boom", "exitCode": 1}, "sum": "only"})
    assert [r.task for r in runner.calls if r.node_path == "sum"] == ["a"]
    assert result.phases["sum"].output == "only"


async def test_tree_reduce_failed_call_fails_the_phase():
    f = flow(*_inputs(4), {"id": "sum", "type": "reduce", "from": ["s1", "s2", "s3", "s4"],
                          "reduceStrategy": "tree", "batchSize": 2, "task": "{previous.output}"})
    replies = {"s1": "a", "s2": "b", "s3": "c", "s4": "d",
               "sum": ["first", {"error": "fixture hard failure: invalid request", "exitCode": 1}]}
    result, runner = await scripted(f, replies)
    st = result.phases["sum"]
    assert st.status == "failed" and st.error == "fixture hard failure: invalid request"
    assert len([r for r in runner.calls if r.node_path == "sum"]) == 2  # no third call after the failure
    assert result.status == "failed"


async def test_tree_reduce_stops_at_the_budget_with_a_partial_output():
    f = flow(*_inputs(4), {"id": "sum", "type": "reduce", "from": ["s1", "s2", "s3", "s4"],
                          "reduceStrategy": "tree", "batchSize": 2, "task": "{previous.output}"},
             budget={"maxTokens": 500})
    usage = {"input": 50, "output": 50}
    replies = {f"s{i}": {"output": f"in{i}", "usage": usage} for i in range(1, 5)}
    replies["sum"] = [{"output": "half", "usage": {"input": 150, "output": 50}}]  # 400 + 200 > 500
    result, runner = await scripted(f, replies)
    st = result.phases["sum"]
    assert len([r for r in runner.calls if r.node_path == "sum"]) == 1
    assert st.status == "done" and st.budget_truncated
    assert st.output == "### round-1-batch-1\n\nhalf\n\n---\n\n### s3\n\nin3\n\n---\n\n### s4\n\nin4"
    assert "tree reduction stopped by the run budget; output is partial" in st.warnings
    assert result.status == "blocked"


# ── script phases ───────────────────────────────────────────────────────────────────


async def test_a_script_that_cannot_start_has_no_output():
    f = flow({"id": "run", "type": "script", "run": ["/nonexistent/tftui-no-such-binary", "x"]})
    result, _ = await scripted(f, {})
    st = result.phases["run"]
    assert st.status == "failed" and st.error.startswith("Script error: ")
    assert st.output is None
    assert result.final_output == "(no output)"  # taskflow: the source has no output


async def test_a_timed_out_script_keeps_what_it_printed(tmp_path: Path):
    code = "import sys, time; print('partial', flush=True); time.sleep(30)"
    f = flow({"id": "slow", "type": "script", "run": [sys.executable, "-c", code], "timeout": 1000})
    result, _ = await scripted(f, {}, flow_path=str(tmp_path / "f.json"))
    st = result.phases["slow"]
    assert st.status == "failed" and st.error == "Script timed out after 1000ms"
    assert st.output == "partial\n"


# ── fan-out headers name the agent that ran ─────────────────────────────────────────


class FallbackRunner:
    """Answers like a runner with an agent library: an unknown agent name runs as `executor`."""

    known = {"executor", "analyst"}

    async def run(self, request: AgentRequest) -> AgentResult:
        ran = None if request.agent in self.known else "executor"
        if request.node_path.endswith("#branch-1"):
            return AgentResult(error="boom", exit_code=1, agent=ran)
        return AgentResult(output=f"by {ran or request.agent}", agent=ran)


async def test_fanout_headers_name_the_fallback_agent():
    f = flow({"id": "p", "type": "parallel", "optional": True, "branches": [
        {"task": "a", "agent": "analyst"}, {"task": "b", "agent": "no-such-agent"}, {"task": "c", "agent": "ghost"}]})
    result = await asyncio.wait_for(run_flow(f, runner=FallbackRunner(), clock=InstantClock()), TIMEOUT)
    st = result.phases["p"]
    assert st.output == ("### [1/3] analyst\n\nby analyst\n\n---\n\n### [2/3] executor (failed)\n\nboom"
                         "\n\n---\n\n### [3/3] executor\n\nby executor")
    assert st.error == "executor: boom"


def test_agent_library_names_the_fallback(tmp_path: Path):
    from tftui.agents.definitions import AgentLibrary

    lib = AgentLibrary(flow_path=str(tmp_path / "flow.json"), env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert lib.fallback_for("no-such-agent") == lib.default_agent
    assert lib.fallback_for(lib.default_agent) is None
    assert lib.fallback_for("default") is None and lib.fallback_for(None) is None


# ── expand: default fragment cap, empty inline def ──────────────────────────────────


def _fragment(n: int) -> str:
    import json

    return json.dumps({"name": "frag", "phases": [{"id": f"g{i}", "task": f"g{i}"} for i in range(n)]})


async def test_expand_fragment_cap_defaults_to_50():
    ok = flow({"id": "plan", "task": "plan"}, {"id": "x", "type": "expand", "def": "{steps.plan.output}",
                                               "dependsOn": ["plan"]})
    answers = {f"x/g{i}": "ok" for i in range(60)}
    result, _ = await scripted(ok, {"plan": _fragment(50), **answers})
    assert result.phases["x"].status == "done" and not result.phases["x"].def_error
    result, runner = await scripted(ok, {"plan": _fragment(51)})
    assert result.phases["x"].def_error == "def has 51 phases (maxNodes is 50)"
    assert [r.node_path for r in runner.calls] == ["plan"]  # nothing of the fragment ran
    wider = flow({"id": "plan", "task": "plan"}, {"id": "x", "type": "expand", "def": "{steps.plan.output}",
                                                  "maxNodes": 60, "dependsOn": ["plan"]})
    result, _ = await scripted(wider, {"plan": _fragment(51), **answers})
    assert result.phases["x"].status == "done" and not result.phases["x"].def_error


async def test_an_empty_inline_def_is_done_without_def_error():
    f = flow({"id": "inner", "type": "flow", "def": {"name": "inner-plan", "budget": {"maxUSD": 5.0}, "phases": []}})
    result, runner = await scripted(f, {})
    st = result.phases["inner"]
    assert (st.status, st.output, st.def_error) == ("done", "", None)
    assert result.status == "completed" and runner.calls == []
    generated = flow({"id": "plan", "task": "plan"},
                     {"id": "inner", "type": "flow", "def": "{steps.plan.output}", "dependsOn": ["plan"]})
    result, _ = await scripted(generated, {"plan": '{"name": "g", "phases": []}'})
    assert result.phases["inner"].def_error  # a generated empty def is still a defError


# ── reflexion: the first iteration ──────────────────────────────────────────────────


async def test_reflexion_without_placeholder_appends_only_from_iteration_2():
    f = flow({"id": "l", "type": "loop", "task": "plain body", "until": "{steps.l.output} == done",
              "maxIterations": 3, "reflexion": True})
    result, runner = await scripted(f, {"l": [{"error": "crash one", "exitCode": 1}, "done"]})
    prompts = [r.task for r in runner.calls if r.node_path == "l"]
    assert prompts[0] == "plain body"  # no sentinel appended on iteration 1
    assert prompts[1].startswith("plain body\n\n---\n\n## Reflexion: iteration 1 (prior)")
    assert "crash one" in prompts[1]
    assert result.phases["l"].status == "done"
    assert any("auto-appended" in w for w in result.phases["l"].warnings)


async def test_reflexion_placeholder_gets_the_sentinel_on_iteration_1():
    f = flow({"id": "l", "type": "loop", "task": "body\n{reflexion}", "until": "{steps.l.output} == done",
              "maxIterations": 2, "reflexion": True})
    _, runner = await scripted(f, {"l": ["done"]})
    assert [r.task for r in runner.calls] == ["body\n_(first iteration — no prior feedback yet)_"]


# ── tournament: a failed variant's section is empty ─────────────────────────────────


async def test_failed_variant_error_text_stays_out_of_the_judge_prompt():
    f = flow({"id": "t", "type": "tournament", "variants": 3, "task": "write"})
    replies = {"t#variant-1": {"error": "fixture hard failure: invalid request", "exitCode": 1},
               "t#variant-2": "two", "t#variant-3": "three", "t#judge": "WINNER: 2"}
    result, runner = await scripted(f, replies)
    [judge] = [r.task for r in runner.calls if r.node_path == "t#judge"]
    assert "fixture hard failure" not in judge
    assert "### Variant 1 (failed — ineligible)\n\n\n\n---\n\n### Variant 2\n\ntwo" in judge
    assert result.phases["t"].output == "two"


# ── a failed sub-flow names the failing phase's error (issue 16) ────────────────────


async def test_failed_subflow_error_quotes_the_failing_phase():
    f = flow({"id": "sub", "type": "flow", "def": {"name": "inner", "phases": [
        {"id": "a", "task": "a"}, {"id": "b", "task": "b {steps.a.output}", "dependsOn": ["a"]},
        {"id": "c", "task": "last", "final": True}]}})
    replies = {"sub/a": "fine", "sub/b": {"error": "503 upstream exploded", "exitCode": 1}, "sub/c": "the last output"}
    result, _ = await scripted(f, replies)
    st = result.phases["sub"]
    assert st.status == "failed"
    assert st.error == "sub-flow 'inner' failed: 503 upstream exploded"
    assert "the last output" not in st.error
