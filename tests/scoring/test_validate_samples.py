"""The seed's `validate` scoring gate, as shipped in sample_flows/, runs offline with its replies."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.agents.scripted import ScriptedRunner
from tftui.engine import run_flow
from tftui.flow.load import load_flow

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


async def run_sample(name: str):
    loaded = load_flow(SAMPLES / f"{name}.json")
    assert loaded.flow is not None
    assert [d.message for d in loaded.diagnostics if d.severity == "error"] == []
    runner = ScriptedRunner.from_file(SAMPLES / f"{name}.replies.json")
    return await run_flow(loaded.flow, runner=runner)


def test_samples_keep_the_seed_scorers() -> None:
    a = json.loads((SAMPLES / "validate.json").read_text())
    b = json.loads((SAMPLES / "validate_judge.json").read_text())
    assert a["phases"][:2] == b["phases"][:2]
    score = a["phases"][1]["score"]
    assert [s["name"] for s in score["scorers"]] == [
        "has-status-field",
        "status-is-success",
        "valid-schema",
        "reasonable-length",
    ]
    assert score["weights"][:4] == [0.2, 0.3, 0.4, 0.1] and score["threshold"] == 0.7


async def test_validate_passes_by_early_cutoff_without_the_judge() -> None:
    result = await run_sample("validate")
    assert result.status == "completed"
    gate = result.phases["check-response"]
    assert gate.output == "PASS (scorers passed — no LLM call)"
    assert gate.json["verdict"] == "pass" and gate.json["combined"] == 1 / 1.4
    assert "judge" not in gate.json and all(r["passed"] for r in gate.json["results"])


async def test_validate_judge_lets_the_judge_decide() -> None:
    result = await run_sample("validate_judge")
    assert result.status == "completed"
    gate = result.phases["check-response"]
    assert [r["passed"] for r in gate.json["results"]] == [True, False, True, True]
    assert gate.json["judge"]["score"] == 0.9
    assert abs(gate.json["combined"] - (0.7 + 0.4 * 0.9) / 1.4) < 1e-12 and gate.json["verdict"] == "pass"
    assert result.final_output.startswith("The API response passed")
