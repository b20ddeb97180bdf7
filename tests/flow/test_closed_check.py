"""`tftui check` applies taskflow's closed schema: every error names where (line:col, phase, field)
and the fix, and a flow with one does not load (so nothing runs)."""

from __future__ import annotations

import json

from tftui.flow.load import load_flow_text


def check(flow, args=None):
    text = json.dumps(flow, indent=1)
    return load_flow_text(text, "f.json", args=args)


def errors(flow, args=None):
    return [d for d in check(flow, args).diagnostics if d.is_error]


def agent(**extra):
    return {"id": "a", "task": "t", **extra}


def test_unknown_phase_field_is_an_error_at_the_key_with_did_you_mean():
    result = check({"name": "f", "phases": [{"id": "up", "task": "x"}, agent(dependOn=["up"])]})
    assert result.flow is None
    (d,) = result.errors
    assert d.format("f.json") == (
        "f.json:11:4: error: Phase 'a': unknown field 'dependOn' — did you mean 'dependsOn'? [a]"
    )
    assert (d.phase_id, d.field) == ("a", "dependOn")


def test_phase_name_and_description_are_rejected_with_the_fix():
    messages = [d.message for d in errors({"name": "f", "phases": [agent(name="A", description="B")]})]
    assert messages == [
        "Phase 'a': unknown field 'name' — phases have no display name: the 'id' names the phase; remove it",
        "Phase 'a': unknown field 'description' — phases have no description: write notes in the flow's "
        "top-level 'description'; remove it",
    ]


def test_expand_mode_and_the_old_mode_spelling():
    frag = {"name": "g", "phases": [{"id": "a", "task": "t"}]}
    ok = check({"name": "f", "phases": [{"id": "e", "type": "expand", "expandMode": "graft", "def": frag}]})
    assert ok.flow is not None and ok.flow.phases[0].expand_mode == "graft"
    old = errors({"name": "f", "phases": [{"id": "e", "type": "expand", "mode": "graft", "def": frag}]})
    assert [d.message for d in old] == ["Phase 'e': unknown field 'mode' — did you mean 'expandMode'?"]
    # taskflow's flat `mode` (a tournament's best/aggregate) is accepted on any phase
    assert errors({"name": "f", "phases": [{"id": "e", "type": "expand", "mode": "aggregate", "def": frag}]}) == []
    bad = errors({"name": "f", "phases": [{"id": "e", "type": "expand", "expandMode": "flat", "def": frag}]})
    assert len(bad) == 1 and bad[0].field == "expandMode"


def test_unknown_keys_of_branches_retry_cache_and_the_flow():
    flow = {
        "name": "f",
        "budegt": {"maxTokens": 10},
        "phases": [
            {"id": "fan", "type": "parallel", "branches": [{"task": "x", "agnent": "a"}]},
            agent(retry={"max": 1, "backof": 10}, cache={"scope": "run-only", "TTL": "1h"}),
        ],
    }
    assert [d.message for d in errors(flow)] == [
        "Unknown top-level field 'budegt' — did you mean 'budget'?",
        "Phase 'fan': branches[0] has unknown field 'agnent' — did you mean 'agent'?",
        "Phase 'a': retry has unknown field 'backof' — did you mean 'backoffMs'?",
        "Phase 'a': cache has unknown field 'TTL' — did you mean 'ttl'?",
    ]


def test_a_key_of_another_phase_type_is_only_a_warning_unless_its_value_is_wrong():
    result = check({"name": "f", "phases": [agent(variants=3), {"id": "b", "task": "t", "thinking": "lo"}]})
    assert [d.message for d in result.warnings] == [
        "Phase 'a' (agent): 'variants' is not used by agent phases and is ignored"
    ]
    assert [d.message for d in result.errors] == [
        "Phase 'b': 'thinking' must be one of off, none, minimal, low, medium, high, xhigh, max, ultra; got 'lo' — "
        "did you mean 'low'?"
    ]
    assert [d.field for d in errors({"name": "f", "phases": [agent(convergence="yes")]})] == ["convergence"]


def test_flow_level_rules_version_and_budget():
    assert [d.field for d in errors({"name": "f", "version": "2", "phases": [agent()]})] == ["version"]
    empty = errors({"name": "f", "budget": {}, "phases": [agent()]})
    assert [d.message for d in empty] == [
        "Field 'budget' sets no cap — give it 'maxUSD' and/or 'maxTokens', or remove it"
    ]
    assert errors({"name": "f", "budget": {"maxUSD": 0}, "phases": [agent()]}) == []


