"""`tftui replay PREFIX`: a run-id prefix matching several runs is reported as ambiguous with
the matching runs listed (not as "no run named"); a unique prefix still opens its run."""

from __future__ import annotations

import json
from pathlib import Path

RUNS = ("20261130-070412-ab12", "20261130-070455-cd34", "20261201-093000-ef56")


def make_runs(runs_dir: Path) -> None:
    for i, run_id in enumerate(RUNS):
        d = runs_dir / run_id
        d.mkdir(parents=True)
        meta = {"runId": run_id, "flowName": f"flow{i}", "started": f"2026-11-30T07:0{i}:00Z"}
        (d / "meta.json").write_text(json.dumps(meta))
        (d / "events.jsonl").write_text("")


def test_ambiguous_prefix_lists_the_matches(tftui, runs_dir):
    make_runs(runs_dir)
    done = tftui("replay", "20261130-0704", "--print")
    assert done.code == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "tftui replay: run id prefix '20261130-0704' is ambiguous: it matches 2 runs",
        f"  {runs_dir / RUNS[0]}  (flow0)",
        f"  {runs_dir / RUNS[1]}  (flow1)",
        "give more of the run id, or the run directory",
    ]


def test_unique_prefix_opens_the_run(tftui, runs_dir):
    make_runs(runs_dir)
    done = tftui("replay", "20261201", "--print")
    # found: the (empty) journal is read, not reported as missing or ambiguous
    assert done.code == 2
    assert done.stderr == f"tftui replay: {runs_dir / RUNS[2]}: no events to replay\n"


def test_unknown_prefix_is_still_not_found(tftui, runs_dir):
    make_runs(runs_dir)
    done = tftui("replay", "20991231", "--print")
    assert done.code == 2
    assert done.stderr == "tftui replay: no run directory, run id or bundle named '20991231'\n"


def test_cassette_from_an_ambiguous_prefix_lists_the_matches(runs_dir, monkeypatch):
    from tftui.commands.open_flow import cassette_runner

    make_runs(runs_dir)
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(runs_dir))
    runner, problem = cassette_runner("20261130", live=None)
    assert runner is None
    assert problem is not None and problem.startswith(
        "--from 20261130: run id prefix '20261130' is ambiguous: it matches 2 runs\n")
