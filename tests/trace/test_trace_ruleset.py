"""Rule-set TOML (SPEC §9.3.1): every mistake is a usage error naming file, table and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.trace.rules import (
    LoopSignature,
    MaxAttempts,
    MaxTotalTokens,
    NoExternalWorkAfterBlock,
    Order,
    RequiredSteps,
)
from tftui.trace.ruleset import load_ruleset, parse_ruleset

GOOD = """\
description = "demo"

[[rules]]
id = "required_steps"
names = ["plan", "build"]

[[rules]]
id = "order"
before = "plan"
after = "build"
severity = "warning"

[[rules]]
id = "no_external_work_after_block"

[[rules]]
id = "max_attempts"
name = "build"
limit = 4

[[rules]]
id = "max_total_tokens"
limit = 2500.5

[[rules]]
id = "loop_signature"
limit = 3
"""


def test_good_ruleset_in_order_with_ids() -> None:
    loaded = parse_ruleset(GOOD, "r.toml")
    assert loaded.error is None and loaded.description == "demo"
    assert [r.rule_id for r in loaded.rules] == [
        "required_steps@1",
        "order:plan:build@1",
        "no_external_work_after_block@1",
        "max_attempts:build@1",
        "max_total_tokens@1",
        "loop_signature@1",
    ]
    r = loaded.rules
    assert r[0] == RequiredSteps(names=("plan", "build"))
    assert r[1] == Order("warning", before="plan", after="build")
    assert r[2] == NoExternalWorkAfterBlock()
    assert r[3] == MaxAttempts(name="build", limit=4)
    assert r[4] == MaxTotalTokens(limit=2500.5)
    assert r[5] == LoopSignature(keys=("planner_state", "selected_tool", "outcome"), limit=3)


def one(body: str, prefix: str = "") -> str:
    """The error for a rule set whose third table is `body` (two good tables before it)."""
    text = prefix + (
        '[[rules]]\nid = "no_external_work_after_block"\n\n'
        '[[rules]]\nid = "max_total_tokens"\nlimit = 10\n\n'
        "[[rules]]\n" + body
    )
    loaded = parse_ruleset(text, "team/rules.toml")
    assert loaded.rules == []
    assert loaded.error is not None
    return loaded.error


ERRORS = [
    ("unknown id", 'id = "max_model_calls"\nlimit = 3\n', "key 'id'", "unknown rule id 'max_model_calls'"),
    ("missing id", 'limit = 3\n', "key 'id'", "missing key 'id'"),
    ("unknown key", 'id = "order"\nbefore = "a"\nafter = "b"\nbfore = "x"\n', "key 'bfore'",
     "unknown key 'bfore' for rule 'order' (allowed: id, severity, before, after)"),
    ("missing parameter", 'id = "order"\nbefore = "a"\n', "key 'after'", "missing parameter 'after'"),
    ("mistyped names", 'id = "required_steps"\nnames = "plan"\n', "key 'names'",
     "'names' must be an array of non-empty strings"),
    ("empty names", 'id = "required_steps"\nnames = []\n', "key 'names'", "'names' must not be empty"),
    ("mistyped limit", 'id = "max_attempts"\nname = "a"\nlimit = "3"\n', "key 'limit'", "'limit' must be an integer"),
    ("float attempt limit", 'id = "max_attempts"\nname = "a"\nlimit = 2.5\n', "key 'limit'",
     "'limit' must be an integer"),
    ("negative limit", 'id = "max_total_tokens"\nlimit = -1\n', "key 'limit'", "finite number ≥ 0"),
    ("bool limit", 'id = "max_total_tokens"\nlimit = true\n', "key 'limit'", "finite number ≥ 0"),
    ("missing limit", 'id = "loop_signature"\n', "key 'limit'", "missing parameter 'limit'"),
    ("bad severity", 'id = "order"\nbefore = "a"\nafter = "b"\nseverity = "fatal"\n', "key 'severity'",
     "'severity' must be \"error\" or \"warning\""),
]


@pytest.mark.parametrize(("label", "body", "key", "problem"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_file_table_and_key(label, body, key, problem) -> None:
    error = one(body)
    assert error.startswith("team/rules.toml:8: rules[3] ")  # the third table starts on line 8
    assert key in error and problem in error


def test_duplicate_rule_is_an_error() -> None:
    error = one('id = "max_total_tokens"\nlimit = 11\n')
    assert "rules[3]" in error and "duplicate rule max_total_tokens@1 (already rules[2])" in error


def test_file_level_errors() -> None:
    assert parse_ruleset("[[rules]\n", "x.toml").error.startswith("x.toml: invalid TOML: ")
    assert parse_ruleset("", "x.toml").error == "x.toml: no [[rules]] tables: add at least one rule"
    assert parse_ruleset('rule = 1\n', "x.toml").error.startswith("x.toml: unknown top-level key 'rule'")
    assert parse_ruleset('rules = 1\n', "x.toml").error.startswith("x.toml: 'rules' must be an array")
    # inline-table arrays have no [[rules]] headers: the position is still named, without a line
    err = parse_ruleset('rules = [{id = "order"}]\n', "x.toml").error
    assert err.startswith("x.toml: rules[1] key 'before': ")


def test_load_ruleset_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert len(load_ruleset(path).rules) == 6
    missing = load_ruleset(tmp_path / "nope.toml")
    assert missing.error.startswith("cannot read rule set ") and "nope.toml" in missing.error


def test_shipped_sample_ruleset_loads() -> None:
    root = Path(__file__).resolve().parents[2]
    loaded = load_ruleset(root / "sample_flows" / "validate.rules.toml")
    assert loaded.error is None and loaded.rules


def test_100k_duplicate_rules_are_refused_before_parsing() -> None:
    """Issue 17, fault 7: a rule file with 100,000 tables (took minutes to refuse) is refused at once."""
    from tftui.trace.ruleset import MAX_RULES, parse_ruleset

    text = '[[rules]]\nid = "max_total_tokens"\nlimit = 5\n' * 100_000
    load = parse_ruleset(text, "dup.toml")
    assert load.error == f"dup.toml: 100000 [[rules]] tables; a rule set holds at most {MAX_RULES} rules"
    few = parse_ruleset('[[rules]]\nid = "max_total_tokens"\nlimit = 5\n' * 3, "dup.toml")
    assert few.error is not None and "dup.toml:4: rules[2] key 'id': duplicate rule max_total_tokens@1" in few.error
