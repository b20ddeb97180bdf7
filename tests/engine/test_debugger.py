"""Headless debugger: stepping, breakpoints, guard overrides, gate re-runs, fast-forward."""

from __future__ import annotations

import asyncio

from tftui.agents.scripted import ScriptedRunner
from tftui.engine import events as ev
from tftui.engine.clock import Clock, InstantClock
from tftui.engine.debugger import Debugger
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

TIMEOUT = 10  # a guard against hangs, not a timing assertion


def flow(*phases, **top):
    return Flow.model_validate({"name": "dbg", "phases": list(phases), **top})


def start(f, replies, dbg, clock=None, **kw):
    runner = ScriptedRunner(replies)
    task = asyncio.ensure_future(
        run_flow(f, runner=runner, debugger=dbg, clock=clock or InstantClock(), keep_events=True, **kw)
    )
    return task, runner


async def test_step_through_three_attempts():
    f = flow({"id": "p", "task": "do", "retry": {"max": 2, "backoffMs": 0}})
    replies = {"p": [{"error": "boom", "exitCode": 1}, {"error": "boom again", "exitCode": 1}, "finally"]}
    dbg = Debugger(start_paused=True)
    task, _ = start(f, replies, dbg)
    first = await dbg.wait_paused(TIMEOUT)
    assert (first.point, first.phase_id) == ("before-phase", "p")
    seen = []
    for expected in range(3):
        dbg.step()
        paused = await dbg.wait_paused(TIMEOUT)
        assert (paused.point, paused.attempt) == ("before-attempt", expected)
        log = dbg.run.state.phases["p"].attempt_log
        # every earlier attempt is visible, failed, with its error, before the next one starts
        assert [a.status for a in log] == ["failed"] * expected
        seen.append(paused.attempt)
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert seen == [0, 1, 2]
    assert result.status == "completed"
    assert result.phases["p"].attempts == 3
    assert [a.error for a in result.phases["p"].attempt_log] == ["boom", "boom again", None]


async def test_step_through_on_block_rounds_sees_upstream_rerun():
    f = flow(
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"], "task": "judge {steps.gen.output}",
         "onBlock": "retry", "retry": {"max": 2, "backoffMs": 0}},
    )
    replies = {"gen": ["v1", "v2", "v3"], "g": ["VERDICT: BLOCK", "VERDICT: BLOCK", "VERDICT: PASS"]}
    dbg = Debugger(start_paused=True)
    task, runner = start(f, replies, dbg)
    rounds = []
    paused = await dbg.wait_paused(TIMEOUT)
    while paused is not None:
        if paused.point == "before-round":
            rounds.append((paused.round, dbg.run.state.phases["gen"].output))
        if paused.point == "after-verdict" and paused.round:
            # the upstream was re-run for this round, and the gate judged the fresh output
            assert dbg.run.state.phases["gen"].output == f"v{paused.round + 1}"
            assert dbg.run.state.phases["gen"].depth == 1
        dbg.step()
        paused = await dbg.wait_paused(TIMEOUT)
    result = await asyncio.wait_for(task, TIMEOUT)
    assert rounds == [(1, "v1"), (2, "v2")]
    assert result.status == "completed"
    assert result.phases["g"].attempts == 2
    assert [r.task for r in runner.calls if r.phase_id == "g"][-1].startswith("judge v3")
    assert [e.verdict for e in result.events if isinstance(e, ev.GateVerdict)] == ["block", "block", "pass"]


async def test_guard_override_runs_a_skipped_branch():
    f = flow(
        {"id": "triage", "task": "t", "output": "json"},
        {"id": "deep", "task": "deep", "dependsOn": ["triage"], "when": "{steps.triage.json.severity} == high"},
    )
    replies = {"triage": '{"severity": "low"}', "deep": "deep ran"}
    plain = await run_flow(f, runner=ScriptedRunner(replies), clock=InstantClock())
    assert str(plain.phases["deep"].status) == "skipped"
    assert plain.phases["deep"].error == "Condition not met: {steps.triage.json.severity} == high"
    dbg = Debugger()
    dbg.set_guard("deep", "{steps.triage.json.severity} == low")
    result = await run_flow(f, runner=ScriptedRunner(replies), debugger=dbg, clock=InstantClock(), keep_events=True)
    assert result.phases["deep"].output == "deep ran"
    guard = [e for e in result.events if isinstance(e, ev.GuardEvaluated) and e.phase_id == "deep"][0]
    assert guard.overridden and guard.value is True


