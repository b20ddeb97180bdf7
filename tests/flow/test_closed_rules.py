"""The closed schema's rules (tftui.flow.closed): what taskflow 0.2.4 rejects, tftui rejects, with the fix."""

from __future__ import annotations

import pytest

from tftui.flow import closed


def test_unknown_field_suggests_the_closest_known_key():
    assert closed.unknown_field("dependOn", closed.PHASE_KEYS, phase_type="agent") == (
        "unknown field 'dependOn' — did you mean 'dependsOn'?"
    )
    assert "did you mean 'budget'" in closed.unknown_field("budegt", closed.FLOW_KEYS)
    assert "allowed: task, agent, cwd" in closed.unknown_field("zzz", closed.BRANCH_KEYS)


def test_old_expand_mode_spelling_and_phase_names_say_the_fix():
    assert closed.unknown_field("mode", closed.PHASE_KEYS, phase_type="expand") == (
        "unknown field 'mode' — did you mean 'expandMode'?"
    )
    assert "'id' names the phase" in closed.unknown_field("name", closed.PHASE_KEYS, phase_type="agent")
    assert "top-level 'description'" in closed.unknown_field("description", closed.PHASE_KEYS, phase_type="map")
    assert closed.phase_mode_is_expand_mode("expand", "graft")
    assert not closed.phase_mode_is_expand_mode("expand", "aggregate")  # taskflow's flat `mode` accepts it


@pytest.mark.parametrize(
    ("key", "value", "bad"),
    [
        ("mode", "graft", True),
        ("mode", "aggregate", False),
        ("expandMode", "nested", False),
        ("expandMode", "flat", True),
        ("thinking", "lo", True),
        ("thinking", "ultra", False),
        ("convergence", "yes", True),
        ("variants", True, True),
        ("over", ["a"], True),
        ("tools", ["read", 1], True),
        ("batchSize", 2.5, True),
        ("batchSize", 4, False),
        ("run", ["echo", "x"], False),
    ],
)
def test_flat_value_rules(key, value, bad):
    assert (closed.flat_value_error(key, value) is not None) is bad


def test_thinking_levels():
    assert "'thinking' must be one of off, none" in (closed.thinking_error("lo") or "")
    for level in ("off", "none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"):
        assert closed.thinking_error(level) is None


def test_cwd_bridge_accepts_only_one_whole_relative_path_arg():
    typed = {"repo": "relative-path"}
    assert closed.cwd_errors("{args.repo}", typed, None, None) == []
    assert closed.cwd_errors("./repo", {}, 3, "cross-run") == []  # a literal cwd has none of these rules
    assert closed.cwd_errors("worktree", {}, None, None) == []
    legacy = closed.cwd_errors("{args.repo}", {"repo": None}, None, None)
    assert [f for _, f in legacy] == ["cwd"] and "type 'relative-path'" in legacy[0][0]
    assert "undeclared argument 'repo'" in closed.cwd_errors("{args.repo}", {}, None, None)[0][0]
    assert "exactly one whole {args.X}" in closed.cwd_errors("root/{args.repo}", typed, None, None)[0][0]
    assert "exactly one whole {args.X}" in closed.cwd_errors("{steps.plan.output}", typed, None, None)[0][0]
    retry = closed.cwd_errors("{args.repo}", typed, 1, None)
    assert [f for _, f in retry] == ["retry"] and "retry.max > 0" in retry[0][0]
    assert [f for _, f in closed.cwd_errors("{args.repo}", typed, 0, "cross-run")] == ["cache"]


def test_branch_cwd_rules():
    assert closed.branch_cwd_error("parallel", 0, "pkg/a", None) is None
    assert "only supported on parallel" in (closed.branch_cwd_error("race", 1, "pkg/a", None) or "")
    assert "placeholders" in (closed.branch_cwd_error("parallel", 0, "{args.x}", None) or "")
    assert "workspace keyword" in (closed.branch_cwd_error("parallel", 0, "temp", None) or "")
    assert "cannot override" in (closed.branch_cwd_error("parallel", 0, "pkg/a", "worktree") or "")
    assert closed.branch_cwd_error("parallel", 0, "pkg/a", "pkg") is None


