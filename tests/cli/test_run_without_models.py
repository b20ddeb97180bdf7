"""A flow that makes no model calls runs with no runner configured (issue 17, item 11)."""

from __future__ import annotations

import json
from pathlib import Path


def _write(tmp_path: Path, phases: list) -> Path:
    path = tmp_path / "flow.json"
    path.write_text(json.dumps({"name": "scripts", "phases": phases}), encoding="utf-8")
    return path


def test_a_script_only_flow_needs_no_runner(tftui, tmp_path: Path) -> None:
    flow = _write(tmp_path, [
        {"id": "a", "type": "script", "run": ["echo", "hello"]},
        {"id": "g", "type": "gate", "dependsOn": ["a"],
         "score": {"target": "{steps.a.output}", "scorers": [{"type": "contains", "value": "hello"}]}},
    ])
    done = tftui("run", str(flow), "--json")
    assert done.code == 0, done.stderr
    out = done.json()
    assert out["status"] == "completed"
    assert "no agent is configured" not in done.stderr


def test_a_flow_with_a_model_call_still_asks_for_a_runner(tftui, tmp_path: Path) -> None:
    flow = _write(tmp_path, [
        {"id": "a", "type": "script", "run": ["echo", "hello"]},
        {"id": "b", "task": "summarize {steps.a.output}", "dependsOn": ["a"]},
    ])
    done = tftui("run", str(flow))
    assert done.code == 2
    assert "no agent is configured" in done.stderr and "--replies" in done.stderr
