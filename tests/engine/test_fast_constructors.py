"""The per-call objects the engine builds field by field (tftui.engine.events.attempt_started /
agent_returned, the fold's attempts) equal what their constructors build, every field set."""

from __future__ import annotations

from dataclasses import fields

from tftui.engine import events as ev
from tftui.engine.state import Attempt, RunState, apply
from tftui.lang.interpolate import Context, ItemTemplate, StepView, interpolate


def _as_dict(obj: object) -> dict[str, object]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}  # type: ignore[arg-type]


def test_attempt_started_is_the_constructed_event() -> None:
    made = ev.attempt_started("m", "m#item-3", 2, "[[m]] do 3", "a")
    assert _as_dict(made) == _as_dict(
        ev.AttemptStarted(phase_id="m", node_path="m#item-3", attempt=2, prompt="[[m]] do 3", agent="a")
    )
    assert ev.event_to_json(made)["kind"] == "attempt_started"


def test_agent_returned_is_the_constructed_event() -> None:
    usage = {"input": 3, "output": 4}
    for resumed in (False, True):
        made = ev.agent_returned("m", "m#item-3", 1, "out", "boom", usage, 12.5, True, 2, resumed)
        assert _as_dict(made) == _as_dict(
            ev.AgentReturned(phase_id="m", node_path="m#item-3", attempt=1, output="out", error="boom", usage=usage,
                             duration_ms=12.5, timed_out=True, exit_code=2, resumed=resumed)
        )


def test_a_folded_attempt_is_the_constructed_attempt() -> None:
    state = RunState()
    apply(state, ev.RunStarted(run_id="r", phase_ids=["m"], phase_types={"m": "map"}, seq=1, ts=5.0))
    apply(state, ev.attempt_started("m", "m#item-0", 0, "task", "a"))
    folded = state.phases["m"].attempt_log[0]
    assert _as_dict(folded) == _as_dict(Attempt(node_path="m#item-0", attempt=0, agent="a", prompt="task", started_ts=0.0))


def _context() -> Context:
    steps = {"src": StepView(output="S", json={"k": [1, 2]}), "bad": StepView(output="x", status="failed", error="E")}
    return Context(args={"who": "Ann", "n": 2}, steps=steps, previous_output="P", locals={})


def test_an_item_template_fills_as_interpolate_does() -> None:
    templates = [
        "plain text",
        "{item} and {item.id} of {args.who} ({args.n}) after {previous.output}",
        "{steps.src.json.k} {steps.bad.output} {steps.bad.error} {steps.nope.output} {item.missing} {other}",
        "{reflexion} {reflexion.x} {item.0} {item.length} 100% {item}{item} {item.toString} {item.name.length}",
    ]
    values = [{"id": 7, "name": "n7"}, "text", 3, None, [1, "two"], {"missing": {"deep": True}}]
    for template in templates:
        filler = ItemTemplate(template, _context(), "item")
        for value in values:
            expected = interpolate(template, Context(**{**_context_fields(), "locals": {"item": value}}))
            got = filler.fill(value)
            assert (got.text, got.missing) == (expected.text, expected.missing), (template, value)


def _context_fields() -> dict[str, object]:
    ctx = _context()
    return {"args": ctx.args, "steps": ctx.steps, "previous_output": ctx.previous_output, "reflexion": ctx.reflexion}


def test_the_per_phase_events_are_the_constructed_events() -> None:
    usage = {"input": 1, "turns": 1}
    pairs = [
        (ev.phase_started("p", "map", 1, 2), ev.PhaseStarted(phase_id="p", phase_type="map", depth=1, round=2)),
        (ev.guard_evaluated("p", "{x} == 1", False, "bad", True),
         ev.GuardEvaluated(phase_id="p", expr="{x} == 1", value=False, error="bad", overridden=True)),
        (ev.phase_skipped("p", "Condition not met: {x}"), ev.PhaseSkipped(phase_id="p", reason="Condition not met: {x}")),
        (ev.phase_finished("p", "failed", "o", {"k": 1}, "e", ["w"], usage, 3, {"verdict": "pass"}, 2.5, {"optional": True}),
         ev.PhaseFinished(phase_id="p", status="failed", output="o", json={"k": 1}, error="e", warnings=["w"], usage=usage,
                          attempts=3, gate={"verdict": "pass"}, duration_ms=2.5, extra={"optional": True})),
    ]
    for made, constructed in pairs:
        assert type(made) is type(constructed)
        assert _as_dict(made) == _as_dict(constructed)