def test_cache_ttl_and_fingerprints():
    assert closed.ttl_ms("30m") == 1_800_000
    assert closed.ttl_ms("500") == 500
    assert closed.ttl_ms("0s") is None and closed.ttl_ms("soon") is None and closed.ttl_ms(5) is None
    ok = {"scope": "cross-run", "ttl": "7d", "fingerprint": ["git:HEAD", "glob!:src/**", "env:CI"]}
    assert closed.cache_errors(ok) == []
    bad = closed.cache_errors({"ttl": "1 week", "fingerprint": ["git:", "HEAD", 3], "scoep": "off"})
    assert sorted(path for _, path in bad) == sorted(
        [("scoep",), ("ttl",), ("fingerprint", 0), ("fingerprint", 1), ("fingerprint", 2)]
    )
    assert "did you mean 'scope'" in bad[0][0]
    assert closed.cache_errors({"fingerprint": "git:HEAD"})[0][1] == ("fingerprint",)


def test_idle_timeout_zero_needs_a_wall_timeout():
    assert closed.idle_zero_error(0, None, None) is not None
    assert closed.idle_zero_error(None, 0, None) is not None  # the flow's 0 applies to the phase
    assert closed.idle_zero_error(0, None, 5000) is None
    assert closed.idle_zero_error(60000, 0, None) is None  # the phase's own value wins
    assert closed.idle_zero_error(None, None, None) is None


def test_tree_reduce_call_count():
    assert closed.tree_reduce_calls(8, 2) == 4 + 2 + 1
    assert closed.tree_reduce_calls(1, 2) == 0
    assert closed.tree_reduce_calls(1000, 2) > closed.TREE_REDUCE_MAX_CALLS


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("packages/api", True),
        ("a", True),
        ("", False),
        ("/abs", False),
        ("C:/x", False),
        ("a\\b", False),
        ("a//b", False),
        ("a/../b", False),
        ("./a", False),
        ("a./b", False),
        ("con", False),
        ("a/b?c", False),
        (3, False),
    ],
)
def test_relative_path_grammar(value, ok):
    assert (closed.relative_path_error(value) is None) is ok


def test_arg_declarations():
    assert closed.arg_spec_errors("n", {"type": "number", "minimum": 1, "maximum": 10, "default": 5}) == []
    assert closed.arg_spec_errors("legacy", {"default": 1, "required": True, "description": "d"}) == []
    messages = [m for m, _ in closed.arg_spec_errors("n", {"type": "number", "minimum": 5, "maximum": 1})]
    assert messages == ["Argument 'n': minimum (5) must be <= maximum (1)"]
    assert "unknown type 'nubmer' — did you mean 'number'?" in closed.arg_spec_errors("n", {"type": "nubmer"})[0][0]
    assert "only applies to args of type 'enum'" in closed.arg_spec_errors("e", {"type": "string", "values": ["a"]})[0][0]
    assert "needs 'values'" in closed.arg_spec_errors("e", {"type": "enum"})[0][0]
    assert "unique" in closed.arg_spec_errors("e", {"type": "enum", "values": ["a", "a"]})[0][0]
    assert closed.arg_spec_errors("e", {"type": "enum", "values": [1, "1"]}) == []  # a number is not a string
    default = closed.arg_spec_errors("b", {"type": "boolean", "default": "yes"})
    assert default == [("Argument 'b' default must be a boolean, got string \"yes\"", ("args", "b", "default"))]
    assert "did you mean 'default'" in closed.arg_spec_errors("x", {"defualt": 1})[0][0]


def test_invocation_values_name_the_arg_the_type_and_the_value():
    specs = {
        "limit": {"type": "number", "minimum": 1, "maximum": 10},
        "mode": {"type": "enum", "values": ["fast", "full"], "required": True},
        "dir": {"type": "relative-path"},
        "free": {"required": True},  # legacy: advisory only
    }
    assert closed.invocation_errors(specs, {"limit": 3, "mode": "fast", "dir": "src"}) == []
    errors = closed.invocation_errors(specs, {"limit": 12, "dir": "../x"})
    messages = [d.message for d in errors]
    assert messages[0].startswith("Argument 'limit' must be a number >= 1 and <= 10, got 12 (type 'number')")
    assert messages[1].startswith("Missing required argument 'mode' (one of \"fast\", \"full\")")
    assert messages[2].startswith("Argument 'dir' must not contain '.' or '..' segments, got \"../x\"")
    assert [d.path for d in errors] == [("args", "limit"), ("args", "mode"), ("args", "dir")]
    assert closed.invocation_errors(specs, {"limit": "3", "mode": "fast"})[0].message.startswith(
        "Argument 'limit' must be a number >= 1 and <= 10, got string \"3\""
    )
    assert closed.invocation_errors({"flag": {"type": "boolean"}}, {"flag": 1})[0].message.startswith(
        "Argument 'flag' must be a boolean, got number 1"
    )
