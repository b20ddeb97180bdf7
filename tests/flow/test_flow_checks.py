"""checks.py: SPEC §1.4/§1.6/§2.3 messages, order of checking, strict and runtime modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.flow.checks import check_flow
from tftui.flow.load import build_flow, load_flow_text

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def messages(flow_dict: dict, args=None, severity: str | None = None) -> list[str]:
    result = load_flow_text(json.dumps(flow_dict), args=args)
    return [d.message for d in result.diagnostics if severity is None or d.severity == severity]


def one_phase(**phase) -> dict:
    return {"name": "t", "phases": [{"id": "p", **phase}]}


# (phase fields, expected error messages) — the per-type requirement matrix (SPEC §2.3)
MATRIX = [
    ({"type": "agent"}, ["Phase 'p' (agent) requires 'task'"]),
    ({}, ["Phase 'p' (agent) requires 'task'"]),
    ({"type": "agent", "task": "x"}, []),
    ({"type": "parallel"}, ["Phase 'p' (parallel) requires non-empty 'branches'"]),
    ({"type": "parallel", "branches": []}, ["Phase 'p' (parallel) requires non-empty 'branches'"]),
    ({"type": "parallel", "branches": [{"task": 1}]}, ["Phase 'p': branches[0].task must be a string"]),
    ({"type": "parallel", "branches": [{"task": "a"}]}, []),
    ({"type": "map", "task": "x"}, ["Phase 'p' (map) requires 'over'"]),
    ({"type": "map", "over": "{steps.a.json}"}, ["Phase 'p' (map) requires 'task'"]),
    (
        {"type": "map", "over": ["a", "b"], "task": "{item}"},
        [
            "Phase 'p' (map): 'over' must be a string interpolation ref (e.g. \"{steps.scan.json}\"), not a literal "
            "array — to fan out over a fixed list, emit it from an upstream phase and reference that phase's .json"
        ],
    ),
    ({"type": "reduce", "task": "x"}, ["Phase 'p' (reduce) requires 'from'"]),
    ({"type": "gate"}, ["Phase 'p' (gate) requires 'task' (or 'score')"]),
    (
        {"type": "gate", "task": "t", "eval": ["{args.x} == 1", 3]},
        ["Phase 'p' (gate): eval[1] must be a string condition, got number"],
    ),
    ({"type": "approval"}, []),
    (
        {"type": "loop"},
        [
            "Phase 'p' (loop) requires 'task' (the iteration body)",
            "Phase 'p' (loop) requires 'until' (the stop condition)",
        ],
    ),
    (
        {"type": "loop", "task": "x", "until": "{loop.iteration} > 2", "maxIterations": 0},
        ["Phase 'p' (loop): maxIterations must be a number >= 1"],
    ),
    (
        {"type": "loop", "task": "x", "until": "{loop.iteration} > 2", "maxIterations": 101},
        ["Phase 'p' (loop): maxIterations must be <= 100"],
    ),
    (
        {"type": "tournament"},
        ["Phase 'p' (tournament) requires 'task' (the competitor prompt) or non-empty 'branches'"],
    ),
    (
        {"type": "tournament", "task": "x", "variants": 1},
        ["Phase 'p' (tournament): variants must be a number >= 2"],
    ),
    ({"type": "tournament", "task": "x", "variants": 21}, ["Phase 'p' (tournament): variants must be <= 20"]),
    (
        {"type": "tournament", "branches": [{"task": "a"}]},
        ["Phase 'p' (tournament): 'branches' needs at least 2 competitors"],
    ),
    ({"type": "tournament", "task": "x", "mode": "worst"}, ["Phase 'p' (tournament): unknown mode 'worst'"]),
    ({"type": "script"}, ["Phase 'p' (script) requires 'run' (the shell command)"]),
    (
        {"type": "script", "run": []},
        [
            "Phase 'p' (script) requires 'run' (the shell command)",
            "Phase 'p' (script): 'run' array must be non-empty with a valid first element",
        ],
    ),
    (
        {"type": "script", "run": "echo {args.x}"},
        [
            "Phase 'p' (script): string 'run' must not contain interpolation placeholders (use array form or pipe through 'input')"
        ],
    ),
    (
        {"type": "script", "run": ["echo"], "retry": {"max": 1}},
        ["Phase 'p' (script): 'retry' is not supported for script phases"],
    ),
    (
        {"type": "script", "run": ["echo"], "output": "json"},
        ["Phase 'p' (script): 'output:\"json\"' is not supported for script phases"],
    ),
    (
        {"type": "script", "run": ["echo"], "timeout": 500000},
        ["Phase 'p' (script): 'timeout' must be a number between 1000 and 300000 ms"],
    ),
    (
        {"type": "flow"},
        ["Phase 'p' (flow) requires 'use' (a saved flow name) or 'def' (an inline definition)"],
    ),
    (
        {"type": "flow", "use": "a", "def": {}},
        ["Phase 'p' (flow): 'use' and 'def' are mutually exclusive — provide exactly one"],
    ),
    ({"type": "race", "branches": [{"task": "a"}]}, ["Phase 'p' (race): needs at least 2 branches"]),
    ({"type": "race"}, ["Phase 'p' (race) requires non-empty 'branches'"]),
    ({"type": "expand"}, ["Phase 'p' (expand) requires 'def' (fragment Taskflow or {steps.X.json})"]),
    (
        {"type": "agent", "task": "x", "run": ["ls"]},
        ["Phase 'p' (agent): 'run' is only valid for script phases"],
    ),
    (
        {"type": "agent", "task": "x", "timeout": 10},
        ["Phase 'p' (agent): 'timeout' must be a number >= 1000 ms"],
    ),
    (
        {"type": "approval", "timeout": 5000},
        ["Phase 'p' (approval): 'timeout' is not supported for approval phases"],
    ),
    (
        {"type": "agent", "task": "x", "score": {"scorers": []}},
        ["Phase 'p' (agent): 'score' is only valid for gate phases"],
    ),
    (
        {"type": "agent", "task": "x", "reflexion": True},
        ["Phase 'p' (agent): 'reflexion' is only valid for loop phases"],
    ),
    (
        {"type": "parallel", "branches": [{"task": "a"}], "expect": {"type": "object"}},
        ["Phase 'p' (parallel): 'expect' is only valid for agent/gate/reduce/loop phases"],
    ),
    (
        {"task": "x", "expect": {"type": "object"}},
        ["Phase 'p': 'expect' requires 'output': \"json\" (the contract validates the parsed JSON output)"],
    ),
    ({"task": "x", "join": "some"}, ["Phase 'p': unknown join mode 'some'"]),
    ({"task": "x", "retry": {"max": -1}}, ["Phase 'p': retry.max must be a number >= 0"]),
    ({"task": "x", "retry": {"max": 21}}, ["Phase 'p': retry.max must be <= 20"]),
    (
        {"task": "x", "retry": {"max": 1, "backoffMs": 60001}},
        ["Phase 'p': retry.backoffMs must be between 0 and 60000"],
    ),
    (
        {"task": "x", "retry": {"max": 1, "backoffMs": 10, "factor": 11}},
        ["Phase 'p': retry.factor must be between 1 and 10"],
    ),
    (
        {"task": "x", "agent": "exec_code"},
        [
            "Phase 'p': agent name 'exec_code' uses underscores — use hyphens (e.g. 'executor-code' not 'executor_code')"
        ],
    ),
    (
        {"task": "x", "idleTimeout": 500},
        ["Phase 'p': 'idleTimeout' must be 0 (disable) or >= 1000 ms, got 500"],
    ),
    ({"type": "approval", "idleTimeout": 0}, []),
    (
        {"task": "x", "agent": "Executor"},
        [
            "Phase 'p': agent 'Executor' has invalid name format (expected lowercase alphanumeric with hyphens)"
        ],
    ),
]


@pytest.mark.parametrize(("phase", "expected"), MATRIX)
def test_requirement_matrix(phase, expected):
    assert messages(one_phase(**phase), severity="error") == expected


def test_underscore_id():
    assert messages({"name": "t", "phases": [{"id": "audit_each", "task": "x"}]}) == [
        "Phase 'audit_each': id uses underscores — use hyphens for consistency with interpolation placeholders "
        "(e.g. {steps.audit-each.output})"
    ]


def test_id_with_unreferenceable_characters_warns():
    assert messages({"name": "t", "phases": [{"id": "a.b", "task": "x"}]}) == [
        "Phase 'a.b': id contains characters that placeholders cannot reference"
    ]


def test_duplicate_ids_and_final_count():
    flow = {
        "name": "t",
        "phases": [{"id": "a", "task": "x", "final": True}, {"id": "a", "task": "y", "final": True}],
    }
    assert messages(flow) == ["Duplicate phase id: a", "Only one phase may be marked 'final' (found 2)"]


def test_cycle_only_reported_when_no_error_so_far():
    cyclic = [{"id": "a", "task": "x", "dependsOn": ["b"]}, {"id": "b", "task": "y", "dependsOn": ["a"]}]
    assert messages({"name": "t", "phases": cyclic}) == ["Dependency cycle detected: a -> b -> a"]
    with_error = cyclic + [{"id": "c", "type": "map", "task": "x"}]
    assert messages({"name": "t", "phases": with_error}) == ["Phase 'c' (map) requires 'over'"]


def test_longer_cycle_path():
    phases = [
        {"id": "x", "task": "t"},
        {"id": "a", "task": "t", "dependsOn": ["x", "c"]},
        {"id": "b", "task": "t", "dependsOn": ["a"]},
        {"id": "c", "task": "t", "from": ["b"]},
    ]
    assert messages({"name": "t", "phases": phases}) == ["Dependency cycle detected: a -> c -> b -> a"]


def test_reachability_and_self_reference():
    phases = [
        {"id": "a", "task": "x"},
        {"id": "b", "task": "uses {steps.a.output}"},
        {"id": "c", "task": "uses {steps.c.output} and {steps.ghost.output}", "dependsOn": ["a"]},
        {"id": "d", "task": "{steps.a.output}", "dependsOn": ["c"]},
        {"id": "e", "task": "{steps.b.output}", "dependsOn": ["a"], "join": "any"},
        {"id": "l", "type": "loop", "task": "{steps.l.output}", "until": "{steps.l.json.done}"},
    ]
    assert messages({"name": "t", "phases": phases}) == [
        "Phase 'b': task references {steps.a.*} but 'a' is not reachable via dependsOn. The phase will run in "
        "parallel with 'a' and see the literal placeholder. Add \"dependsOn\": [\"a\"] (or include 'a' transitively).",
        "Phase 'c': references its own output via {steps.c.*}; this is almost always a bug.",
    ]


def test_reachability_skipped_after_an_error():
    phases = [{"id": "a", "task": "x"}, {"id": "b", "task": "{steps.a.output}", "dependsOn": ["zzz"]}]
    assert messages({"name": "t", "phases": phases}) == ["Phase 'b': dependsOn unknown phase 'zzz'"]


def test_warnings():
    phases = [
        {"id": "a", "task": "x", "until": "{x}", "maxIterations": 3, "retry": {"max": 1, "factor": 2}},
        {"id": "b", "type": "approval", "idempotent": False},
        {"id": "c", "task": "x", "dependson": ["a"], "tasks": 1},
    ]
    assert messages({"name": "t", "phases": phases}, severity="warning") == [
        "Phase 'a' (agent): 'until' is only meaningful on loop phases and is ignored here",
        "Phase 'a' (agent): 'maxIterations' is only meaningful on loop phases and is ignored here",
        "Phase 'a': retry.factor has no effect without retry.backoffMs",
        "Phase 'b' (approval): 'idempotent: false' is a no-op here — approval phases run no subagent (no transient "
        "retry) and are already excluded from cross-run cache. The flag has no effect.",
    ]
    # taskflow's schema is closed: unknown fields are errors (with the fix), never ignored
    assert messages({"name": "t", "phases": phases}, severity="error") == [
        "Phase 'c': unknown field 'dependson' — did you mean 'dependsOn'?",
        "Phase 'c': unknown field 'tasks' — did you mean 'task'?",
    ]


def test_gate_eval_and_score_warning_and_score_shape_errors():
    gate = {
        "type": "gate",
        "eval": ["{steps.x.output} contains ok"],
        "score": {"scorers": [{"type": "contains"}]},
    }
    flow = {"name": "t", "phases": [{"id": "x", "task": "t"}, {"id": "g", "dependsOn": ["x"], **gate}]}
    result = load_flow_text(json.dumps(flow))
    errors = [d.message for d in result.errors]
    assert errors == ["Phase 'g': score.scorers[0].value: required string for 'contains'"]
    assert [d.message for d in result.warnings] == [
        "Phase 'g' (gate): both 'eval' and 'score' are set — eval runs first (all-pass skips the gate entirely), "
        "then score. This is valid but usually one of the two suffices."
    ]
    assert (
        result.errors[0].phase_id == "g" and result.errors[0].json_path == "$.phases[1].score.scorers[0]"
    )  # value is missing


def test_expect_contract_shape_errors():
    errs = messages(
        one_phase(task="x", output="json", expect={"type": "object", "propertys": {}}), severity="error"
    )
    assert len(errs) == 1 and errs[0].startswith("Phase 'p': $.propertys: unknown contract keyword")


def test_guard_syntax_errors_are_warnings():
    phases = [
        {"id": "a", "task": "x", "when": "{args.x} == == 2"},
        {"id": "l", "type": "loop", "task": "x", "until": "(1 == 1"},
        {"id": "g", "type": "gate", "task": "x", "eval": ["'open", "{args.y} contains z"]},
    ]
    result = load_flow_text(json.dumps({"name": "t", "phases": phases}))
    assert result.ok  # guards fail open: warnings only
    got = [d.message for d in result.warnings]
    assert len(got) == 3
    assert got[0].startswith("Phase 'a': when: unexpected operator '==' at position ")
    assert got[0].endswith(" — the guard fails open (the phase will run)")
    assert got[1].startswith("Phase 'l': until: missing )")
    assert got[2].startswith("Phase 'g': eval[0]: unterminated string")
    assert [d.json_path for d in result.warnings] == [
        "$.phases[0].when",
        "$.phases[1].until",
        "$.phases[2].eval[0]",
    ]


def test_strict_interpolation_promotes_warnings():
    flow = {"name": "t", "strictInterpolation": True, "phases": [{"id": "a", "task": "x", "convergence": True}]}
    result = load_flow_text(json.dumps(flow))
    assert [(d.severity, d.message) for d in result.diagnostics] == [
        (
            "error",
            "Strict interpolation: Phase 'a' (agent): 'convergence' is only meaningful on loop phases and is "
            "ignored here",
        )
    ]
    assert result.flow is None


def test_runtime_mode_arg_warnings():
    flow = {
        "name": "t",
        "args": {"topic": {"default": "x"}, "who": {"required": True}},
        "phases": [{"id": "a", "task": "{args.topic} {args.who} {args.missing} {args.missing}"}],
    }
    assert messages(flow) == []  # static mode: no arg checks
    assert messages(flow, args={"who": "me"}) == [
        "Taskflow references {args.missing} but the invocation did not provide 'missing'. The placeholder will "
        "remain literal unless a default or runtime arg is supplied."
    ]
    assert messages(flow, args={}) == [
        "Legacy untyped argument 'who' is marked required but remains advisory; add an explicit type to enforce it",
        "Taskflow references {args.who} but the invocation did not provide 'who'. The placeholder will remain "
        "literal unless a default or runtime arg is supplied.",
        "Taskflow references {args.missing} but the invocation did not provide 'missing'. The placeholder will "
        "remain literal unless a default or runtime arg is supplied.",
    ]


def test_check_flow_on_a_model_directly():
    flow, diags, _ = build_flow({"name": "", "phases": [{"id": "a", "task": "x"}]})
    assert diags == []
    assert [d.message for d in check_flow(flow)] == ["Missing or invalid 'name'"]


def test_conformance_flows_validate_like_the_reference():
    cases = json.loads((CONFORMANCE / "flows.json").read_text())["cases"]
    for case in cases:
        expected = case["validation"]
        result = load_flow_text(json.dumps(case["input"]["flow"]), args=case["input"].get("args"))
        assert [d.message for d in result.errors] == expected["errors"], case["id"]
        # tftui adds warnings of its own (guard syntax, unknown keys); the reference's must all be there
        ours = [d.message for d in result.warnings]
        assert [w for w in expected["warnings"] if w in ours] == expected["warnings"], case["id"]
