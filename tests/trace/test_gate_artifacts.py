"""`tftui gate --artifacts DIR --keep-days N`: reduced traces and reports of failed fixtures, with expiry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.cli import main
from tftui.trace.artifacts import reduce_trace
from tftui.trace.model import TraceColumns, load_columns
from tftui.trace.rules import MaxAttempts, NoExternalWorkAfterBlock

FIXTURES = Path(__file__).parent / "fixtures"
RULES = str(FIXTURES / "rules.toml")


def gate(tmp: Path, *traces: str, day: str, keep: int = 7, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("TFTUI_TODAY", day)
    return main(["gate", *(str(FIXTURES / t) for t in traces), "--rules", RULES,
                 "--artifacts", str(tmp / "art"), "--keep-days", str(keep)])


def manifest(tmp: Path) -> dict:
    return json.loads((tmp / "art" / "manifest.json").read_text())


def test_only_failed_fixtures_are_kept_reduced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = gate(tmp_path, "ok.json", "blocked_leak.json", "dup_sequence.json", day="2026-03-01",
                monkeypatch=monkeypatch)
    assert code == 3
    entries = {e["fixture"]: e for e in manifest(tmp_path)["entries"]}
    ok_fixture = load_columns((FIXTURES / "ok.json").read_bytes()).columns
    assert ok_fixture is not None and ok_fixture.fixture not in entries  # passed: nothing kept
    leak = entries["validate-blocked"]
    assert leak["status"] == "FAIL" and leak["failedRules"] == ["no_external_work_after_block@1"]
    assert (leak["created"], leak["expires"]) == ("2026-03-01", "2026-03-08")
    trace = load_columns((tmp_path / "art" / leak["path"] / "trace.json").read_bytes()).columns
    assert trace is not None
    # the block (review), the work after it (build attempt 2, lint) and the root; plan and build#1 dropped
    assert trace.names == ["validate", "review", "build", "lint"]
    assert (leak["steps"], leak["originalSteps"]) == (4, 6)
    report = json.loads((tmp_path / "art" / leak["path"] / "report.json").read_text())
    assert [f["ruleId"] for f in report["failures"]] == ["no_external_work_after_block@1"]
    assert "validate-blocked" in (tmp_path / "art" / leak["path"] / "report.md").read_text()
    errors = [e for e in entries.values() if e["status"] == "ERROR"]
    assert len(errors) == 1 and errors[0]["steps"] == 0  # an invalid trace: its report, no trace
    assert not (tmp_path / "art" / errors[0]["path"] / "trace.json").exists()


def test_expired_entries_disappear_on_the_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate(tmp_path, "blocked_leak.json", day="2026-03-01", keep=3, monkeypatch=monkeypatch)
    folder = tmp_path / "art" / manifest(tmp_path)["entries"][0]["path"]
    assert folder.is_dir()
    gate(tmp_path, "ok.json", day="2026-03-03", keep=3, monkeypatch=monkeypatch)  # not expired yet
    assert [e["fixture"] for e in manifest(tmp_path)["entries"]] == ["validate-blocked"]
    assert folder.is_dir()
    gate(tmp_path, "ok.json", day="2026-03-04", keep=3, monkeypatch=monkeypatch)  # expiry day reached
    assert manifest(tmp_path)["entries"] == []
    assert not folder.exists()


def test_a_new_failure_replaces_the_old_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate(tmp_path, "blocked_leak.json", day="2026-03-01", monkeypatch=monkeypatch)
    gate(tmp_path, "blocked_leak.json", day="2026-03-05", monkeypatch=monkeypatch)
    entries = manifest(tmp_path)["entries"]
    assert [(e["fixture"], e["created"]) for e in entries] == [("validate-blocked", "2026-03-05")]


def test_artifacts_need_an_explicit_retention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", str(FIXTURES / "ok.json"), "--rules", RULES, "--artifacts", str(tmp_path)]) == 2
    assert "--keep-days" in capsys.readouterr().err


def test_reduce_keeps_ancestors_of_the_evidence() -> None:
    steps = [
        {"id": "s0", "parentId": None, "sequence": 0, "name": "run", "kind": "run", "status": "ok"},
        {"id": "s1", "parentId": "s0", "sequence": 1, "name": "plan", "kind": "model", "status": "ok"},
        {"id": "s2", "parentId": "s0", "sequence": 2, "name": "agent", "kind": "run", "status": "ok"},
        {"id": "s3", "parentId": "s2", "sequence": 3, "name": "tool", "kind": "tool", "status": "ok", "attempt": 1},
        {"id": "s4", "parentId": "s2", "sequence": 4, "name": "tool", "kind": "tool", "status": "ok", "attempt": 5},
        {"id": "s5", "parentId": "s0", "sequence": 5, "name": "other", "kind": "tool", "status": "ok"},
    ]
    cols = TraceColumns.from_dicts(steps, fixture="f")  # type: ignore[arg-type]
    rule = MaxAttempts(name="tool", limit=3)
    reduced = reduce_trace(cols, [rule, NoExternalWorkAfterBlock()], {rule.rule_id})
    assert reduced.ids == ["s0", "s2", "s4"]  # the over-limit attempt, its parent agent span, the root


def test_evidence_steps_of_each_rule() -> None:
    from tftui.trace.facts import Facts
    from tftui.trace.rules import LoopSignature, MaxTotalTokens, Order, RequiredSteps

    steps = [
        {"id": "s0", "parentId": None, "sequence": 0, "name": "run", "kind": "run", "status": "ok"},
        {"id": "s1", "parentId": "s0", "sequence": 1, "name": "build", "kind": "model", "status": "ok",
         "inputTokens": 5, "outputTokens": 5},
        {"id": "s2", "parentId": "s0", "sequence": 2, "name": "plan", "kind": "model", "status": "ok"},
        {"id": "s3", "parentId": "s0", "sequence": 3, "name": "lint", "kind": "tool", "status": "ok",
         "metadata": {"outcome": "retry"}},
        {"id": "s4", "parentId": "s0", "sequence": 4, "name": "lint", "kind": "tool", "status": "ok",
         "metadata": {"outcome": "retry"}},
        {"id": "s5", "parentId": "s0", "sequence": 5, "name": "lint", "kind": "tool", "status": "ok",
         "metadata": {"outcome": "done"}},
    ]
    facts = Facts(TraceColumns.from_dicts(steps, fixture="f"))  # type: ignore[arg-type]
    assert Order(before="plan", after="build").evidence_steps(facts) == [2, 1]
    assert MaxTotalTokens(limit=1).evidence_steps(facts) == [2]  # the model step without usage
    assert LoopSignature(keys=("outcome",), limit=1).evidence_steps(facts) == [3, 4]
    assert RequiredSteps(names=("deploy",)).evidence_steps(facts) == []  # an absence has no step
