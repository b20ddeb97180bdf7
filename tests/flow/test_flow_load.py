"""Loader: JSON/JSONC/bytes, shorthand, schema errors and their line:col."""

from __future__ import annotations

import json

import pytest

from tftui.flow.load import load_flow, load_flow_text


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line:col of the nth occurrence of needle (computed independently of the loader)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def only(result):
    assert len(result.diagnostics) == 1, [d.format() for d in result.diagnostics]
    return result.diagnostics[0]


def test_valid_flow_loads():
    result = load_flow_text('{"name": "x", "phases": [{"id": "a", "task": "hi"}]}')
    assert result.ok and result.diagnostics == []
    assert result.flow.phases[0].id == "a"


def test_syntax_error_points_at_line_and_col():
    text = '{\n  "name": "x",\n  "phases": [\n    {"id": "a" "task": "t"}\n  ]\n}\n'
    d = only(load_flow_text(text, "f.json"))
    assert d.severity == "error"
    # issue 15 item 17: said where the comma goes (right after "a"), not at the next key
    assert d.message == "Invalid JSON: missing comma after line 4? (expected ',' before \"task\")"
    assert (d.line, d.col) == (4, 15)
    assert d.format("f.json").startswith("f.json:4:15: error: Invalid JSON: missing comma after line 4?")


def test_schema_error_deep_in_a_phase_points_at_the_value():
    text = """{
  "name": "review-flow",
  "phases": [
    {"id": "plan", "task": "Plan"},
    {
      "id": "review",
      "task": "Review {steps.plan.output}",
      "dependsOn": "plan"
    }
  ]
}"""
    d = only(load_flow_text(text))
    assert d.message == "Phase 'review': field 'dependsOn' must be an array of phase ids, got string"
    assert (d.line, d.col) == (8, 20) == where(text, '"plan"', nth=1)
    assert d.phase_id == "review" and d.field == "dependsOn"
    assert d.json_path == "$.phases[1].dependsOn"


def test_dependency_cycle_names_the_path():
    text = """{"name": "c", "phases": [
  {"id": "a", "task": "x", "dependsOn": ["b"]},
  {"id": "b", "task": "y", "dependsOn": ["a"]}
]}"""
    d = only(load_flow_text(text))
    assert d.message == "Dependency cycle detected: a -> b -> a"
    assert d.phase_id == "a"
    assert (d.line, d.col) == (2, 42) == where(text, '"b"]')


def test_unknown_depends_on():
    text = """{"name": "u", "phases": [
  {"id": "a", "task": "x"},
  {"id": "b", "task": "y",
   "dependsOn": ["a", "nope"]}
]}"""
    d = only(load_flow_text(text))
    assert d.message == "Phase 'b': dependsOn unknown phase 'nope'"
    assert (d.line, d.col) == (4, 23) == where(text, '"nope"')
    assert d.phase_id == "b"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("onBlock", '"again"', "Phase 'g': field 'onBlock' must be 'halt' or 'retry', got \"again\""),
        ("output", '"yaml"', "Phase 'g': field 'output' must be 'text' or 'json', got \"yaml\""),
        ("optional", '"yes"', "Phase 'g': field 'optional' must be a boolean, got string"),
        ("when", "3", "Phase 'g': field 'when' must be a string, got number"),
    ],
)
def test_bad_values_are_reported_at_the_value(field, value, message):
    text = (
        '{"name": "n", "phases": [\n  {"id": "g", "type": "gate", "task": "t",\n   "'
        + field
        + '": '
        + value
        + "}\n]}"
    )
    d = only(load_flow_text(text))
    assert d.message == message
    assert (d.line, d.col) == where(text, value, nth=text.count(value) - 1)
    assert d.line == 3


def test_unknown_type_uses_spec_message():
    text = '{"name": "n", "phases": [{"id": "x", "type": "wat", "task": "t"}]}'
    d = only(load_flow_text(text))
    assert d.message == "Phase 'x': unknown type 'wat'"
    assert (d.line, d.col) == (1, 46) == where(text, '"wat"')


