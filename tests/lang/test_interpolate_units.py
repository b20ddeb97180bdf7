"""Hand-written interpolation checks: resolution heads, JS property walk, warnings."""

from __future__ import annotations

from tftui.lang.interpolate import (
    Context,
    StepView,
    interpolate,
    interpolate_value,
    missing_warning,
    placeholders,
    resolve,
)
from tftui.lang.values import MISSING


def make() -> Context:
    return Context(
        args={"s": "ab\U0001f600", "list": [10, 20], "obj": {"k": None}},
        steps={
            "gen": StepView('Here:\n```json\n{"items": [{"id": 7}]}\n```'),
            "bad": StepView("stderr text", status="failed", error="exit 2"),
        },
        previous_output="PREV",
        locals={"item": {"name": "x"}, "loop": {"iteration": 2}},
        reflexion="try harder",
    )


def test_heads() -> None:
    ctx = make()
    assert resolve("previous.output.ignored", ctx) == "PREV"
    assert resolve("previous", ctx) is MISSING
    assert resolve("reflexion", ctx) == "try harder"
    assert resolve("reflexion.x", ctx) is MISSING
    assert resolve("steps.gen.json.items.0.id", ctx) == 7
    assert resolve("steps.gen.output.x", ctx) is MISSING
    assert resolve("steps.gen", ctx) is MISSING
    assert resolve("steps.bad.output", ctx) == "[previous phase failed]"
    assert resolve("steps.bad.json", ctx) is MISSING
    assert resolve("steps.bad.error", ctx) == "exit 2"
    assert resolve("loop.iteration", ctx) == 2
    assert resolve("args.obj.k", ctx) is None


def test_js_length_and_indexing_count_utf16_units() -> None:
    ctx = make()
    assert resolve("args.s.length", ctx) == 4  # the emoji is two UTF-16 units
    assert resolve("args.s.1", ctx) == "b"
    assert resolve("args.list.length", ctx) == 2
    assert resolve("args.list.01", ctx) is MISSING  # not a canonical array index
    assert resolve("args.list.2", ctx) is MISSING


def test_step_json_parse_is_cached() -> None:
    step = StepView('{"a": 1}')
    first = step.json_value()
    assert first == {"a": 1} and step.json_value() is first
    step.output = '{"a": 2}'
    assert step.json_value() == {"a": 2}


def test_interpolate_text_and_missing() -> None:
    ctx = make()
    result = interpolate("{item.name}/{args.nope}/{ args.s }/{args.list}/{args.nope}", ctx)
    assert result.text == "x/{args.nope}/{ args.s }/[\n  10,\n  20\n]/{args.nope}"
    assert result.missing == ["args.nope", "args.nope"]
    assert interpolate(None, ctx).text == ""


def test_interpolate_value_and_placeholders() -> None:
    ctx = make()
    assert interpolate_value("{args.list}", ctx) == [10, 20]
    assert interpolate_value("{args.nope}", ctx) == "{args.nope}"
    assert interpolate_value("{args.toString}", ctx) == "{args.toString}"  # JS functions never leak
    assert placeholders("{a.b} {c} {a.b} {no space}") == ["a.b", "c"]


def test_missing_warning_text() -> None:
    assert missing_warning(["a.b", "c", "a.b"]) == (
        "unresolved refs in task: {a.b}, {c} — left intact (check dependsOn / placeholder spelling)"
    )
