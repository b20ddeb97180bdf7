"""End to end, as CI would do it: `tftui run` a sample flow, then `tftui gate` its trace with
the sample rule set, reading both reports; then break a rule on purpose."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


def _run_sample(tmp_path: Path, capsys) -> Path:  # noqa: ANN001
    runs = tmp_path / "runs"
    assert main(["run", str(SAMPLES / "validate.json"), "--runs-dir", str(runs), "--quiet"]) == 0
    capsys.readouterr()
    (run_dir,) = list(runs.iterdir())
    assert (run_dir / "trace.json").is_file()
    return run_dir


def test_sample_flow_passes_the_sample_rule_set(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    run_dir = _run_sample(tmp_path, capsys)
    js, md = tmp_path / "report.json", tmp_path / "report.md"
    code = main(["gate", str(run_dir), "--rules", str(SAMPLES / "validate.rules.toml"), "--json", str(js), "--md", str(md)])
    assert code == 0
    report = json.loads(js.read_text(encoding="utf-8"))
    assert report["passed"] is True and report["failures"] == []
    assert report["fixture"] == "validate"
    assert "required_steps@1" in report["rules"] and "no_external_work_after_block@1" in report["rules"]
    assert all(r["passed"] for r in report["results"] if r["severity"] == "error")
    assert report["tracePath"].endswith("trace.json")
    markdown = md.read_text(encoding="utf-8")
    assert markdown.startswith("### tftui gate: validate — PASS")
    assert "| `required_steps@1` | error | pass | All required steps ran |" in markdown


def test_a_broken_rule_fails_the_gate_with_evidence_and_fix(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    run_dir = _run_sample(tmp_path, capsys)
    rules = tmp_path / "strict.toml"
    # The sample run spends 80 tokens on `generate`; a 50-token budget must fail.
    rules.write_text('[[rules]]\nid = "max_total_tokens"\nlimit = 50\n', encoding="utf-8")
    js, md = tmp_path / "report.json", tmp_path / "report.md"
    code = main(["gate", str(run_dir), "--rules", str(rules), "--json", str(js), "--md", str(md)])
    assert code == 1
    report = json.loads(js.read_text(encoding="utf-8"))
    (failure,) = report["failures"]
    assert failure["ruleId"] == "max_total_tokens@1"
    assert failure["message"] == "Token usage 80 exceeds budget 50"
    assert failure["evidence"] == {"totalTokens": 80, "limit": 50}
    markdown = md.read_text(encoding="utf-8")
    assert markdown.startswith("### tftui gate: validate — FAIL")
    assert "max_total_tokens@1" in markdown
    assert "totalTokens=80" in markdown and "limit=50" in markdown  # the evidence
    assert "Fix:" in markdown  # and what to change