async def test_rerun_gate_after_changing_upstream_output():
    f = flow(
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "contains", "value": "ok"}]}},
        {"id": "after", "task": "after", "dependsOn": ["g"]},
    )
    replies = {"gen": ["bad", "ok now"], "after": "done"}
    dbg = Debugger()
    result = await run_flow(f, runner=ScriptedRunner(replies), debugger=dbg, clock=InstantClock())
    assert result.status == "blocked"
    assert result.phases["g"].gate["verdict"] == "block"
    await dbg.run_phases(["gen"])  # the upstream changes (the runner now answers "ok now")
    calls_before = len(dbg.run.runner.calls)
    state = await dbg.rerun_gate("g")
    assert state.gate["verdict"] == "pass"
    assert len(dbg.run.runner.calls) == calls_before  # scorers decided: zero tokens
    assert state.usage["input"] == 0 and state.usage["turns"] == 0
    await dbg.run_phases(["after"])
    assert dbg.run.state.status == "completed"
    assert dbg.run.state.phases["after"].output == "done"


async def _start_and_wait_for_a_backoff(f, replies, dbg, clock):
    """The run, started on a real clock and sleeping in its first backoff."""
    backoff = asyncio.Event()

    def on_event(event):
        if isinstance(event, ev.BackoffStarted):
            backoff.set()

    task, _ = start(f, replies, dbg, clock=clock, on_event=on_event)
    await asyncio.wait_for(backoff.wait(), TIMEOUT)
    while clock.sleeping == 0:
        await asyncio.sleep(0)
    return task


async def test_fast_forward_skips_a_60s_backoff():
    f = flow({"id": "p", "task": "do", "retry": {"max": 1, "backoffMs": 60000}})
    replies = {"p": [{"error": "boom", "exitCode": 1}, "ok"]}
    dbg = Debugger()
    clock = Clock()
    task = await _start_and_wait_for_a_backoff(f, replies, dbg, clock)
    assert dbg.fast_forward() == 1
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "completed"
    assert clock.slept_s == 60.0
    backoffs = [e for e in result.events if isinstance(e, ev.BackoffStarted)]
    assert [b.delay_ms for b in backoffs] == [60000]


async def test_backoff_ended_says_the_time_really_waited():
    """Issue 15 item 12: the event after a backoff carries the wait as it was, not as planned."""
    f = flow({"id": "p", "task": "do", "retry": {"max": 2, "backoffMs": 60000}})
    replies = {"p": [{"error": "boom", "exitCode": 1}, {"error": "boom", "exitCode": 1}, "ok"]}
    dbg = Debugger()
    task = await _start_and_wait_for_a_backoff(f, replies, dbg, Clock())
    dbg.fast_forward(always=True)  # this wait and the next one
    result = await asyncio.wait_for(task, TIMEOUT)
    ended = [e for e in result.events if isinstance(e, ev.BackoffEnded)]
    assert [(e.attempt, e.delay_ms, e.skipped, e.replayed) for e in ended] == [(0, 60000, True, False), (1, 60000, True, False)]
    assert all(e.waited_ms < e.delay_ms for e in ended)


async def test_backoff_ended_of_a_full_wait_equals_the_plan():
    f = flow({"id": "p", "task": "do", "retry": {"max": 1, "backoffMs": 1500}})
    task, _ = start(f, {"p": [{"error": "boom", "exitCode": 1}, "ok"]}, Debugger())
    result = await asyncio.wait_for(task, TIMEOUT)
    [ended] = [e for e in result.events if isinstance(e, ev.BackoffEnded)]
    assert (ended.delay_ms, ended.waited_ms, ended.skipped) == (1500, 1500, False)


