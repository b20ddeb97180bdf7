"""GateReport content in both formats (SPEC §9.5)."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.trace.model import parse_trace
from tftui.trace.report import GateReport, evaluate_trace, report_markdown, reports_json, reports_markdown
from tftui.trace.ruleset import load_ruleset

FIXTURES = Path(__file__).parent / "fixtures"


def gate(name: str) -> GateReport:
    rules = load_ruleset(FIXTURES / "rules.toml").rules
    trace = parse_trace((FIXTURES / name).read_bytes()).trace
    return evaluate_trace(trace, rules, trace_path=f"fixtures/{name}")


def test_json_report_shape_on_failure() -> None:
    data = gate("fail_order.json").to_json()
    assert list(data) == ["schemaVersion", "fixture", "passed", "failures", "warnings", "results", "rules",
                          "tracePath", "baseline", "error"]
    assert data["schemaVersion"] == 1 and data["fixture"] == "validate-order" and data["passed"] is False
    assert data["rules"] == ["required_steps@1", "order:plan:build@1", "no_external_work_after_block@1",
                             "max_attempts:build@1", "max_total_tokens@1", "loop_signature@1"]
    assert [r["ruleId"] for r in data["results"]] == data["rules"]
    assert data["failures"] == [{
        "ruleId": "order:plan:build@1",
        "severity": "error",
        "passed": False,
        "message": "build occurred before required dependency plan",
        "evidence": {"beforeSequence": 2, "afterSequence": 1},
        "fix": "Make build depend on plan (dependsOn), so it cannot start first.",
    }]
    assert data["warnings"] == [] and data["error"] is None and data["baseline"] is None
    assert data["tracePath"] == "fixtures/fail_order.json"
    json.dumps(data)  # serializable as is


def test_warnings_do_not_fail() -> None:
    report = gate("warn_loop.json")
    assert report.passed and report.exit_code == 0
    assert [w.rule_id for w in report.warnings] == ["loop_signature@1"]
    assert report.to_json()["warnings"][0]["evidence"] == {"maximumRepeat": 4, "limit": 3}


def test_markdown_on_failure() -> None:
    md = report_markdown(gate("fail_order.json"))
    lines = md.splitlines()
    assert lines[0] == "### tftui gate: validate-order — FAIL"
    assert "| Rule | Severity | Result | Message |" in lines
    assert ("| `order:plan:build@1` | error | **FAIL** | build occurred before required dependency plan |"
            in lines)
    assert "| `required_steps@1` | error | pass | All required steps ran |" in lines
    bullet = [line for line in lines if line.startswith("- ")]
    assert bullet == [
        "- **order:plan:build@1** (failure): build occurred before required dependency plan — evidence: "
        "beforeSequence=2, afterSequence=1. Fix: Make build depend on plan (dependsOn), so it cannot start first."
    ]
    assert lines[-1] == "Normalized trace: `fixtures/fail_order.json`"


def test_markdown_escapes_pipes_and_lists_warnings() -> None:
    md = report_markdown(gate("warn_loop.json"))
    assert md.splitlines()[0].endswith("— PASS")
    assert "Signature poll\\|policy\\|ok\\|poll\\|retry repeated 4 times; limit is 3" in md
    assert "- **loop_signature@1** (warning): Signature poll|policy|ok|poll|retry repeated 4 times" in md
    assert "maximumRepeat=4, limit=3" in md


def test_markdown_for_instrumentation_error() -> None:
    md = report_markdown(gate("orphan.json"))
    assert md.startswith("### tftui gate: validate-orphan — ERROR\n")
    assert "**Instrumentation error:** trace integrity: unknown parent a-nope for step a-5e61" in md
    assert "| Rule |" not in md


def test_several_reports() -> None:
    reports = [gate("ok.json"), gate("fail_order.json")]
    data = reports_json(reports)
    assert data["passed"] is False and [r["fixture"] for r in data["reports"]] == ["validate-ok", "validate-order"]
    md = reports_markdown(reports)
    assert md.startswith("## tftui gate — 1/2 fixtures passed")
    assert "### tftui gate: validate-ok — PASS" in md and "### tftui gate: validate-order — FAIL" in md
