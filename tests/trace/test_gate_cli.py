"""`tftui gate` end to end on fixture traces: exit codes 0/1/2/3, outputs, baselines (SPEC §9.7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tftui.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
RULES = str(FIXTURES / "rules.toml")


def gate(*args: str) -> int:
    return main(["gate", *args])


@pytest.mark.parametrize(
    ("fixture", "code"),
    [
        ("ok.json", 0),
        ("run_dir", 0),  # a run directory containing trace.json
        ("warn_loop.json", 0),  # warnings never fail
        ("fail_order.json", 1),  # parallel steps interleaved: build started before plan
        ("blocked_leak.json", 1),  # model and tool work after the block
        ("missing_usage.json", 1),  # missing usage fails the budget
        ("orphan.json", 3),
        ("dup_sequence.json", 3),
        ("two_roots.json", 3),
        ("negative_tokens.json", 3),
        ("nan_tokens.json", 3),
        ("forbidden_key.json", 3),
        ("not_json.json", 3),
    ],
)
def test_exit_codes(fixture: str, code: int, capsys) -> None:  # noqa: ANN001
    assert gate(str(FIXTURES / fixture), "--rules", RULES) == code
    out = capsys.readouterr().out
    assert out.startswith({0: "PASS ", 1: "FAIL ", 3: "ERROR "}[code])


def test_summary_lines(capsys) -> None:  # noqa: ANN001
    gate(str(FIXTURES / "blocked_leak.json"), "--rules", RULES)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL validate-blocked: 6 rules, 1 failure, 0 warnings (")
    assert lines[1] == "  error no_external_work_after_block@1: External work continued after block: build, lint"


def test_instrumentation_error_wins_over_failure(capsys) -> None:  # noqa: ANN001
    code = gate(str(FIXTURES / "fail_order.json"), str(FIXTURES / "orphan.json"), str(FIXTURES / "ok.json"),
                "--rules", RULES)
    assert code == 3
    assert capsys.readouterr().out.splitlines()[-1] == "3 traces: 1 passed, 2 not passed"


def test_usage_errors(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    bad = tmp_path / "rules.toml"
    bad.write_text('[[rules]]\nid = "order"\nbefore = "a"\n', encoding="utf-8")
    assert gate(str(FIXTURES / "ok.json"), "--rules", str(bad)) == 2
    err = capsys.readouterr().err
    assert "rules.toml:1: rules[1] key 'after': missing parameter 'after'" in err and str(bad) in err
    assert gate(str(FIXTURES / "ok.json"), "--rules", str(tmp_path / "none.toml")) == 2
    assert gate(str(tmp_path / "nowhere.json"), "--rules", RULES) == 2
    assert "no trace at" in capsys.readouterr().err
    assert gate(str(FIXTURES / "ok.json"), "--rules", RULES, "--update-baseline") == 2
    with pytest.raises(SystemExit) as exc:
        gate(str(FIXTURES / "ok.json"))  # --rules is required: argparse's usage error
    assert exc.value.code == 2


def test_json_and_markdown_outputs(tmp_path: Path) -> None:
    js, md, norm = tmp_path / "r.json", tmp_path / "out" / "r.md", tmp_path / "norm"
    code = gate(str(FIXTURES / "fail_order.json"), "--rules", RULES, "--json", str(js), "--md", str(md),
                "--write-normalized", str(norm))
    assert code == 1
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["fixture"] == "validate-order" and data["passed"] is False
    assert [f["ruleId"] for f in data["failures"]] == ["order:plan:build@1"]
    written = norm / "validate-order.trace.json"
    assert Path(data["tracePath"]).resolve() == written.resolve()
    normalized = json.loads(written.read_text(encoding="utf-8"))
    assert [s["id"] for s in normalized["steps"]] == ["s0", "s1", "s2", "s3", "s4", "s5"]
    assert md.read_text(encoding="utf-8").startswith("### tftui gate: validate-order — FAIL\n")


def test_baseline_regression_and_update_round_trip(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    base = tmp_path / "baseline.toml"
    ok = str(FIXTURES / "ok.json")
    # record a baseline from the passing trace (file does not exist yet)
    assert gate(ok, "--rules", RULES, "--baseline", str(base), "--update-baseline") == 0
    assert "updated (validate-ok)" in capsys.readouterr().out
    text = base.read_text(encoding="utf-8")
    assert 'fixture = "validate-ok"' in text and "maximumModelCalls = 3" in text and "maximumTokens = 3020" in text
    # the same trace against it: no regression
    assert gate(ok, "--rules", RULES, "--baseline", str(base)) == 0
    capsys.readouterr()
    # tighten the token budget beyond both slacks -> regression, exit 1 although every rule passes
    base.write_text(text.replace("maximumTokens = 3020", "maximumTokens = 1500"), encoding="utf-8")
    js = tmp_path / "r.json"
    assert gate(ok, "--rules", RULES, "--baseline", str(base), "--json", str(js)) == 1
    out = capsys.readouterr().out
    assert "1 baseline regression" in out and "regression tokens: tokens 3020 vs baseline 1500" in out
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["passed"] is True and data["baselinePassed"] is False
    tokens = next(e for e in data["baseline"] if e["metric"] == "tokens")
    assert (tokens["baseline"], tokens["current"], tokens["regression"]) == (1500, 3020, True)
    # a small increase within the absolute slack is not a regression
    base.write_text(text.replace("maximumTokens = 3020", "maximumTokens = 2500"), encoding="utf-8")
    assert gate(ok, "--rules", RULES, "--baseline", str(base)) == 0
    # --update-baseline accepts the new numbers and rewrites the file
    base.write_text(text.replace("maximumTokens = 3020", "maximumTokens = 1500"), encoding="utf-8")
    assert gate(ok, "--rules", RULES, "--baseline", str(base), "--update-baseline") == 0
    assert base.read_text(encoding="utf-8") == text


def test_gate_does_not_import_textual() -> None:
    code = (
        "import sys; from tftui.cli import main; "
        f"rc = main(['gate', {str(FIXTURES / 'ok.json')!r}, '--rules', {RULES!r}]); "
        "assert 'textual' not in sys.modules, 'textual imported'; sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_gate_on_a_trace_file_loads_neither_the_engine_nor_the_validators() -> None:
    """The CI path starts light (issue 18): gating a sound trace file reads it with the typed
    decoder, so the engine, the scorers, pydantic, jsonschema and rich's Text never load."""
    heavy = ("tftui.engine", "tftui.scoring", "pydantic", "jsonschema", "rich.text", "textual")
    code = (
        "import sys; from tftui.cli import main; "
        f"rc = main(['gate', {str(FIXTURES / 'ok.json')!r}, '--rules', {RULES!r}]); "
        f"loaded = sorted(m for m in sys.modules if m.startswith({heavy!r})); "
        "assert not loaded, loaded; sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_big_trace_ends_the_command_without_freeing_it_and_loses_no_output(tmp_path: Path) -> None:
    """The command line's own `tftui gate` on a big trace ends the process once everything is
    written (docs/trace-gates.md §4): the summary, the report and the exit code are all there; a
    caller's `main([...])` still returns, and lets the trace go. The size that counts as big is lowered for the test."""
    report = tmp_path / "report.json"
    args = ["gate", str(FIXTURES / "fail_order.json"), "--rules", RULES, "--json", str(report)]
    code = (
        "import sys; from tftui.commands import gate; gate._BIG_TRACE_STEPS = 1; from tftui.cli import main; "
        f"import gc; print('returned', main({args!r}), gate.holds_big_trace(), gc.isenabled() and gc.get_freeze_count() == 0); sys.argv = ['tftui', *{args!r}]; main(); print('not reached')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr  # fail_order fails a rule: exit 1, as without the shortcut
    assert proc.stdout.count("FAIL") == 2 and "returned 1 False True" in proc.stdout and "not reached" not in proc.stdout
    assert json.loads(report.read_text(encoding="utf-8"))["passed"] is False
