"""Kill a run (SIGKILL / SIGINT / SIGTERM) mid-way, then `tftui run --resume` finishes it from its journal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tftui.engine.journal import decode_events, read_journal
from tftui.engine.state import fold

FLOWS = Path(__file__).resolve().parent / "flows"


def _env(tmp_path: Path) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env.update(
        TFTUI_RUNS_DIR=str(tmp_path / "runs"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        HOME=str(tmp_path / "home"),
    )
    return env


# `python -m tftui` with one change: the run sends itself `signal` the moment its journal has
# written the `count`-th row of `kind` (whose node_path starts with `prefix`) to the OS (with the
# rest of its batch: docs/scheduling.md §4.4). The signal is a
# real one to a real process, but it lands at a point the test names, not wherever a polling
# test happens to look (a loaded machine's poller could see the run only after it had finished
# or had gone past the point; tests/cli/test_resume_kill_random.py does the same for kill -9).
_SIGNAL_AT = """
import json, os, signal, sys
from tftui.engine.journal import Journal
kind, prefix, count, sig = sys.argv[1], sys.argv[2], int(sys.argv[3]), getattr(signal, sys.argv[4])
write_line, seen = Journal.write_line, []
def write_then_signal(self, data):
    write_line(self, data)
    for line in data.splitlines():
        row = json.loads(line)
        if row.get("kind") == kind and str(row.get("node_path") or row.get("phase_id") or "").startswith(prefix):
            seen.append(row)
            if len(seen) == count:
                os.kill(os.getpid(), sig)
