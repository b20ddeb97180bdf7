"""Phase types and run semantics beyond the conformance sample (MarkerRunner / ScriptedRunner)."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tftui.agents.scripted import MarkerRunner, RepliesError, ScriptedRunner
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.phases.loop import FIRST_ITERATION, reflexion_text
from tftui.engine.run import run_flow
from tftui.engine.state import fold
from tftui.flow.model import Flow


def flow(*phases, **top):
    return Flow.model_validate({"name": "t", "concurrency": 1, "phases": list(phases), **top})


async def marker(f, script=None, **kw):
    runner = MarkerRunner(script or {})
    result = await run_flow(f, runner=runner, clock=kw.pop("clock", None) or InstantClock(), keep_events=True, **kw)
    return result, runner


async def test_parallel_merges_and_fails_on_a_branch():
    f = flow({"id": "p", "type": "parallel", "agent": "a",
              "branches": [{"task": "[[p:0]] x"}, {"task": "[[p:1]] y", "agent": "b"}]})
    result, runner = await marker(f, {"p:1": [{"error": "bad", "exitCode": 1}]})
    state = result.phases["p"]
    assert str(state.status) == "failed"
    assert state.output == "### [1/2] a\n\nout:p:0\n\n---\n\n### [2/2] b (failed)\n\nbad"
    assert state.error == "b: bad"
    assert [r.node_path for r in runner.requests][:2] == ["p#branch-0", "p#branch-1"]


async def test_map_items_json_and_not_array():
    f = flow(
        {"id": "src", "task": "[[src]]", "output": "json"},
        {"id": "m", "type": "map", "over": "{steps.src.json}", "as": "x", "task": "[[m:{x.n}]] go",
         "dependsOn": ["src"], "output": "json"},
    )
    result, runner = await marker(f, {"src": [{"output": '[{"n": 1}, {"n": 2}]'}], "m:2": [{"output": "{\"v\": 2}"}]})
    assert runner.call_log == ["src", "m:1", "m:2"]
    assert result.phases["m"].json == ["out:m:1", {"v": 2}]
    assert [r.node_path for r in runner.requests] == ["src", "m#item-0", "m#item-1"]
    bad, _ = await marker(f, {"src": [{"output": '"nope"'}]})
    assert bad.phases["m"].error == "map phase 'm': 'over' ({steps.src.json}) did not resolve to an array"
    assert bad.status == "failed"


async def test_loop_until_convergence_and_reflexion_text():
    f = flow({"id": "l", "type": "loop", "task": "[[l]] it {loop.iteration}", "until": "{steps.l.output} == done",
              "maxIterations": 5})
    result, runner = await marker(f, {"l": [{"output": "a"}, {"output": "b"}, {"output": "done"}]})
    assert result.phases["l"].loop == {"iterations": 3, "stop": "until"}
    assert runner.tasks_sent["l"] == ["[[l]] it 1", "[[l]] it 2", "[[l]] it 3"]
    conv, _ = await marker(f, {"l": [{"output": "same"}, {"output": "same"}]})
    assert conv.phases["l"].loop["stop"] == "converged"
    assert reflexion_text(1, None, "x") == FIRST_ITERATION
    text = reflexion_text(2, {"kind": "until", "output": "prior"}, "{steps.l.output} == done")
    assert text == (
        "## Reflexion: iteration 1 (prior)\n- Outcome: succeeded, but the stop condition was not met\n"
        "- Stop condition still false: `{steps.l.output} == done`\n- Fix the issues above in this iteration.\n"
        "- Prior output (truncated):\n```\nprior\n```"
    )
    long = reflexion_text(3, {"kind": "error", "error": "x" * 1000, "output": "y" * 5000}, "u")
    assert len(long) <= 2000 and "…[truncated" in long


async def test_loop_reflexion_feeds_failures_back():
    f = flow({"id": "l", "type": "loop", "task": "[[l]] try {reflexion}", "until": "{steps.l.output} == ok",
              "reflexion": True, "maxIterations": 3, "retry": {"max": 0, "backoffMs": 0}})
    result, runner = await marker(f, {"l": [{"error": "bad request", "exitCode": 1}, {"output": "ok"}]})
    assert str(result.phases["l"].status) == "done"
    second = runner.tasks_sent["l"][1]
    assert "- Outcome: FAILED — subagent error\n- Error: bad request" in second
    assert runner.tasks_sent["l"][0] == "[[l]] try " + FIRST_ITERATION


async def test_tournament_picks_the_judged_winner():
    f = flow({"id": "t", "type": "tournament", "variants": 3, "task": "[[t]] solve", "judge": "[[t:judge]] pick"})
    result, runner = await marker(f, {"t": [{"output": "A"}, {"output": "B"}, {"output": "C"}],
                                      "t:judge": [{"output": "WINNER: 2"}]})
    assert result.phases["t"].output == "B"
    assert result.phases["t"].tournament == {"variants": 3, "mode": "best", "winner": 2}
    judge = runner.tasks_sent["t:judge"][0]
    assert judge.startswith("[[t:judge]] pick\n\nThe candidate variants:\n\n### Variant 1\n\nA\n\n---\n\n")
    assert judge.endswith("WINNER: <number> (1–3), choosing the strongest eligible variant.")


async def test_budget_blocks_the_rest():
    f = flow({"id": "a", "task": "a"}, {"id": "b", "task": "b", "dependsOn": ["a"]}, budget={"maxTokens": 10})
    runner = ScriptedRunner({"a": {"output": "A", "usage": {"input": 8, "output": 5}}, "b": "B"})
    result = await run_flow(f, runner=runner, clock=InstantClock())
    assert result.status == "blocked"
    assert result.phases["b"].error == "Budget exceeded: tokens 13 exceeded cap 10"
    assert result.final_output == "Budget exceeded — run halted.\nReason: tokens 13 exceeded cap 10\n\nA"


async def test_timeout_is_never_retried():
    f = flow({"id": "p", "task": "p", "timeout": 1000, "retry": {"max": 3, "backoffMs": 0}})
    runner = ScriptedRunner({"p": {"output": "late", "delayMs": 5000}})
    result = await run_flow(f, runner=runner, clock=InstantClock())
    state = result.phases["p"]
    assert state.error == "Phase timed out after 1000ms (subagent aborted)"
    assert state.timed_out and state.attempts == 1


async def test_contract_violation_is_not_transient():
    # the violation text mentions "timeout", which the text test alone calls transient (D5)
    f = flow({"id": "p", "task": "p", "output": "json", "expect": {"type": "object", "required": ["timeout"]}})
    runner = ScriptedRunner({"p": '{"other": 1}'})
    result = await run_flow(f, runner=runner, clock=InstantClock(), keep_events=True)
    assert result.phases["p"].attempts == 1
    assert result.phases["p"].error == "Output contract violated:\n- $.timeout: required key is missing"
    failed = [e for e in result.events if isinstance(e, ev.AttemptFailed)]
    assert failed[0].why == "contract" and failed[0].transient is False


async def test_missing_reply_names_node_path_and_file(tmp_path):
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"a": "A"}))
    runner = ScriptedRunner.from_file(path)
    f = flow({"id": "a", "task": "a"}, {"id": "m", "type": "map", "over": ["x"], "task": "{item}", "dependsOn": ["a"],
                                          "retry": {"max": 0}, "idempotent": False})
    result = await run_flow(f, runner=runner, clock=InstantClock())
    assert result.phases["m"].error == f"default: no scripted reply for node path 'm#item-0' in {path}"
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    with pytest.raises(RepliesError, match="must be a JSON object"):
        ScriptedRunner.from_file(bad)
    with pytest.raises(RepliesError, match="cannot read replies file"):
        ScriptedRunner.from_file(tmp_path / "absent.json")


async def test_script_phases(tmp_path):
    f = flow(
        {"id": "argv", "type": "script", "run": ["echo", "{args.word}"]},
        {"id": "stdin", "type": "script", "run": "tr a-z A-Z", "input": "{steps.argv.output}", "dependsOn": ["argv"]},
        {"id": "fail", "type": "script", "run": "echo out; echo err >&2; exit 4", "optional": True},
        args={"word": {"default": "hello"}},
    )
    result, _ = await marker(f)
    assert result.phases["argv"].output == "hello"
    assert result.phases["stdin"].output == "HELLO"
    assert result.phases["fail"].error == "Script exited with code 4: err"
    assert result.status == "completed"


async def test_script_output_is_capped_while_reading():
    code = "import sys\nchunk = 'x' * 1048576\nfor _ in range(100): sys.stdout.write(chunk)\n"
    f = flow({"id": "big", "type": "script", "run": [sys.executable, "-c", code]})
    result, _ = await marker(f)
    out = result.phases["big"].output
    assert out.endswith("\n[stdout truncated at 1 MB]")
    assert len(out) == 1024 * 1024 + len("\n[stdout truncated at 1 MB]")


async def test_script_timeout_kills_the_process_group():
    f = flow({"id": "slow", "type": "script", "run": "sleep 30 & sleep 30", "timeout": 1000})
    result, _ = await asyncio.wait_for(marker(f), 20)
    assert result.phases["slow"].error == "Script timed out after 1000ms"


async def test_resume_skips_finished_phases_and_never_repeats_side_effects():
    f = flow({"id": "a", "task": "[[a]]"}, {"id": "b", "task": "[[b]]", "dependsOn": ["a"], "idempotent": False},
             {"id": "c", "task": "[[c]] {steps.a.output}", "dependsOn": ["a"]})
    first, _ = await marker(f)
    # cut the journal right after b started: a finished, b in flight
    events = first.events
    cut = next(i for i, e in enumerate(events) if isinstance(e, ev.PhaseStarted) and e.phase_id == "b")
    state = fold(events[: cut + 1])
    assert str(state.phases["b"].status) == "running"
    result, runner = await marker(f, resume_state=state)
    assert runner.call_log == ["c"]
    assert runner.tasks_sent["c"] == ["[[c]] out:a"]
    assert str(result.phases["b"].status) == "failed" and "idempotent: false" in result.phases["b"].error


async def test_resume_never_repeats_a_script_that_was_in_flight(tmp_path):
    # docs/scheduling.md §4.3/§4.4: a script is a side effect (the journal syncs around it);
    # one that was running when the run stopped is failed with the explanation, not run again
    marks = tmp_path / "ran.log"
    f = flow({"id": "a", "task": "[[a]]"}, {"id": "s", "type": "script", "run": f"echo x >> {marks}",
                                            "dependsOn": ["a"]},
             {"id": "c", "task": "[[c]] {steps.a.output}", "dependsOn": ["a"]})
    first, _ = await marker(f)
    assert marks.read_text() == "x\n"
    cut = next(i for i, e in enumerate(first.events) if isinstance(e, ev.PhaseStarted) and e.phase_id == "s")
    state = fold(first.events[: cut + 1])
    assert str(state.phases["s"].status) == "running"
    result, runner = await marker(f, resume_state=state)
    assert marks.read_text() == "x\n"  # the script did not run a second time
    assert runner.call_log == ["c"]
    s = result.phases["s"]
    assert str(s.status) == "failed" and "script" in s.error and "not re-run" in s.error


async def test_resume_asks_again_an_approval_that_was_in_flight():
    # its decision never reached the journal, and nothing acted on one: asking again repeats nothing
    from tftui.engine.phases.approval import approve_all

    f = flow({"id": "a", "task": "[[a]]"}, {"id": "ok", "type": "approval", "task": "ship?", "dependsOn": ["a"]})
    first, _ = await marker(f, approver=approve_all)
    cut = next(i for i, e in enumerate(first.events) if isinstance(e, ev.PhaseStarted) and e.phase_id == "ok")
    asked: list[str] = []

    async def approver(request):
        asked.append("ok")
        return await approve_all(request)

    result, _ = await marker(f, resume_state=fold(first.events[: cut + 1]), approver=approver)
    assert asked == ["ok"] and str(result.phases["ok"].status) == "done"


async def test_live_fold_equals_replay_and_json_round_trip():
    f = flow({"id": "a", "task": "[[a]]", "retry": {"max": 1, "backoffMs": 0}},
             {"id": "g", "type": "gate", "dependsOn": ["a"], "task": "[[g]]"})
    result, _ = await marker(f, {"a": [{"error": "503", "exitCode": 1}]})
    replayed = fold(ev.event_from_json(json.loads(json.dumps(ev.event_to_json(e)))) for e in result.events)
    for pid in ("a", "g"):
        live, again = result.phases[pid], replayed.phases[pid]
        assert (live.status, live.output, live.attempts, live.gate, live.warnings) == (
            again.status, again.output, again.attempts, again.gate, again.warnings)
    assert replayed.status == result.status and replayed.final_output == result.final_output
    assert [e.seq for e in result.events] == list(range(1, len(result.events) + 1))


async def test_crash_fails_running_phases(monkeypatch):
    from tftui.engine import phases

    async def kaput(run, pr):
        raise ValueError("kaput")

    monkeypatch.setitem(phases.HANDLERS, "reduce", kaput)
    f = flow({"id": "a", "task": "[[a]]"}, {"id": "r", "type": "reduce", "from": ["a"], "task": "[[r]]"})
    result, _ = await marker(f)
    assert result.status == "failed"
    assert result.final_output == "Taskflow 't' crashed: kaput"
    assert str(result.phases["r"].status) == "failed" and result.phases["r"].error == "crashed: kaput"
    assert isinstance(result.events[-1], ev.RunFinished) and result.events[-1].error == "kaput"


async def test_unresolved_refs_warn_once():
    f = flow({"id": "a", "task": "[[a]] {args.nope} {steps.zzz.output} {args.nope}"})
    result, runner = await marker(f)
    assert result.phases["a"].warnings == [
        "unresolved refs in task: {args.nope}, {steps.zzz.output} — left intact (check dependsOn / placeholder spelling)"
    ]
    assert runner.tasks_sent["a"] == ["[[a]] {args.nope} {steps.zzz.output} {args.nope}"]


async def test_context_files_are_pre_read(tmp_path):
    (tmp_path / "notes.md").write_text("remember the milk\n" * 10)
    flow_file = tmp_path / "flow.json"
    f = flow({"id": "a", "task": "[[a]] go", "context": ["notes.md", "missing.md"], "contextLimit": 20})
    result, runner = await marker(f, flow_path=str(flow_file))
    sent = runner.tasks_sent["a"][0]
    assert sent.startswith("## Context: notes.md\n\nremember the milk\nre\n\n---\n\n")
    assert sent.endswith("[[a]] go")
    assert "context: no file matches 'missing.md'" in result.phases["a"].warnings


async def test_layers_are_synchronous_and_concurrency_is_bounded():
    in_flight = {"now": 0, "max": 0}
    order: list[str] = []

    class Slow:
        async def run(self, request):
            in_flight["now"] += 1
            in_flight["max"] = max(in_flight["max"], in_flight["now"])
            order.append("start " + request.phase_id)
            await asyncio.sleep(0.05 if request.phase_id == "slow" else 0)
            in_flight["now"] -= 1
            order.append("end " + request.phase_id)
            from tftui.agents.base import AgentResult

            return AgentResult(output=request.phase_id)

    f = Flow.model_validate({"name": "w", "concurrency": 2, "phases": [
        {"id": "slow", "task": "s"}, {"id": "x1", "task": "x"}, {"id": "x2", "task": "x"}, {"id": "x3", "task": "x"},
        {"id": "next", "task": "n", "dependsOn": ["x1"]},
    ]})
    result = await run_flow(f, runner=Slow(), clock=InstantClock())
    assert result.status == "completed"
    assert in_flight["max"] == 2
    # `next` only needs x1, but layer 1 waits for the slow phase of layer 0 (SPEC §3.1)
    assert order.index("start next") > order.index("end slow")
    assert order[:2] == ["start slow", "start x1"]


async def test_cancel_records_a_paused_run_with_phases_in_flight():
    f = flow({"id": "a", "task": "a"})
    seen: list[ev.Event] = []
    runner = ScriptedRunner({"a": {"output": "A", "delayMs": 10000}})
    task = asyncio.ensure_future(run_flow(f, runner=runner, clock=InstantClock(), on_event=seen.append))
    while not any(isinstance(e, ev.AttemptStarted) for e in seen):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = fold(seen)
    assert state.status == "paused"
    assert str(state.phases["a"].status) == "running"


def test_engine_never_imports_textual():
    import subprocess

    code = (
        "import sys, tftui.engine.run, tftui.engine.debugger, tftui.engine.phases, tftui.agents.scripted;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_seed_divergences_at_run_level():
    # D3: a failed optional phase reads as the sentinel, so the documented fallback fires
    f = flow(
        {"id": "enrich", "task": "[[enrich]]", "optional": True, "retry": {"max": 0}},
        {"id": "fallback", "task": "[[fallback]] {steps.enrich.output}", "dependsOn": ["enrich"],
         "when": "{steps.enrich.output} == \"[previous phase failed]\""},
        # D1: an ambiguous gate verdict passes, with a warning
        {"id": "g", "type": "gate", "task": "[[g]] check", "dependsOn": ["fallback"]},
        {"id": "after", "task": "[[after]]", "dependsOn": ["g"]},
    )
    result, runner = await marker(f, {"enrich": [{"error": "bad request", "exitCode": 1}], "g": [{"output": "fine"}]})
    assert runner.tasks_sent["fallback"] == ["[[fallback]] [previous phase failed]"]
    assert result.phases["g"].gate == {"verdict": "pass", "reason": "unparseable gate verdict (fail-open)"}
    assert "unparseable gate verdict (fail-open)" in result.phases["g"].warnings
    fallbacks = [e for e in result.events if isinstance(e, ev.FallbackUsed)]
    assert [e.phase_id for e in fallbacks] == ["g"]
    assert result.status == "completed" and result.final_output == "out:after"


async def test_block_halts_unrelated_phases_and_reports_the_gate():
    f = flow(
        {"id": "g", "type": "gate", "task": "[[g]]"},
        {"id": "other", "task": "[[other]]"},
        {"id": "later", "task": "[[later]]", "dependsOn": ["other"]},
    )
    result, runner = await marker(f, {"g": [{"output": '{"verdict": "BLOCK", "reason": "nope"}'}]})
    # concurrency 1: `other` (same layer, not started yet) is halted too (SPEC §3.4)
    assert runner.call_log == ["g"]
    assert result.phases["other"].error == "Gate blocked: nope"
    assert result.phases["later"].error == "Gate blocked: nope"
    assert result.status == "blocked"
    assert result.final_output == 'Gate blocked the workflow.\nReason: nope\n\n{"verdict": "BLOCK", "reason": "nope"}'


async def test_race_first_success_wins_and_losers_are_cancelled():
    f = flow({"id": "r", "type": "race", "branches": [{"task": "slow"}, {"task": "fails"}, {"task": "fast"}]})
    runner = ScriptedRunner({
        "r#branch-0": {"output": "slow", "delayMs": 5000},
        "r#branch-1": {"error": "bad request", "exitCode": 1},
        "r#branch-2": {"output": "fast", "delayMs": 10},
    })
    result = await asyncio.wait_for(run_flow(f, runner=runner, clock=InstantClock(), keep_events=True), 10)
    state = result.phases["r"]
    assert state.output == "fast"
    assert state.warnings == [
        "race: branch 3/3 won (first success)",
        "race: cancelLosers aborted 2 loser branch(es) (best-effort AbortSignal)",
    ]
    # the cancelled branch's attempt is closed in the event stream
    slow = [a for a in state.attempt_log if a.node_path == "r#branch-0"]
    assert slow and slow[-1].status == "failed" and slow[-1].why == "aborted"


async def test_subflow_def_runs_with_prefixed_node_paths_and_args():
    # a map's `over` is an interpolation ref (taskflow rejects a literal array): the items come from an arg
    child = {"name": "child", "args": {"topic": {"default": "none"}, "items": {"default": ["x", "y"]}},
             "phases": [{"id": "s", "task": "summarize {args.topic}"},
                        {"id": "m", "type": "map", "over": "{args.items}", "task": "{item}", "dependsOn": ["s"]}]}
    f = flow({"id": "up", "task": "up"},
             {"id": "research", "type": "flow", "def": child, "with": {"topic": "{steps.up.output}"},
              "dependsOn": ["up"]})
    runner = ScriptedRunner({
        "up": "cats",
        "research/s": {"output": "S", "usage": {"input": 3, "output": 4}},
        "research/m#item-0": "X", "research/m#item-1": "Y",
    })
    result = await run_flow(f, runner=runner, clock=InstantClock(), keep_events=True)
    state = result.phases["research"]
    assert str(state.status) == "done", state.error
    assert state.output == "### [1/2] default\n\nX\n\n---\n\n### [2/2] default\n\nY"
    assert [r.task for r in runner.calls if r.node_path == "research/s"] == ["summarize cats"]
    assert state.usage["input"] == 3 and state.usage["output"] == 4
    assert {a.node_path for a in state.attempt_log} == {"research/s", "research/m#item-0", "research/m#item-1"}


async def test_subflow_bad_generated_def_is_done_with_def_error(tmp_path):
    f = flow({"id": "plan", "task": "[[plan]]"},
             {"id": "run", "type": "flow", "def": "{steps.plan.output}", "dependsOn": ["plan"]},
             {"id": "after", "task": "[[after]]", "dependsOn": ["run"]})
    result, _ = await marker(f, {"plan": [{"output": "not json"}]})
    assert str(result.phases["run"].status) == "done"
    assert result.phases["run"].def_error == "def is not valid JSON"
    scripted = {"name": "g", "phases": [{"id": "s", "type": "script", "run": ["echo", "hi"]}]}
    again, _ = await marker(f, {"plan": [{"output": json.dumps(scripted)}]})
    assert "script phases are not allowed" in again.phases["run"].def_error


async def test_subflow_use_saved_flow_and_refuse_recursion(tmp_path):
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "helper.json").write_text(json.dumps({"name": "helper", "phases": [{"id": "h", "task": "help"}]}))
    (tmp_path / "flows" / "loop.json").write_text(json.dumps({"name": "loop", "phases": [{"id": "again", "type": "flow",
                                                                                  "use": "loop"}]}))
    main = tmp_path / "main.json"
    f = flow({"id": "call", "type": "flow", "use": "helper"}, {"id": "rec", "type": "flow", "use": "loop"})
    runner = ScriptedRunner({"call/h": "helped"})
    result = await run_flow(f, runner=runner, clock=InstantClock(), flow_path=str(main))
    assert result.phases["call"].output == "helped"
    assert str(result.phases["rec"].status) == "failed"
    # the refusal is the phase's error; a failed phase stores no error text as output (issue 14, D3)
    assert "recursive use of flow 'loop' refused" in result.phases["rec"].error


async def test_budget_usd_cap_and_refusal():
    f = flow({"id": "a", "task": "a"}, {"id": "b", "task": "b"}, budget={"maxUSD": 0.01})
    runner = ScriptedRunner({"a": {"output": "A", "usage": {"input": 1, "output": 1, "costUSD": 0.0125}}, "b": "B"})
    result = await run_flow(f, runner=runner, clock=InstantClock())
    assert result.phases["b"].error == "Budget exceeded: cost $0.013 exceeded cap $0.01"
    assert result.status == "blocked"

    class NoUsage(ScriptedRunner):
        reports_usage = False

    refused = await run_flow(f, runner=NoUsage({}), clock=InstantClock())
    assert refused.status == "failed"
    assert refused.final_output == (
        "Usage accounting is unavailable for this host; refusing budgeted flow 't' because its token/USD "
        "ceiling cannot be enforced"
    )


async def test_approval_decisions():
    from tftui.engine.phases.approval import Decision

    f = flow({"id": "ok", "type": "approval"}, {"id": "after", "task": "a", "dependsOn": ["ok"]})

    def approver(action, note=None):
        async def decide(request):
            assert request.message == "Approve to continue?"
            return Decision(action, note)

        return decide

    edited = await run_flow(f, runner=ScriptedRunner({"after": "A"}), clock=InstantClock(), approver=approver("edit"))
    assert edited.phases["ok"].output == "(edit)" and edited.status == "completed"
    rejected = await run_flow(f, runner=ScriptedRunner({"after": "A"}), clock=InstantClock(),
                              approver=approver("reject", "not today"))
    assert rejected.status == "blocked"
    assert rejected.phases["ok"].gate == {"verdict": "block", "reason": "not today"}
    assert rejected.final_output == "Gate blocked the workflow.\nReason: not today\n\nnot today"