def test_cwd_bridge_rules():
    typed = {"pkg": {"type": "relative-path"}}
    assert errors({"name": "f", "args": typed, "phases": [agent(cwd="{args.pkg}")]}) == []
    legacy = errors({"name": "f", "args": {"pkg": {"required": True}}, "phases": [agent(cwd="{args.pkg}")]})
    assert [(d.phase_id, d.field) for d in legacy] == [("a", "cwd")]
    assert "must be declared with type 'relative-path' — add \"type\": \"relative-path\" to args.pkg" in legacy[0].message
    retry = errors({"name": "f", "args": typed, "phases": [agent(cwd="{args.pkg}", retry={"max": 2})]})
    assert [d.field for d in retry] == ["retry"]
    mixed = errors({"name": "f", "args": typed, "phases": [agent(cwd="src/{args.pkg}")]})
    assert "exactly one whole {args.X}" in mixed[0].message


def test_branch_cwd_rules():
    race = {"id": "r", "type": "race", "branches": [{"task": "a", "cwd": "x"}, {"task": "b"}]}
    assert [d.message for d in errors({"name": "f", "phases": [race]})] == [
        "Phase 'r': branches[0].cwd is only supported on parallel phases — remove it or set the phase's 'cwd'"
    ]
    par = {"id": "p", "type": "parallel", "cwd": "worktree", "branches": [{"task": "a", "cwd": "x"}]}
    assert "cannot override the phase's cwd 'worktree'" in errors({"name": "f", "phases": [par]})[0].message


def test_map_over_must_be_a_reference_and_idle_timeout_zero_needs_a_timeout():
    mapped = errors({"name": "f", "phases": [{"id": "m", "type": "map", "over": ["a"], "task": "{item}"}]})
    assert [d.field for d in mapped] == ["over"] and "not a literal array" in mapped[0].message
    idle = errors({"name": "f", "idleTimeout": 0, "phases": [agent()]})
    assert [(d.phase_id, d.field) for d in idle] == [("a", "timeout")]
    assert errors({"name": "f", "idleTimeout": 0, "phases": [agent(timeout=60000)]}) == []


def test_cache_ttl_and_fingerprint():
    bad = errors({"name": "f", "phases": [agent(cache={"ttl": "soon", "fingerprint": ["HEAD"]})]})
    assert [d.path[-2:] for d in bad] == [("cache", "ttl"), ("fingerprint", 0)]


def test_typed_arg_declarations():
    flow = {"name": "f", "args": {"n": {"type": "number", "minimum": 3, "maximum": 1, "default": 2}}, "phases": [agent()]}
    assert [d.message for d in errors(flow)] == ["Argument 'n': minimum (3) must be <= maximum (1)"]
    wrong_default = {"name": "f", "args": {"on": {"type": "boolean", "default": "yes"}}, "phases": [agent()]}
    assert [d.path for d in errors(wrong_default)] == [("args", "on", "default")]


def test_typed_arg_values_at_invocation_name_the_arg_type_value_and_phase():
    flow = {
        "name": "f",
        "args": {"limit": {"type": "number", "minimum": 1, "maximum": 10}},
        "phases": [agent(task="take {args.limit}")],
    }
    assert check(flow, args={"limit": 5}).flow is not None
    result = check(flow, args={"limit": 50})
    assert result.flow is None
    (d,) = result.errors
    assert d.format("f.json").startswith(
        "f.json:4:12: error: Argument 'limit' must be a number >= 1 and <= 10, got 50 (type 'number')"
    )
    assert d.phase_id == "a"
    assert check(flow).flow is not None  # static mode: no invocation to check


def test_strict_flow_refuses_an_undeclared_invocation_arg():
    flow = {"name": "f", "strictInterpolation": True, "args": {"topic": {}}, "phases": [agent(task="{args.topic}")]}
    assert check(flow, args={"topic": "x"}).flow is not None
    result = check(flow, args={"topic": "x", "tpoic": "y"})
    assert [d.message for d in result.errors] == [
        "Strict interpolation: Invocation argument 'tpoic' is undeclared — declare it in 'args' or do not pass it"
    ]
    assert check({**flow, "strictInterpolation": False}, args={"tpoic": "y"}).errors == []


def test_loose_shared_fields_and_context_sharing_ids():
    bad = errors({"name": "f", "phases": [agent(tools="read", contextLimit="8k", concurrency=True, shareContext=1)]})
    assert [d.field for d in bad] == ["contextLimit", "concurrency", "tools", "shareContext"]
    assert errors({"name": "f", "phases": [agent(tools=["read"], contextLimit=500, concurrency=2)]}) == []
    shared = errors({"name": "f", "contextSharing": True, "phases": [{"id": "a b", "task": "t"}]})
    assert [d.message for d in shared] == [
        "Phase 'a b': ids used with context sharing must match [A-Za-z0-9._-]+ — rename the phase"
    ]