Journal.write_line = write_then_signal
from tftui.cli import main
sys.exit(main(sys.argv[5:]))
"""


def _start(tmp_path: Path, flow: Path, kind: str, count: int, sig: signal.Signals, prefix: str = "") -> subprocess.Popen[str]:
    """`tftui run FLOW --json` in a process that signals itself at its `count`-th `kind` row."""
    return subprocess.Popen(
        [sys.executable, "-c", _SIGNAL_AT, kind, prefix, str(count), sig.name, "run", str(flow), "--json"],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _rows(run_dir: Path) -> list[dict]:
    return read_journal(run_dir)[0]


def _run_dir(tmp_path: Path) -> Path:
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    return run_dir


def _wait_stopped(proc: subprocess.Popen[str], tmp_path: Path) -> Path:
    """Wait (bounded) until the run has stopped itself with SIGSTOP; returns its run directory."""
    deadline = time.monotonic() + 60  # a safety net against a hung test, not a timing assertion
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1]
        with open(f"/proc/{proc.pid}/stat") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] == "T":  # the state field: stopped
                return _run_dir(tmp_path)
        time.sleep(0.01)
    proc.kill()
    raise AssertionError("the run never reached charge's attempt")


def _finished(rows: list[dict]) -> list[str]:
    return [r["phase_id"] for r in rows if r.get("kind") == "phase_finished"]


def _resume(tmp_path: Path, flow: Path, run_id: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tftui", "run", str(flow), "--resume", run_id, "--json"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _uninterrupted(tftui, flow: Path) -> dict:
    """The same flow run start to end (no journal): what a resumed run must equal. In-process
    (tests/cli/conftest.py): the reference needs no process of its own."""
    fresh = tftui("run", str(flow), "--json", "--no-journal")
    assert fresh.code == 0, fresh.stderr
    return fresh.json()


def _comparable(out: dict) -> dict:
    return {pid: (p["status"], p["output"], p["error"], p["attempts"]) for pid, p in out["phases"].items()}


def test_kill9_then_resume_equals_an_uninterrupted_run(tmp_path: Path, tftui) -> None:
    flow = FLOWS / "slow_chain.json"
    proc = _start(tmp_path, flow, "phase_finished", 3, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    run_dir = _run_dir(tmp_path)

    before, _meta, warnings = read_journal(run_dir)
    finished_before = set(_finished(before))
    assert 3 <= len(finished_before) < 6
    assert not any(r["kind"] == "run_finished" for r in before)
    assert tftui("runs", "--json").json()[0]["status"] == "interrupted"

    resumed = _resume(tmp_path, flow, run_dir.name)  # a real process: `tftui run --resume` end to end
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert out["status"] == "completed" and out["run_id"] == run_dir.name

    after, _meta, warnings = read_journal(run_dir)
    assert warnings == []  # the journal parses, whole
    assert after[: len(before)] == before  # append-only: nothing rewritten
    new = after[len(before) :]
    assert new[0]["kind"] == "run_started" and new[0]["resumed"] is True
    # No finished phase's agent was called again.
    called_again = {r["node_path"] for r in new if r["kind"] == "attempt_started"}
    assert not (called_again & finished_before)
    # Every phase finished exactly once over the whole journal, and each agent was called once
    # except, at most, the one in flight at the kill.
    assert sorted(_finished(after)) == sorted(out["phases"])
    calls = [r["node_path"] for r in after if r["kind"] == "attempt_started"]
    assert len(calls) - len(set(calls)) <= 1

    # The folded journal and the printed result agree, and equal an uninterrupted run.
    state = fold(decode_events(after)[0])
    assert {pid: str(p.status) for pid, p in state.phases.items()} == {
        pid: p["status"] for pid, p in out["phases"].items()
    }
    reference = _uninterrupted(tftui, flow)
    assert _comparable(out) == _comparable(reference)
    assert out["final_output"] == reference["final_output"] == "publish-result"
    assert out["totals"]["tokens"] >= reference["totals"]["tokens"]  # an in-flight call may be paid twice


@pytest.mark.skipif(sys.platform != "linux", reason="reads the process state from /proc")
def test_in_flight_side_effect_is_reported_not_repeated(tmp_path: Path, tftui) -> None:
    flow = FLOWS / "slow_side_effect.json"
    # the run stops itself (SIGSTOP) as charge's attempt starts: alive, holding its journal
    proc = _start(tmp_path, flow, "attempt_started", 1, signal.SIGSTOP, prefix="charge")
    run_dir = _wait_stopped(proc, tmp_path)
    busy = tftui("run", str(flow), "--resume", run_dir.name)  # the writer is alive: refused
    assert busy.code == 2 and "being written by another tftui process" in busy.stderr
    proc.kill()
    proc.communicate(timeout=10)

    before = _rows(run_dir)
    resumed = tftui("run", str(flow), "--resume", run_dir.name, "--json")
    assert resumed.code == 1, resumed.stderr
    assert "'charge' (idempotent: false) was in flight" in resumed.stderr
    assert "NOT repeated" in resumed.stderr
    out = resumed.json()
    assert out["status"] == "failed"
    charge = out["phases"]["charge"]
    assert charge["status"] == "failed" and "not re-run" in charge["error"]
    assert out["phases"]["prepare"]["status"] == "done"
    assert out["phases"]["receipt"]["status"] == "skipped"
    new = _rows(run_dir)[len(before) :]
    assert not [r for r in new if r["kind"] == "attempt_started"]  # nothing was called again


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_exits_130_with_a_resume_hint(tmp_path: Path, tftui, sig: signal.Signals) -> None:
    flow = FLOWS / "slow_chain.json"
    proc = _start(tmp_path, flow, "phase_finished", 1, sig)
    _stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    run_dir = _run_dir(tmp_path)
    assert f"--resume {run_dir.name}" in stderr
    rows, _meta, warnings = read_journal(run_dir)
    assert warnings == []
    assert (
        rows[-1]["kind"] == "run_finished" and rows[-1]["status"] == "paused"
    )  # the journal says why it stopped
    assert tftui("runs", "--json").json()[0]["status"] == "paused"
    resumed = tftui("run", str(flow), "--resume", run_dir.name, "--json")
    assert resumed.code == 0, resumed.stderr
    assert resumed.json()["final_output"] == "publish-result"


def test_kill9_mid_map_resume_reuses_the_answered_items(tmp_path: Path, tftui) -> None:
    """A map killed part-way: the resume re-runs the map phase, but the items the killed run
    already got answers for are answered from the journal, not paid for again."""
    flow = FLOWS / "slow_map.json"
    proc = _start(tmp_path, flow, "agent_returned", 3, signal.SIGKILL, prefix="each#")

    def items_answered(rows: list[dict]) -> list[str]:
        return [r["node_path"] for r in rows if r.get("kind") == "agent_returned" and r["node_path"].startswith("each#")]

    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    run_dir = _run_dir(tmp_path)
    before = _rows(run_dir)
    answered_before = set(items_answered(before))
    assert 3 <= len(answered_before) < 6  # killed mid-map

    resumed = tftui("run", str(flow), "--resume", run_dir.name, "--json")
    assert resumed.code == 0, resumed.stderr
    out = resumed.json()
    assert out["status"] == "completed"
    assert f"replaying its {len(answered_before)} recorded call(s) from the journal" in resumed.stderr
    assert any(f"{len(answered_before)} call(s) replayed from the journal" in n for n in out["notes"])

    new = _rows(run_dir)[len(before) :]
    returned = {r["node_path"]: r for r in new if r["kind"] == "agent_returned"}
    # Every item is answered in the resumed run; the ones answered before cost nothing now.
    assert {p for p in returned if p.startswith("each#")} == {f"each#item-{i}" for i in range(6)}
    for path, row in returned.items():
        if path in answered_before:
            assert row["usage"] is None and row["output"] == f"review of m{path[-1]}"
        else:
            assert row["usage"] == {"input": 20 if path.startswith("each#") else 30, "output": 7 if path.startswith("each#") else 9}

    reference = _uninterrupted(tftui, flow)
    assert _comparable(out) == _comparable(reference)
    assert out["final_output"] == reference["final_output"] == "merged report"
    # Over both processes every call was paid exactly once: the totals equal an uninterrupted run's.
    assert out["totals"]["tokens"] == reference["totals"]["tokens"]


def test_kill9_during_a_backoff_resumes_with_the_same_attempts(tmp_path: Path, tftui) -> None:
    """Killed while b waits before its third attempt: the resume replays b's two failures from the
    journal (the retry does not start counting over, the waits are not repeated), the replies
    file continues where it was, and the run ends exactly like an uninterrupted one."""
    flow = FLOWS / "retry_backoff.json"
    proc = _start(tmp_path, flow, "backoff_started", 2, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    run_dir = _run_dir(tmp_path)
    resumed = tftui("run", str(flow), "--resume", run_dir.name, "--json")
    assert resumed.code == 0, resumed.stderr
    assert "replaying its 2 recorded call(s) from the journal" in resumed.stderr
    out = resumed.json()
    reference = _uninterrupted(tftui, flow)
    assert reference["status"] == "completed" and reference["phases"]["b"]["attempts"] == 4
    assert _comparable(out) == _comparable(reference)
