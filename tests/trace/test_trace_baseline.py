"""Trace baselines (SPEC §9.6): absolute AND relative slack, comparison entries, TOML round trip."""

from __future__ import annotations

from typing import Any

import pytest

from tftui.trace.baseline import (
    DEFAULT_SLACK,
    BaselineFile,
    Slack,
    TraceBaseline,
    baseline_from_metrics,
    compare,
    dump_baseline,
    is_regression,
    parse_baseline,
    trace_metrics,
)
from tftui.trace.model import TraceColumns

SLACK_CASES = [
    # (current, baseline, slack, regression)
    (150, 100, Slack(1000, 0.10), False),  # +50%, but only +50 tokens: below the absolute slack
    (30_000, 20_000, Slack(1000, 0.10), True),  # +10,000 tokens: beyond both
    (20_500, 20_000, Slack(1000, 0.10), False),  # +500: within the absolute slack
    (21_500, 20_000, Slack(1000, 0.10), False),  # +1,500 > abs but ≤ 10% of 20,000
    (22_001, 20_000, Slack(1000, 0.10), True),
    (5, 4, Slack(1, 0.25), False),  # +1 model call: not > abs 1
    (6, 4, Slack(1, 0.25), True),
    (2, 1, Slack(0, 0), True),  # attempts: any increase
    (1, 1, Slack(0, 0), False),
    (50, 100, Slack(0, 0), False),  # decreases never regress
]


@pytest.mark.parametrize(("current", "base", "slack", "bad"), SLACK_CASES)
def test_abs_and_rel_slack(current, base, slack, bad) -> None:
    assert is_regression(current, base, slack) is bad


def steps(tokens: tuple[int, int] | None = (100, 50), lint_attempt: int = 1, calls: int = 2) -> TraceColumns:
    out: list[dict[str, Any]] = [{"id": "s0", "parentId": None, "sequence": 0, "name": "f", "kind": "run",
                                  "status": "ok"}]
    for i in range(calls):
        s: dict[str, Any] = {"id": f"s{i + 1}", "parentId": "s0", "sequence": i + 1, "name": f"m{i}",
                             "kind": "model", "status": "ok"}
        if tokens:
            s["inputTokens"], s["outputTokens"] = tokens
        out.append(s)
    out.append({"id": "t", "parentId": "s0", "sequence": 99, "name": "lint", "kind": "tool", "status": "ok",
                "attempt": lint_attempt})
    return TraceColumns.from_dicts(out, fixture="demo")


def test_metrics() -> None:
    m = trace_metrics(steps())
    assert (m.model_calls, m.tokens, m.missing_usage, m.attempts_by_tool) == (2, 300, 0, {"lint": 1})
    m = trace_metrics(steps(tokens=None))
    assert (m.tokens, m.missing_usage) == (None, 2)


BASE = TraceBaseline("demo", ["lint", "deploy"], maximum_model_calls=2, maximum_tokens=300,
                     maximum_attempts_by_tool={"lint": 1})


def test_compare_entries() -> None:
    m = trace_metrics(steps(tokens=(1000, 500), lint_attempt=2, calls=4))
    entries = compare(BASE, m, set(m.attempts_by_tool), dict(DEFAULT_SLACK))
    by = {e["metric"]: e for e in entries}
    assert list(by) == ["requiredTool:lint", "requiredTool:deploy", "modelCalls", "tokens", "attempts:lint"]
    assert by["requiredTool:lint"]["regression"] is False
    assert by["requiredTool:deploy"] == {"metric": "requiredTool:deploy", "baseline": "present",
                                         "current": "missing", "regression": True,
                                         "message": "required tool deploy did not run"}
    assert by["modelCalls"]["regression"] is True and by["modelCalls"]["delta"] == 2
    assert by["tokens"] == {
        "metric": "tokens", "baseline": 300, "current": 6000, "delta": 5700, "absSlack": 1000, "relSlack": 0.1,
        "regression": True,
        "message": "tokens 6000 vs baseline 300 (+5700) exceeds slack (abs 1000, rel 0.1)",
    }
    assert by["attempts:lint"]["regression"] is True


def test_missing_usage_is_a_regression_not_zero() -> None:
    m = trace_metrics(steps(tokens=None))
    by = {e["metric"]: e for e in compare(BASE, m, {"lint"}, dict(DEFAULT_SLACK))}
    assert by["tokens"]["regression"] is True and by["tokens"]["current"] is None
    assert "Model usage is missing" in by["tokens"]["message"]


def test_no_baseline_for_fixture() -> None:
    entries = compare(None, trace_metrics(steps()), {"lint"}, dict(DEFAULT_SLACK))
    assert len(entries) == 1 and entries[0]["regression"] is False and "--update-baseline" in entries[0]["message"]


def test_parse_both_forms_and_slack_override() -> None:
    single = parse_baseline('fixture = "demo"\nmaximumTokens = 10\n[slack]\ntokens = { abs = 5 }\n', "b.toml")
    assert single.error is None and single.file.single
    assert single.file.baselines["demo"].maximum_tokens == 10
    assert single.file.slack["tokens"] == Slack(5, 0.10) and single.file.slack["modelCalls"] == Slack(1, 0.25)
    many = parse_baseline('[[baselines]]\nfixture = "a"\n[[baselines]]\nfixture = "b"\nmaximumModelCalls = 3\n')
    assert list(many.file.baselines) == ["a", "b"] and not many.file.single


BAD = [
    ('fixture = "a"\nmaxTokens = 3\n', "unknown key 'maxTokens'"),
    ('fixture = 3\n', "key 'fixture' must be a non-empty string"),
    ('fixture = "a"\nmaximumModelCalls = 2.5\n', "key 'maximumModelCalls' must be an integer"),
    ('fixture = "a"\nmaximumAttemptsByTool = { lint = "x" }\n', "maximumAttemptsByTool"),
    ('[slack]\nspeed = { abs = 1 }\n', "unknown metric 'speed'"),
    ('[[baselines]]\nfixture = "a"\n[[baselines]]\nfixture = "a"\n', "duplicate fixture 'a'"),
    ("fixture = \n", "invalid TOML"),
]


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_bad_baselines(text, problem) -> None:
    loaded = parse_baseline(text, "b.toml")
    assert loaded.file is None and loaded.error.startswith("b.toml") and problem in loaded.error


def test_update_round_trip() -> None:
    m = trace_metrics(steps(tokens=(10, 5), calls=3))
    new = baseline_from_metrics("demo", m, BASE)
    assert new == TraceBaseline("demo", ["lint"], 3, 45, {"lint": 1})
    other = TraceBaseline("other", ["x"], 1, None, {})
    file = BaselineFile(baselines={"demo": new, "other": other}, slack_overrides={"tokens": {"abs": 10}})
    text = dump_baseline(file)
    assert text.startswith("# tftui trace baseline")
    again = parse_baseline(text).file
    assert again.baselines == {"demo": new, "other": other}
    assert again.slack["tokens"] == Slack(10, 0.10)
    # unmeasured usage keeps the previous figure rather than writing 0
    assert baseline_from_metrics("demo", trace_metrics(steps(tokens=None)), BASE).maximum_tokens == 300
