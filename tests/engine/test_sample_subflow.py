"""sample_flows/subflow_race.json: flow (use/def), race and graft expand offline, via the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_flows" / "subflow_race.json"


def test_sample_passes_check(capsys) -> None:
    assert main(["check", str(SAMPLE)]) == 0, capsys.readouterr()
    assert main(["check", str(SAMPLE.parent / "flows" / "summarize.json")]) == 0, capsys.readouterr()


def test_sample_runs_offline(tmp_path, capsys) -> None:
    code = main(["run", str(SAMPLE), "--json", "--runs-dir", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["status"]) == (0, "completed")
    phases = out["phases"]
    assert {pid: phases[pid]["status"] for pid in phases} == {
        pid: "done" for pid in ("research", "plan", "execute", "fetch", "fanout", "fanout-draft", "fanout-polish", "report")
    }
    assert phases["research"]["output"].startswith("### [1/3] default\n\nYou can pause")
    assert phases["execute"]["output"] == "A three-step tutorial: install, open a flow, step through it."
    assert phases["fetch"]["output"] == "v1.2: sub-flows, races and graft expansion."
    assert phases["fanout"]["output"] == phases["fanout-polish"]["output"]
    rows = [json.loads(line) for line in next(tmp_path.iterdir()).joinpath("events.jsonl").read_text().splitlines()]
    nodes = {r["node_path"] for r in rows if r["kind"] == "attempt_started"}
    assert {"research/each#item-2", "execute/write", "fetch#branch-2", "fanout-draft"} <= nodes
