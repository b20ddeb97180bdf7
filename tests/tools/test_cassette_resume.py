"""A journal holding an interrupted run and its resume: the cassette replays what the finished
run did, not the attempts of the phase that was re-run after the interruption."""

from __future__ import annotations

from tftui.agents.base import AgentRequest
from tftui.agents.cassette import CassetteRunner, recorded_calls
from tftui.engine import events as ev


def _call(phase: str, attempt: int, output: str = "", error: str | None = None) -> list[ev.Event]:
    return [
        ev.AttemptStarted(phase_id=phase, node_path=phase, attempt=attempt, prompt=f"do {phase}", agent="a"),
        ev.AgentReturned(phase_id=phase, node_path=phase, attempt=attempt, output=output, error=error),
    ]


def _journal() -> list[ev.Event]:
    events: list[ev.Event] = [ev.RunStarted(run_id="r1", flow_name="f", phase_ids=["plan", "fetch"])]
    events += _call("plan", 0, output="the plan")
    events.append(ev.PhaseFinished(phase_id="plan", status="done", output="the plan"))
    events += _call("fetch", 0, error="429 too many requests")  # then killed during the backoff
    events.append(ev.RunStarted(run_id="r1", flow_name="f", phase_ids=["plan", "fetch"], resumed=True))
    events += _call("fetch", 0, error="429 too many requests")
    events += _call("fetch", 1, output="data")
    events.append(ev.PhaseFinished(phase_id="fetch", status="done", output="data"))
    return events


def test_calls_of_a_phase_rerun_after_resume_are_dropped():
    calls = recorded_calls(_journal())
    assert [(c.node_path, c.attempt, c.output or c.error) for c in calls] == [
        ("plan", 0, "the plan"),
        ("fetch", 0, "429 too many requests"),
        ("fetch", 1, "data"),
    ]


async def test_replaying_a_resumed_run_takes_as_many_attempts_as_it_did():
    runner = CassetteRunner(_journal())
    fetch = AgentRequest(node_path="fetch", phase_id="fetch", agent="a", task="do fetch")
    first = await runner.run(fetch)
    second = await runner.run(fetch)
    assert first.error == "429 too many requests"
    assert second.error is None and second.output == "data"
    assert runner.replayed == 2 and runner.live == 0