def test_unknown_type_near_miss_suggests_the_type():
    d = only(load_flow_text('{"name": "n", "phases": [{"id": "x", "type": "mapp", "task": "t"}]}'))
    assert d.message == "Phase 'x': unknown type 'mapp' — did you mean 'map'?"


def test_top_level_typo_is_an_error_with_suggestion():
    # taskflow's flow schema is closed: an unknown key is an error, so the flow does not run
    result = load_flow_text('{"name": "n", "phases": [{"id": "a", "task": "t"}],\n "concurency": 2}')
    d = only(result)
    assert d.severity == "error"
    assert d.message == "Unknown top-level field 'concurency' — did you mean 'concurrency'?"
    assert (d.line, d.col) == (2, 2)
    assert not result.ok


def test_unknown_budget_key_is_an_error():
    d = only(load_flow_text('{"name": "n", "phases": [{"id": "a", "task": "t"}], "budget": {"maxUsd": 1}}'))
    assert d.severity == "error"
    assert d.message.startswith("Unknown field 'budget.maxUsd' — did you mean 'maxUSD'?")


def test_jsonc_comments_and_trailing_commas_keep_positions():
    text = """{
  // the flow name
  "name": "c", /* block
  comment */ "phases": [
    {"id": "a", "task": "x", "dependsOn": ["zzz"],},
  ],
}"""
    d = only(load_flow_text(text))
    assert d.message == "Phase 'a': dependsOn unknown phase 'zzz'"
    assert (d.line, d.col) == (5, 44)


def test_comment_markers_inside_strings_are_kept():
    result = load_flow_text('{"name": "a//b", "phases": [{"id": "a", "task": "/* not a comment */",}]}')
    assert result.ok
    assert result.flow.name == "a//b"
    assert result.flow.phases[0].task == "/* not a comment */"


def test_bytes_with_bom_and_undecodable_bytes():
    good = '{"name": "é", "phases": [{"id": "a", "task": "t"}]}'.encode()
    assert load_flow_text(b"\xef\xbb\xbf" + good).ok
    bad = load_flow_text(b'{"name": "\xff", "phases": []}')
    d = only(bad)
    assert d.severity == "error" and "not valid UTF-8" in d.message
    assert (d.line, d.col) == (1, 11)


def test_nan_is_rejected():
    d = only(load_flow_text('{"name": "n", "phases": [{"id": "a", "task": "t", "timeout": NaN}]}'))
    assert "NaN" in d.message and d.col == 62


def test_top_level_must_be_an_object():
    assert only(load_flow_text("[1, 2]")).message == "Flow file must be a JSON object, got array"


def test_missing_name_and_phases():
    result = load_flow_text("{}")
    assert [d.message for d in result.diagnostics] == [
        "Missing or invalid 'name'",
        "Taskflow must have at least one phase",
    ]


@pytest.mark.parametrize(
    ("phase", "message"),
    [
        ('{"task": "t"}', "Each phase requires an 'id'"),
        ('{"id": 3, "task": "t"}', "Phase id must be a string, got number"),
        ('"a"', "Each phase must be an object, got string"),
    ],
)
def test_phase_id_errors(phase, message):
    text = '{"name": "n", "phases": [' + phase + ', {"id": "ok", "task": "t"}]}'
    assert only(load_flow_text(text)).message == message


def test_shorthand_task():
    result = load_flow_text('{"task": "Summarize {args.path}", "agent": "writer"}')
    assert result.ok, result.diagnostics
    flow = result.flow
    assert flow.name == "task" and result.shorthand == "task"
    (phase,) = flow.phases
    assert (phase.id, phase.type, phase.final, phase.agent) == ("main", "agent", True, "writer")


def test_shorthand_tasks_merges_contexts():
    text = json.dumps(
        {
            "name": "fan",
            "context": ["README.md"],
            "tasks": [
                {"task": "a", "context": ["x.py"]},
                {"task": "b", "agent": "rev", "context": ["x.py", "y.py"]},
            ],
        }
    )
    result = load_flow_text(text)
    assert result.ok, result.diagnostics
    (phase,) = result.flow.phases
    assert (phase.id, phase.type, phase.final) == ("parallel", "parallel", True)
    assert [b.task for b in phase.branches] == ["a", "b"]
    assert phase.branches[1].agent == "rev"
    assert phase.context == ["README.md", "x.py", "y.py"]


