"""Real-run gates: `tftui run --repeat N`, distribution baselines (median/p95), profiles synthetic|real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.cli import main

FIXTURES = Path(__file__).parent / "fixtures"

FLOW = {
    "name": "jitter",
    "phases": [
        {"id": "draft", "type": "agent", "agent": "executor", "task": "Draft a note."},
        {"id": "polish", "type": "agent", "agent": "executor", "task": "Polish {steps.draft.output}",
         "dependsOn": ["draft"]},
    ],
}
RULES = """
[[rules]]
id = "required_steps"
names = ["draft", "polish"]

[[rules]]
id = "max_duration"
limit = 60000

[[rules]]
id = "distribution"
metrics = ["wallMs", "tokens", "modelCalls"]
"""


def _replies(extra_ms: int) -> dict[str, object]:
    """Replies whose delayMs differ from call to call (jitter: a [lo, hi] range drawn per call);
    `extra_ms` slows every call down."""
    usage = {"input": 20, "output": 10}
    return {"draft": [{"output": "a draft", "usage": usage, "delayMs": [5 + extra_ms, 20 + extra_ms]}],
            "polish": [{"output": "polished", "usage": usage, "delayMs": [20 + extra_ms, 40 + extra_ms]}]}


def _runs(tmp: Path, name: str, n: int, extra_ms: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (tmp / "jitter.json").write_text(json.dumps(FLOW))
    replies = tmp / f"{name}.replies.json"
    replies.write_text(json.dumps(_replies(extra_ms)))
    runs = tmp / name
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(runs))
    assert main(["run", str(tmp / "jitter.json"), "--replies", str(replies), "--repeat", str(n), "-q"]) == 0
    dirs = sorted(str(p) for p in runs.iterdir() if (p / "trace.json").is_file())
    assert len(dirs) == n  # N journals, N traces
    return dirs


def _gate(tmp: Path, runs: list[str], *extra: str) -> tuple[int, dict]:
    (tmp / "rules.toml").write_text(RULES)
    out = tmp / "report.json"
    baseline = tmp / "baseline.toml"
    use = ["--baseline", str(baseline)] if baseline.exists() or "--update-baseline" in extra else []
    code = main(["gate", *runs, "--rules", str(tmp / "rules.toml"), *use,
                 "--json", str(out), "--md", str(tmp / "report.md"), *extra])
    return code, json.loads(out.read_text())


def _distribution_report(data: dict) -> dict:
    return next(r for r in data["reports"] if "distribution" in r)


def test_repeat_20_baseline_then_slower_runs_fail_on_p95(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _runs(tmp_path, "fast", 20, 0, monkeypatch)
    code, _ = _gate(tmp_path, fast, "--profile", "real", "--update-baseline")
    assert code == 0
    baseline = (tmp_path / "baseline.toml").read_text()
    assert "[distribution.fixtures.jitter]" in baseline and "samples = 20" in baseline

    # 8 slowed runs (the distribution rule compares from 5 on): each is ~240 ms slower, so their p95
    # stands clear of the baseline's whatever the sample size; 20 of them only waited longer
    slow = _runs(tmp_path, "slow", 8, 120, monkeypatch)
    code, data = _gate(tmp_path, slow, "--profile", "real")
    assert code == 1
    report = _distribution_report(data)
    [failure] = report["failures"]
    assert failure["ruleId"] == "distribution@1" and "wallMs.model" in failure["message"] and "p95" in failure["message"]
    wall = next(m for m in report["distribution"]["metrics"] if m["metric"] == "wallMs.model")
    assert wall["regression"] and wall["current"]["p95"] > wall["baseline"]["p95"] + 120  # 2 calls, +120 ms each
    assert wall["baseline"]["p95"] > wall["baseline"]["median"]  # the jitter spread the 20 baseline runs
    assert failure["evidence"]["currentP95"] == wall["current"]["p95"]  # the figures are in the report
    tokens = next(m for m in report["distribution"]["metrics"] if m["metric"] == "tokens")
    assert not tokens["regression"]  # the same replies: the same tokens
    md = (tmp_path / "report.md").read_text()
    assert "REGRESSION" in md and "where the current runs fall" in md and "baseline p95" in md

    few = _runs(tmp_path, "few", 3, 120, monkeypatch)
    code, data = _gate(tmp_path, few, "--profile", "real")
    assert code == 0
    result = _distribution_report(data)["results"][0]
    assert result["passed"] and "Not enough samples" in result["message"]


def _run_ids(data: dict) -> set[str]:
    reports = data["reports"] if "reports" in data else [data]
    return {r["ruleId"] for report in reports for r in report["results"]}


def test_profiles_separate_exact_and_distribution_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _runs(tmp_path, "p", 2, 0, monkeypatch)
    _, synthetic = _gate(tmp_path, runs, "--profile", "synthetic", "--fake-clock")
    assert "distribution@1" not in _run_ids(synthetic)
    assert "max_duration@1" in _run_ids(synthetic)
    _, real = _gate(tmp_path, runs, "--profile", "real")
    assert "max_duration@1" not in _run_ids(real)
    assert "distribution@1" in _run_ids(real)


def test_exact_latency_rule_cannot_be_real(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.toml").write_text('[[rules]]\nid = "max_duration"\nlimit = 5\nprofile = "real"\n')
    assert main(["gate", str(FIXTURES / "ok.json"), "--rules", str(tmp_path / "r.toml")]) == 2
    assert "always profile" in capsys.readouterr().err


def test_percentiles_are_nearest_rank() -> None:
    from tftui.trace.distribution import median, percentile

    values = [float(v) for v in range(1, 21)]  # 1..20
    assert percentile(values, 0.95) == 19 and median(values) == 10.5
    assert percentile([5.0], 0.95) == 5


async def test_delay_range_is_drawn_per_call_and_checked() -> None:
    from tftui.agent_types import AgentRequest
    from tftui.agents.scripted import ScriptedRunner

    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    runner = ScriptedRunner({"a": {"output": "x", "delayMs": [10, 50]}}, sleep=sleep)
    for _ in range(30):
        await runner.run(AgentRequest(node_path="a", phase_id="a", agent="executor", task="t"))
    assert all(0.010 <= w <= 0.050 for w in waits) and len(set(waits)) > 1
    bad = ScriptedRunner({"a": {"output": "x", "delayMs": [50, 10]}, "b": {"output": "y", "delayMs": [1]}})
    assert len(bad.errors) == 2 and all("'delayMs' as a list must be [lo, hi]" in e for e in bad.errors)
