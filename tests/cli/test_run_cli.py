"""`tftui run` / `tftui runs`: bad input, journal files, listing, torn journals, approvals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FLOWS = Path(__file__).resolve().parent / "flows"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


def only_run_dir(runs_dir: Path) -> Path:
    dirs = [p for p in runs_dir.iterdir() if p.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def test_invalid_flow_is_refused_with_diagnostics(tftui, runs_dir: Path) -> None:
    done = tftui("run", str(FLOWS / "invalid.json"))
    assert done.code == 2
    assert "Phase 'a': dependsOn unknown phase 'ghost'" in done.stderr
    assert "invalid.json:" in done.stderr  # file:line:col
    assert done.stdout == ""
    assert not runs_dir.exists()  # nothing was run, nothing journaled


def test_invalid_flow_with_json_explains_on_stdout(tftui) -> None:
    done = tftui("run", str(FLOWS / "invalid.json"), "--json")
    assert done.code == 2
    out = done.json()
    assert out["status"] == "invalid"
    (diag,) = [d for d in out["diagnostics"] if d["severity"] == "error"]
    assert diag["message"] == "Phase 'a': dependsOn unknown phase 'ghost'" and diag["line"] is not None


def test_missing_flow_file(tftui) -> None:
    done = tftui("run", "nope.json")
    assert done.code == 2 and "flow file not found: nope.json" in done.stderr


def test_no_replies_says_how_to_supply_answers(tftui, runs_dir: Path) -> None:
    done = tftui("run", str(FLOWS / "no_replies.json"))
    assert done.code == 2
    assert "--replies" in done.stderr and "no_replies.replies.json" in done.stderr
    assert "--provider" in done.stderr
    assert not runs_dir.exists()


def test_missing_replies_file(tftui) -> None:
    done = tftui("run", str(FLOWS / "no_replies.json"), "--replies", "absent.json")
    assert done.code == 2 and "replies file not found: absent.json" in done.stderr


def test_replies_override_and_typed_args(tftui, tmp_path: Path) -> None:
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps({"a": ["hello from override"]}))
    done = tftui(
        "run", str(FLOWS / "no_replies.json"), "--replies", str(replies), "--arg", "word:=[1,2]", "--json"
    )
    assert done.code == 0, done.stderr
    out = done.json()
    assert out["final_output"] == "hello from override"
    events = (Path(out["run_dir"]) / "events.jsonl").read_text().splitlines()
    started = [json.loads(line) for line in events if '"attempt_started"' in line]
    assert started[0]["prompt"].startswith("say [\n  1,\n  2\n]")


def test_bad_arg_syntax(tftui) -> None:
    done = tftui("run", str(SAMPLES / "map_reduce.json"), "--arg", "novalue")
    assert done.code == 2 and "--arg expects NAME=VALUE" in done.stderr


def test_journal_files(tftui, runs_dir: Path) -> None:
    done = tftui(
        "run",
        str(SAMPLES / "transient_retry.json"),
        "--no-wait",
        "--arg",
        "api_key=sk-secret-0123456789abcdef",
    )
    assert done.code == 0, done.stderr
    run_dir = only_run_dir(runs_dir)
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["runId"] == run_dir.name and meta["flowName"] == "transient-retry"
    assert meta["flowPath"] == str((SAMPLES / "transient_retry.json").resolve())
    assert (run_dir / "flow.json").read_bytes() == (SAMPLES / "transient_retry.json").read_bytes()
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("attempt_started") == 4
    everything = "".join(p.read_text() for p in run_dir.iterdir())
    assert "sk-secret-0123456789abcdef" not in everything  # secrets never reach the journal


def test_no_journal(tftui, runs_dir: Path) -> None:
    done = tftui("run", str(SAMPLES / "map_reduce.json"), "--no-journal", "--json")
    assert done.code == 0 and done.json()["run_dir"] is None
    assert not runs_dir.exists()


def test_runs_lists_runs(tftui, runs_dir: Path) -> None:
    assert tftui("run", str(SAMPLES / "map_reduce.json"), "--quiet").code == 0
    assert tftui("run", str(SAMPLES / "side_effect.json"), "--quiet").code == 1
    listed = tftui("runs", "--json")
    assert listed.code == 0
    entries = listed.json()
    assert [(e["flow"], e["status"], e["phases_done"], e["phases_total"]) for e in entries] == [
        ("map-reduce", "completed", 3, 3),
        ("side-effect", "failed", 3, 3),  # deploy failed, its dependent skipped: all three ended
    ]
    assert entries[0]["tokens"] == 285 and entries[1]["tokens"] == 73
    table = tftui("runs")
    assert table.code == 0
    assert table.stdout.splitlines()[0].split()[:4] == ["RUN", "FLOW", "STARTED", "(UTC)"]
    assert "map-reduce" in table.stdout and "completed" in table.stdout and "3/3" in table.stdout
    # a flow file narrows the listing to its own runs
    only = tftui("runs", str(SAMPLES / "side_effect.json"), "--json").json()
    assert [e["flow"] for e in only] == ["side-effect"]


def test_runs_tolerates_torn_journal_and_shows_interrupted(tftui, runs_dir: Path) -> None:
    assert tftui("run", str(SAMPLES / "map_reduce.json"), "--quiet").code == 0
    run_dir = only_run_dir(runs_dir)
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines(keepends=True)
    # Simulate a kill: drop RunFinished, leave half a line behind, and make the writer a dead process.
    events.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    meta = json.loads((run_dir / "meta.json").read_text())
    meta["pid"] = dead.pid
    (run_dir / "meta.json").write_text(json.dumps(meta))
    listed = tftui("runs", "--json")
    entry = listed.json()[0]
    assert entry["status"] == "interrupted"
    assert any("torn last line" in w for w in entry["warnings"])
    table = tftui("runs")
    assert "interrupted" in table.stdout and "torn last line" in table.stderr


def test_runs_shows_a_live_run_as_running(tftui, runs_dir: Path) -> None:
    assert tftui("run", str(SAMPLES / "map_reduce.json"), "--quiet").code == 0
    run_dir = only_run_dir(runs_dir)
    events = run_dir / "events.jsonl"
    events.write_text("".join(events.read_text().splitlines(keepends=True)[:-1]))
    # meta.json names this (live) test process as the writer: the run is not "interrupted".
    assert tftui("runs", "--json").json()[0]["status"] == "running"


def test_runs_empty(tftui) -> None:
    done = tftui("runs")
    assert done.code == 0 and "no runs recorded" in done.stderr


def test_resume_of_a_finished_run_does_not_rerun(tftui, runs_dir: Path) -> None:
    assert tftui("run", str(SAMPLES / "side_effect.json"), "--quiet").code == 1
    run_dir = only_run_dir(runs_dir)
    before = (run_dir / "events.jsonl").read_bytes()
    done = tftui("run", str(SAMPLES / "side_effect.json"), "--resume", run_dir.name, "--json")
    assert done.code == 1
    assert "already finished (failed)" in done.stderr
    assert done.json()["phases"]["deploy"]["status"] == "failed"
    assert (run_dir / "events.jsonl").read_bytes() == before


def test_resume_unknown_run(tftui) -> None:
    done = tftui("run", str(SAMPLES / "side_effect.json"), "--resume", "20990101-000000-zzzz")
    assert done.code == 2 and "run '20990101-000000-zzzz' was not found" in done.stderr


def test_approval_headless_rejects_unless_approve(tftui) -> None:
    rejected = tftui("run", str(FLOWS / "approval.json"), "--json")
    assert rejected.code == 1
    out = rejected.json()
    assert out["status"] == "blocked" and out["phases"]["migrate"]["status"] == "skipped"
    approved = tftui("run", str(FLOWS / "approval.json"), "--json", "--approve")
    assert approved.code == 0
    assert approved.json()["final_output"] == "migrated"


def test_text_mode_progress_lines_are_plain_when_not_a_tty(tftui) -> None:
    done = tftui("run", str(SAMPLES / "side_effect.json"), "--no-wait")
    assert done.code == 1
    assert "\r" not in done.stderr and "\x1b[" not in done.stderr  # no spinner, no colour
    lines = done.stderr.splitlines()
    deploy = next(line for line in lines if " deploy " in line)
    assert deploy.split()[:4] == ["✗", "deploy", "agent", "failed"]
    assert "1 attempt" in deploy and "503 service unavailable" in deploy
    assert lines[-1].startswith("failed · 1 done, 1 failed, 1 skipped")
    assert done.stdout == "artifact: app-1.4.0.tar.gz\n"


def _interrupted_copy(tftui, tmp_path: Path, runs_dir: Path) -> tuple[Path, Path]:
    """Run a copy of map_reduce, then cut its journal after the first finished phase (a simulated kill)."""
    flow = tmp_path / "mr.json"
    flow.write_bytes((SAMPLES / "map_reduce.json").read_bytes())
    (tmp_path / "mr.replies.json").write_bytes((SAMPLES / "map_reduce.replies.json").read_bytes())
    assert tftui("run", str(flow), "--quiet").code == 0
    run_dir = only_run_dir(runs_dir)
    lines = (run_dir / "events.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"phase_finished"' in line) + 1
    # ... killed while writing the next event: half of it is on disk.
    (run_dir / "events.jsonl").write_text("".join(lines[:cut]) + lines[cut][: len(lines[cut]) // 2])
    return flow, run_dir


def test_resume_without_flow_argument_uses_the_recorded_path(tftui, tmp_path: Path, runs_dir: Path) -> None:
    _flow, run_dir = _interrupted_copy(tftui, tmp_path, runs_dir)
    done = tftui("run", "--resume", run_dir.name[:-2], "--json")  # a unique prefix is enough
    assert done.code == 0, done.stderr
    assert "resuming run" in done.stderr and "1/3 phases already finished" in done.stderr
    assert "torn last line" in done.stderr  # reported, then cut so appending stays clean
    out = done.json()
    assert out["status"] == "completed" and out["run_id"] == run_dir.name
    rows = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]  # all parse
    calls = [r["node_path"] for r in rows if r["kind"] == "attempt_started"]
    assert calls.count("list") == 1  # the finished phase was not called again
    assert len(calls) == 5
    assert out["totals"]["attempts"] == 5


def test_resume_refuses_a_changed_flow(tftui, tmp_path: Path, runs_dir: Path) -> None:
    flow, run_dir = _interrupted_copy(tftui, tmp_path, runs_dir)
    flow.write_text(flow.read_text().replace("weekly report", "monthly report"))
    done = tftui("run", str(flow), "--resume", run_dir.name)
    assert done.code == 2
    assert "changed since run" in done.stderr and "start a new run" in done.stderr


def test_resume_and_no_journal_conflict(tftui) -> None:
    done = tftui("run", str(SAMPLES / "map_reduce.json"), "--resume", "x", "--no-journal")
    assert done.code == 2 and "cannot be combined with --no-journal" in done.stderr


def test_unwritable_runs_dir(tftui, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = tftui("run", str(SAMPLES / "map_reduce.json"), "--runs-dir", str(blocker / "runs"))
    assert done.code == 2 and "cannot create the run journal" in done.stderr and "--no-journal" in done.stderr


def test_runs_live_beside_the_flow_and_are_found_from_the_parent(tftui, tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    for name in ("map_reduce.json", "map_reduce.replies.json"):
        (flows / name).write_bytes((SAMPLES / name).read_bytes())
    assert tftui("run", "flows/map_reduce.json", "--quiet", journal_env=False).code == 0
    (run_dir,) = (flows / ".tftui" / "runs").iterdir()
    listed = tftui("runs", "--json", journal_env=False).json()  # from tmp_path: ./*/.tftui/runs
    assert [e["run_id"] for e in listed] == [run_dir.name]
    assert [e["run_id"] for e in tftui("runs", "flows", "--json", journal_env=False).json()] == [run_dir.name]
    # --resume without FLOW looks in the same places
    done = tftui("run", "--resume", run_dir.name, journal_env=False)
    assert done.code == 0 and "already finished (completed)" in done.stderr