def test_shorthand_chain_and_its_context_warning():
    text = (
        '{\n "context": ["a.md"],\n "chain": [{"task": "one"}, "two {previous.output}", {"task": "three"}]}'
    )
    result = load_flow_text(text)
    assert result.ok
    assert [p.id for p in result.flow.phases] == ["step1", "step2", "step3"]
    assert [p.depends_on for p in result.flow.phases] == [[], ["step1"], ["step2"]]
    assert [p.final for p in result.flow.phases] == [False, False, True]
    assert result.flow.name == "chain"
    d = only(result)
    assert d.severity == "warning" and "chain ignores top-level 'context'" in d.message
    assert (d.line, d.col) == (2, 2)


def test_shorthand_errors_point_into_the_shorthand_file():
    text = '{"chain": [\n  {"task": "one"},\n  {"agent": "bad_agent", "task": "two"}\n]}'
    d = only(load_flow_text(text))
    assert d.message.startswith("Phase 'step2': agent name 'bad_agent' uses underscores")
    assert (d.line, d.col) == (3, 13)
    assert d.json_path == "$.chain[1].agent"


def test_full_flow_is_not_shorthand_even_with_task_key():
    result = load_flow_text('{"name": "n", "task": "x", "phases": [{"id": "a", "task": "t"}]}')
    assert result.shorthand is None
    assert only(result).message == (
        "Unknown top-level field 'task' — a flow with 'phases' is not shorthand: move the task into a phase"
    )


def test_load_flow_unreadable(tmp_path):
    result = load_flow(tmp_path / "missing.json")
    assert result.unreadable and result.missing and not result.ok
    assert result.diagnostics[0].message == "flow file not found"
    result = load_flow(tmp_path)
    assert result.unreadable and not result.missing
    assert result.diagnostics[0].message == "cannot read file: Is a directory"


def test_invalid_file_keeps_model_for_display():
    result = load_flow_text('{"name": "n", "phases": [{"id": "a"}]}')
    assert result.flow is None
    assert result.model is not None and result.model.phases[0].id == "a"


def test_invalid_value_is_not_also_reported_as_missing():
    text = json.dumps(
        {
            "name": "n",
            "phases": [
                {"id": "b", "type": "parallel", "branches": [1, "x"]},
                {"id": "s", "type": "script", "run": 5},
            ],
        }
    )
    assert [d.message for d in load_flow_text(text).diagnostics] == [
        "Phase 'b': branches[0] must be an object with a 'task', got number",
        "Phase 'b': branches[1] must be an object with a 'task', got string",
        "Phase 's': field 'run' must be an array or a string, got number",
    ]


def test_huge_numbers_read_as_javascript_does():
    big = "1" + "0" * 400  # JSON.parse gives Infinity; a Python int this size overflows float()
    text = '{"name": "x", "concurrency": BIG, "phases": [{"id": "a", "task": "t", "timeout": BIG}]}'
    result = load_flow_text(text.replace("BIG", big))
    assert [d.message for d in result.diagnostics] == [
        "Field 'concurrency' must be a number, got non-finite number",
        "Phase 'a' (agent): 'timeout' must be a number >= 1000 ms",
    ]
    assert load_flow_text(text.replace("BIG", str(2**60))).ok  # large but finite: fine


def test_guard_syntax_warning_points_at_the_offending_character():
    text = '{"name": "n", "phases": [\n  {"id": "a", "task": "t", "when": "{args.x} == == 2"}\n]}'
    d = only(load_flow_text(text))
    assert d.severity == "warning"
    assert d.message == (
        "Phase 'a': when: unexpected operator '==' at position 12 — the guard fails open (the phase will run)"
    )
    assert (d.line, d.col) == where(text, "== 2")
    escaped = '{"name": "n", "phases": [{"id": "a", "task": "t", "when": "\\"x\\" & y"}]}'
    assert (only(load_flow_text(escaped)).line, only(load_flow_text(escaped)).col) == where(escaped, "& y")
