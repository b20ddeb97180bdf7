"""A run cut at an awkward moment and resumed the way `tftui run --resume` does it (fold the
journal, re-run what was in flight, replay the calls it had made from the journal) ends like the
uninterrupted run: same statuses, outputs and attempt counts, and no answered call asked again.

The cut is a prefix of the uninterrupted run's own event stream — exactly what a journal holds
after a kill -9 at that moment (every event is written as it happens)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tftui.agents.cassette import CassetteRunner
from tftui.agents.scripted import ScriptedRunner
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.resume import plan_resume
from tftui.engine.run import run_flow
from tftui.engine.state import PhaseStatus
from tftui.flow.model import Flow

BLOCK = '{"verdict": "block", "reason": "not yet"}'
PASS = '{"verdict": "pass"}'


def _flow(*phases: dict[str, Any], **top: Any) -> Flow:
    return Flow.model_validate({"name": "cut", "phases": list(phases), **top})


def _summary(result: Any) -> dict[str, tuple[str, str | None, int]]:
    return {pid: (str(p.status), p.output, p.attempts) for pid, p in result.state.phases.items()}


async def _cut_and_resume(
    flow: Flow, replies: dict[str, Any], cut_after: Callable[[list[ev.Event]], bool]
) -> tuple[Any, Any, ScriptedRunner]:
    """(uninterrupted result, resumed result, the agent the resumed run could still ask)."""
    reference = await run_flow(flow, runner=ScriptedRunner(replies), clock=InstantClock(), keep_events=True)
    events = reference.events
    cut = next(i + 1 for i in range(len(events)) if cut_after(events[: i + 1]))
    prefix = events[:cut]
    assert not any(isinstance(e, ev.RunFinished) for e in prefix)

    # The agent lives on: answers it gave before the kill are not given again.
    agent = ScriptedRunner(replies)
    for e in prefix:
        if isinstance(e, ev.AgentReturned) and agent.has_reply(e.node_path):
            agent._cursors[e.node_path].next()
    plan = plan_resume(prefix, flow.phases)  # what `tftui run --resume` does with the journal
    runner = CassetteRunner(plan.replay, agent)
    clock = InstantClock()
    resumed = await run_flow(flow, runner=runner, clock=clock, resume_state=plan.state, keep_events=True)
    resumed.slept = clock.sleeps  # type: ignore[attr-defined]
    return reference, resumed, agent


def _count(events: list[ev.Event], kind: type, **fields: Any) -> int:
    return sum(1 for e in events if isinstance(e, kind) and all(getattr(e, k) == v for k, v in fields.items()))


async def test_cut_during_a_backoff_keeps_the_attempt_cap() -> None:
    flow = _flow(
        {"id": "a", "task": "a"},
        {"id": "b", "task": "b", "dependsOn": ["a"]},
        {"id": "c", "task": "c", "dependsOn": ["b"]},
    )
    replies = {"a": "A", "b": [{"error": "503 service unavailable"}] * 4 + ["B"], "c": "C"}
    reference, resumed, agent = await _cut_and_resume(
        flow, replies, lambda evs: _count(evs, ev.BackoffStarted, phase_id="b") == 3
    )
    assert reference.status == "failed" and reference.phases["b"].attempts == 4  # 1 + 3 transient retries
    assert resumed.status == reference.status
    assert _summary(resumed) == _summary(reference)
    assert [r.node_path for r in agent.calls] == ["b"]  # only the attempt the kill cut short
    assert resumed.slept == []  # the three backoffs were waited before the kill, not again


async def test_cut_inside_an_onblock_round_runs_the_same_rounds() -> None:
    flow = _flow(
        {"id": "a", "task": "a"},
        {"id": "b", "task": "draft from {steps.a.output}", "dependsOn": ["a"]},
        {"id": "g", "type": "gate", "task": "check {steps.b.output}", "dependsOn": ["b"],
         "onBlock": "retry", "retry": {"max": 3}},
        {"id": "c", "task": "ship {steps.b.output}", "dependsOn": ["g"]},
    )
    replies = {"a": "A", "b": ["b1", "b2", "b3"], "g": [BLOCK, BLOCK, PASS], "c": "C"}
    reference, resumed, agent = await _cut_and_resume(
        flow, replies, lambda evs: _count(evs, ev.OnBlockRound, phase_id="g") == 2
    )
    assert reference.status == "completed" and reference.phases["b"].output == "b3"  # two rework rounds
    assert _summary(resumed) == _summary(reference)
    assert resumed.final_output == reference.final_output
    assert "g" not in [r.node_path for r in agent.calls][:1]  # g's two BLOCKs came from the journal


async def test_a_block_inside_a_rework_round_does_not_halt_a_resumed_run() -> None:
    flow = _flow(
        {"id": "a", "task": "a"},
        {"id": "g2", "type": "gate", "task": "inner {steps.a.output}", "dependsOn": ["a"]},
        {"id": "g1", "type": "gate", "task": "outer", "dependsOn": ["g2"], "onBlock": "retry", "retry": {"max": 2}},
        {"id": "z", "task": "z", "dependsOn": ["g1"]},
        {"id": "w", "task": "w", "dependsOn": ["z"]},
    )
    replies = {"a": "A", "g2": [PASS, BLOCK], "g1": [BLOCK, PASS], "z": "Z", "w": "W"}
    reference, resumed, _ = await _cut_and_resume(
        flow, replies, lambda evs: _count(evs, ev.PhaseStarted, phase_id="z") == 1
    )
    assert reference.status == "completed"  # the live run: a nested block does not halt it
    assert resumed.status == "completed" and _summary(resumed) == _summary(reference)


async def test_a_sibling_running_when_a_gate_blocked_still_finishes_after_resume() -> None:
    flow = _flow(
        {"id": "g", "type": "gate", "task": "check"},
        {"id": "s", "task": "slow side work"},
        concurrency=2,
    )
    replies = {"g": BLOCK, "s": {"output": "S", "delayMs": 30}}
    reference, resumed, _ = await _cut_and_resume(  # killed while s's call is out, after g blocked
        flow, replies, lambda evs: _count(evs, ev.PhaseFinished, phase_id="g") == 1
        and _count(evs, ev.AttemptStarted, phase_id="s") == 1
    )
    assert reference.status == "blocked" and reference.phases["s"].status == PhaseStatus.DONE
    assert resumed.status == "blocked"
    assert _summary(resumed) == _summary(reference)  # s ran again and finished; it was not skipped


async def test_cut_while_an_upstream_phase_reruns_inside_a_round() -> None:
    flow = _flow(
        {"id": "a", "task": "a"},
        {"id": "b", "task": "draft from {steps.a.output}", "dependsOn": ["a"]},
        {"id": "g", "type": "gate", "task": "check {steps.b.output}", "dependsOn": ["b"],
         "onBlock": "retry", "retry": {"max": 3}},
    )
    replies = {"a": "A", "b": ["b1", "b2", "b3"], "g": [BLOCK, BLOCK, PASS]}
    reference, resumed, agent = await _cut_and_resume(  # b's third draft is out when the run dies
        flow, replies, lambda evs: _count(evs, ev.AttemptStarted, phase_id="b") == 3
    )
    assert reference.status == "completed"
    assert _summary(resumed) == _summary(reference)
    assert sorted(r.node_path for r in agent.calls) == ["b", "g"]  # b's third draft, g's last check


async def test_cut_inside_a_reflexion_loop_keeps_its_iterations() -> None:
    flow = _flow({"id": "l", "type": "loop", "task": "improve it", "reflexion": True, "maxIterations": 6,
                  "until": "{steps.l.output} == DONE"})
    replies = {"l": ["L1", {"error": "tool crashed"}, "L3", "L4", "DONE", "L6"]}
    reference, resumed, agent = await _cut_and_resume(
        flow, replies, lambda evs: _count(evs, ev.AttemptStarted, phase_id="l") == 4
    )
    assert _summary(resumed) == _summary(reference)
    assert resumed.phases["l"].loop == reference.phases["l"].loop  # the same iterations, the same stop
    assert reference.phases["l"].loop["iterations"] >= 4  # the cut is mid-loop, after a failed iteration
    calls = _count(reference.events, ev.AttemptStarted, phase_id="l")
    assert len(agent.calls) == calls - 3  # the three answered before the kill are replayed, not asked


def test_answered_calls_counts_the_latest_segment_of_each_node() -> None:
    """A second resume re-emits the first one's replays: counted once, not added up."""
    from tftui.engine.resume import answered_calls

    def returned(path: str, error: str | None = None) -> ev.AgentReturned:
        return ev.AgentReturned(phase_id=path, node_path=path, error=error)

    events = [
        ev.RunStarted(run_id="r"), returned("a"), returned("b", "503"), returned("b", "503"),
        ev.RunStarted(run_id="r", resumed=True), returned("b", "503"), returned("b", "503"), returned("b", "503"),
        returned("c", "Aborted (cancelled)"),
        ev.AttemptFailed(phase_id="c", node_path="c", error="Aborted (cancelled)", why="aborted"),
    ]
    assert answered_calls(events) == {"a": 1, "b": 3}

    runner = ScriptedRunner({"b": ["x", "y", "z", "B"], "a": "A"})
    runner.skip_answered(answered_calls(events))
    assert runner._cursors["b"].index == 3 and runner._cursors["a"].index == 1