async def test_breakpoint_pauses_before_the_phase():
    f = flow({"id": "one", "task": "1"}, {"id": "two", "task": "2", "dependsOn": ["one"]})
    dbg = Debugger()
    dbg.set_breakpoint("two")
    task, _ = start(f, {"one": "A", "two": "B"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("before-phase", "two", "breakpoint")
    assert str(dbg.run.state.phases["one"].status) == "done"
    assert str(dbg.run.state.phases["two"].status) == "pending"
    assert dbg.run.state.paused is not None
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.final_output == "B"


async def test_data_breakpoint_stops_at_attempt_two():
    f = flow({"id": "p", "task": "do", "retry": {"max": 3, "backoffMs": 0}})
    replies = {"p": [{"error": "e1", "exitCode": 1}, {"error": "e2", "exitCode": 1}, "ok"]}
    dbg = Debugger()
    assert dbg.add_data_breakpoint("{phase.id} == p && {phase.attempt} == 2") is None
    assert dbg.add_data_breakpoint("{phase.attempt} ==") is not None  # syntax errors are refused
    task, _ = start(f, replies, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.attempt, paused.why) == ("before-attempt", 1, "data-breakpoint")
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.phases["p"].attempts == 3
    assert sum(isinstance(e, ev.Paused) for e in result.events) == 1


async def test_break_on_failure_and_abort():
    f = flow({"id": "p", "task": "do", "retry": {"max": 0}}, {"id": "q", "task": "q"})
    dbg = Debugger()
    dbg.break_on_failure = True
    task, _ = start(f, {"p": {"error": "bad request", "exitCode": 1}, "q": "Q"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    # stops on the failed phase itself, before q starts
    assert (paused.point, paused.phase_id, paused.why) == ("after-failure", "p", "failure")
    dbg.abort()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "paused"
    assert str(result.phases["q"].status) == "pending"


async def test_break_on_failure_stops_even_when_the_rest_is_skipped():
    # sample_flows/side_effect: deploy fails, announce (its only dependent) is skipped, the run
    # ends; with no later pause point the run used to finish without ever stopping
    f = flow({"id": "deploy", "task": "d", "idempotent": False}, {"id": "announce", "task": "a", "dependsOn": ["deploy"]})
    dbg = Debugger()
    dbg.break_on_failure = True
    task, _ = start(f, {"deploy": {"error": "503 service unavailable", "exitCode": 1}}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("after-failure", "deploy", "failure")
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "failed" and str(result.phases["announce"].status) == "skipped"
    assert sum(isinstance(e, ev.Paused) for e in result.events) == 1


async def test_stepping_does_not_add_a_stop_after_a_failure():
    f = flow({"id": "p", "task": "p"}, {"id": "q", "task": "q", "dependsOn": ["p"]})
    dbg = Debugger(start_paused=True)
    task, _ = start(f, {"p": {"error": "bad", "exitCode": 1}}, dbg)
    points = []
    paused = await dbg.wait_paused(TIMEOUT)
    while paused is not None:
        points.append(paused.point)
        dbg.step()
        paused = await dbg.wait_paused(TIMEOUT)
    await asyncio.wait_for(task, TIMEOUT)
    assert points == ["before-phase", "before-attempt"]  # p only: q is skipped, no stop after the failure


async def test_approver_hook_and_headless_reject():
    f = flow({"id": "ok", "type": "approval", "task": "ship it?"}, {"id": "after", "task": "a", "dependsOn": ["ok"]})
    headless = await run_flow(f, runner=ScriptedRunner({"after": "A"}), clock=InstantClock())
    assert headless.status == "blocked"
    assert headless.phases["ok"].output == "(auto-rejected: no interactive approver available)"
    assert headless.phases["after"].error.startswith("Gate blocked")
    from tftui.engine.phases.approval import ApprovalRequest, Decision

    asked: list[ApprovalRequest] = []

    async def approver(request):
        asked.append(request)
        return Decision("approve", "looks good")

    result = await run_flow(f, runner=ScriptedRunner({"after": "A"}), debugger=Debugger(approver=approver),
                            clock=InstantClock())
    assert result.status == "completed"
    assert result.phases["ok"].output == "looks good"
    assert asked[0].message == "ship it?"


async def test_guard_edited_while_paused_applies_to_that_phase():
    f = flow({"id": "a", "task": "a"}, {"id": "b", "task": "b", "dependsOn": ["a"], "when": "false"})
    dbg = Debugger()
    dbg.set_breakpoint("b")
    task, _ = start(f, {"a": "A", "b": "B"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert paused.phase_id == "b"
    dbg.set_guard("b", "{steps.a.output} == A")
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.phases["b"].output == "B"


async def test_data_breakpoint_on_gate_combined():
    f = flow(
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "contains", "value": "ok"}]}},
    )
    dbg = Debugger()
    assert dbg.add_data_breakpoint("{gate.verdict} == block && {gate.combined} < 1") is None
    task, _ = start(f, {"gen": "bad"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("after-verdict", "g", "data-breakpoint")
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "blocked"


async def test_break_on_block_and_on_pause_notification():
    f = flow({"id": "g", "type": "gate", "task": "check"}, {"id": "after", "task": "a", "dependsOn": ["g"]})
    notified: list[ev.Paused] = []
    dbg = Debugger(on_pause=notified.append)
    dbg.break_on_block = True
    task, _ = start(f, {"g": "VERDICT: BLOCK"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("after-verdict", "g", "block")
    assert notified == [paused]
    assert dbg.run.state.paused is paused
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "blocked"
    assert result.state.paused is None
    kinds = [type(e).__name__ for e in result.events]
    assert kinds.count("Paused") == 1 and kinds.count("Resumed") == 1


async def test_time_spent_paused_is_not_the_phases_duration():
    """Stepping attempt by attempt takes as long as the person looking; the phase's duration
    must show what the phase took (here: a 2 s backoff), not the minutes spent reading."""
    f = flow({"id": "p", "task": "do", "retry": {"max": 1, "backoffMs": 2000}})
    replies = {"p": [{"error": "boom", "exitCode": 1}, "fine"]}
    clock = InstantClock()
    dbg = Debugger(start_paused=True)
    task, _ = start(f, replies, dbg, clock=clock)
    await dbg.wait_paused(TIMEOUT)  # before-phase
    for _ in range(2):  # before attempt 0, before attempt 1
        dbg.step()
        await dbg.wait_paused(TIMEOUT)
        clock.now += 300.0  # five minutes reading the screen at this pause
    dbg.continue_()
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "completed"
    assert result.phases["p"].duration_ms == 2000.0  # the backoff; the 600 s of pauses are left out
    assert result.state.ended_at - result.state.started_at >= 600  # the run's wall time still has them


async def test_a_pause_while_paused_does_not_queue_a_second_pause():
    # QA (tmux): `p` pressed while the run was already paused stopped it again at the next point
    f = flow({"id": "p", "task": "p"}, {"id": "q", "task": "q", "dependsOn": ["p"]})
    dbg = Debugger(start_paused=True)
    task, _ = start(f, {"p": "P", "q": "Q"}, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id) == ("before-phase", "p")
    dbg.pause()  # already paused: there is nothing more to ask for
    dbg.continue_()
    again = await dbg.wait_paused(TIMEOUT)
    assert again is None, again  # the run ends without another stop
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "completed"
    assert sum(isinstance(e, ev.Paused) for e in result.events) == 1


async def test_a_pause_answers_a_pending_failure_too():
    """QA (sample_flows/transient_retry.json, tmux): with break-on-failure on, a `p` during the
    backoff after a failed attempt paused before the next attempt as "pause" and left the failure
    pending; `c` from there stopped before the next phase as "(failure)" though nothing failed
    after. One pause answers every request waiting for one."""
    f = flow({"id": "fetch", "task": "f", "retry": {"max": 2, "backoffMs": 0}},
             {"id": "summarize", "task": "s", "dependsOn": ["fetch"]})
    replies = {"fetch": [{"error": "boom", "exitCode": 1}, {"error": "boom again", "exitCode": 1}, "F"],
               "summarize": "S"}
    dbg = Debugger()
    dbg.break_on_failure = True
    task, _ = start(f, replies, dbg)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.attempt, paused.why) == ("before-attempt", 1, "failure")
    dbg.step()
    dbg.pause()  # asked while attempt 2 runs (and fails)
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.attempt, paused.why) == ("before-attempt", 2, "pause")
    dbg.continue_()
    again = await dbg.wait_paused(TIMEOUT)
    assert again is None, again  # the run ends without another stop
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.status == "completed"
    assert [(e.point, e.phase_id, e.why) for e in result.events if isinstance(e, ev.Paused)] == [
        ("before-attempt", "fetch", "failure"), ("before-attempt", "fetch", "pause")]


async def test_a_pause_after_a_failure_answers_a_pause_request():
    # the stop at after-failure is the one a `p` asked for during the call: `c` from there runs on
    f = flow({"id": "p", "task": "p", "retry": {"max": 0}}, {"id": "q", "task": "q"}, concurrency=1)
    dbg = Debugger()
    dbg.break_on_failure = True

    class Runner(ScriptedRunner):
        async def run(self, request):
            if request.phase_id == "p":
                dbg.pause()  # asked while p's call is in flight
            return await super().run(request)

    runner = Runner({"p": {"error": "bad request", "exitCode": 1}, "q": "Q"})
    task = asyncio.ensure_future(run_flow(f, runner=runner, debugger=dbg, clock=InstantClock(), keep_events=True))
    paused = await dbg.wait_paused(TIMEOUT)
    assert (paused.point, paused.phase_id, paused.why) == ("after-failure", "p", "failure")
    dbg.continue_()
    again = await dbg.wait_paused(TIMEOUT)
    assert again is None, again  # the run ends without another stop
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result.phases["q"].output == "Q"
    assert [(e.point, e.phase_id) for e in result.events if isinstance(e, ev.Paused)] == [("after-failure", "p")]
