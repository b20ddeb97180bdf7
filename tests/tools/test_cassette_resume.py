"""A journal holding an interrupted run and its resume: the cassette replays what the finished
run did, not the attempts of the phase that was re-run after the interruption."""

from __future__ import annotations

from tftui.agents.base import AgentRequest
from tftui.agents.cassette import CassetteRunner
from tftui.engine import events as ev
from tftui.engine.recorded import recorded_calls


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
    runner = CassetteRunner(recorded_calls(_journal()))
    fetch = AgentRequest(node_path="fetch", phase_id="fetch", agent="a", task="do fetch")
    first = await runner.run(fetch)
    second = await runner.run(fetch)
    assert first.error == "429 too many requests"
    assert second.error is None and second.output == "data"
    assert runner.replayed == 2 and runner.live == 0


def _item(phase: str, i: int, attempt: int = 0, output: str = "", error: str | None = None) -> list[ev.Event]:
    path = f"{phase}#item-{i}"
    return [
        ev.AttemptStarted(phase_id=phase, node_path=path, attempt=attempt, prompt=f"review {i}", agent="a"),
        ev.AgentReturned(phase_id=phase, node_path=path, attempt=attempt, output=output, error=error,
                         usage={"input": 5, "output": 1}),
    ]


def test_in_flight_answers_keep_every_answer_since_the_phase_last_started_fresh():
    from tftui.engine.recorded import in_flight_answers

    events: list[ev.Event] = [ev.RunStarted(run_id="r1", flow_name="f", phase_ids=["list", "each"])]
    events += _call("list", 0, output="[1,2,3]")
    events.append(ev.PhaseFinished(phase_id="list", status="done", output="[1,2,3]"))
    events.append(ev.PhaseStarted(phase_id="each", phase_type="map"))
    events += _item("each", 0, output="forgotten: an earlier fresh start of the phase")
    events.append(ev.PhaseStarted(phase_id="each", phase_type="map"))  # started fresh again (a resume)
    events += _item("each", 0, output="r0")
    events.append(ev.PhaseStarted(phase_id="each", phase_type="map", depth=1, round=1))  # a rework round: kept
    events += _item("each", 1, error="429 too many requests")  # failures are replayed too: attempt caps hold
    events += _item("each", 1, attempt=1, output="r1")
    events += _item("each", 3, output="cancelled")
    events.append(ev.AttemptFailed(phase_id="each", node_path="each#item-3", attempt=0, error="Aborted", why="aborted"))
    events.append(ev.AttemptStarted(phase_id="each", node_path="each#item-2", attempt=0, prompt="review 2", agent="a"))
    # killed here: item 2 never returned

    answers = in_flight_answers(events, ["each"])
    assert [(c.node_path, c.attempt, c.output or c.error) for c in answers] == [
        ("each#item-0", 0, "r0"),
        ("each#item-1", 0, "429 too many requests"),
        ("each#item-1", 1, "r1"),
    ]
    assert in_flight_answers(events, []) == []  # phases that finished are never re-run, so never asked

    runner = CassetteRunner(answers)
    first = await_run(runner, AgentRequest(node_path="each#item-1", phase_id="each", task="review 1", agent="a"))
    assert first.failed and first.error == "429 too many requests"  # the same sequence as before the kill
    served = await_run(runner, AgentRequest(node_path="each#item-1", phase_id="each", task="review 1", agent="a"))
    assert served.output == "r1" and served.usage is None  # no new tokens
    missing = await_run(runner, AgentRequest(node_path="each#item-2", phase_id="each", task="review 2", agent="a"))
    assert missing.failed and "each#item-2" in (missing.error or "")


def await_run(runner: CassetteRunner, request: AgentRequest):
    import asyncio

    return asyncio.run(runner.run(request))
