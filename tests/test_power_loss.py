"""A simulated power loss: the journal cut back to what its last fsync made durable
(docs/scheduling.md §4.4). The kernel's page cache is gone, so every line written after that
fsync is lost — not only the line in flight, as with kill -9. A resume of such a journal must
end like the uninterrupted run and call again only idempotent phases, never a side effect."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from tftui import run_service
from tftui.agents.scripted import ScriptedRunner
from tftui.engine import journal as jr
from tftui.engine.clock import InstantClock
from tftui.engine.state import PhaseStatus
from tftui.flow.model import Flow


def _flow(marks: Path) -> dict[str, Any]:
    """The script appends a line to `marks` each time it runs (a side effect the test can count);
    its sleep outlasts the group-commit window, so a timed fsync can fall while it runs."""
    return {
        "name": "power",
        "phases": [
            {"id": "a", "task": "A"},
            {"id": "b", "task": "B {steps.a.output}", "dependsOn": ["a"]},
            {"id": "mail", "task": "send {steps.b.output}", "dependsOn": ["b"], "idempotent": False},
            {"id": "c", "task": "C {steps.mail.output}", "dependsOn": ["mail"]},
            {"id": "sh", "type": "script", "run": f"echo ran >> {shlex.quote(str(marks))}; sleep 0.08; echo S",
             "dependsOn": ["c"]},
            {"id": "d", "task": "D {steps.c.output} {steps.sh.output}", "dependsOn": ["sh"], "final": True},
        ],
    }


SIDE_EFFECTS = ("mail", "sh")
MARKS = "marks.log"  # under the test's tmp_path
# Each call takes longer than the group-commit window, so the timer fsyncs between phases.
SLOW = {pid: {"output": pid.upper() + "!", "delayMs": 70} for pid in ("a", "b", "mail", "c", "d")}
FAST = {pid: pid.upper() + "!" for pid in ("a", "b", "mail", "c", "d")}


def _summary(state: Any) -> dict[str, tuple[str, str | None]]:
    return {pid: (str(p.status), p.output) for pid, p in state.phases.items()}


def _script_runs(marks: Path) -> int:
    return marks.read_text().count("ran") if marks.exists() else 0


@pytest.fixture
def journaled_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[int], Any]:
    """One uninterrupted run, and the file offsets its fsyncs made durable, in order."""
    durable: list[int] = []
    real_fsync = jr.Journal._fsync  # every fsync, the timer's and `sync`'s

    def recording_fsync(self: jr.Journal) -> None:
        real_fsync(self)
        if not durable or durable[-1] != self.synced_offset:
            durable.append(self.synced_offset)

    monkeypatch.setattr(jr.Journal, "_fsync", recording_fsync)
    flow = Flow.model_validate(_flow(tmp_path / MARKS))
    session = run_service.start(flow, args={}, flow_path=None, flow_text=json.dumps(_flow(tmp_path / MARKS)), root=tmp_path / "runs",
                                runner=None)
    import asyncio

    result = asyncio.run(run_service.execute(session, runner=ScriptedRunner(SLOW), clock=InstantClock()))
    assert result.status == "completed" and session.run_dir is not None and _script_runs(tmp_path / MARKS) == 1
    return session.run_dir, durable, result


def test_resume_after_a_power_loss_at_every_fsync(journaled_run: tuple[Path, list[int], Any], tmp_path: Path) -> None:
    run_dir, durable, reference = journaled_run
    size = (run_dir / jr.EVENTS_FILE).stat().st_size
    cuts = [offset for offset in durable if 0 < offset < size]
    # timed fsyncs between phases, plus the two around the side effect: several cut points
    assert len(cuts) >= 4
    import asyncio

    seen_in_flight: set[str] = set()
    for n, offset in enumerate(cuts):
        copy = tmp_path / f"cut-{n}" / run_dir.name
        shutil.copytree(run_dir, copy)
        with open(copy / jr.EVENTS_FILE, "r+b") as fh:
            fh.truncate(offset)  # what the disk holds after the power loss
        recorded = run_service.read_recorded(copy)
        assert not any(w for w in recorded.warnings if "torn" in w)  # an fsync never leaves half a line
        before = {pid: recorded.state.phases[pid].status for pid in SIDE_EFFECTS}
        runs_before = _script_runs(tmp_path / MARKS)
        flow = Flow.model_validate(_flow(tmp_path / MARKS))
        session = run_service.resume(recorded, flow, args={}, flow_path=str(copy / jr.FLOW_FILE))
        run_service.reopen(session)
        agent = ScriptedRunner(FAST)
        result = asyncio.run(run_service.execute(session, runner=session.runner_for(agent), clock=InstantClock()))
        asked = [call.node_path for call in agent.calls]
        assert "mail" not in asked or before["mail"] == PhaseStatus.PENDING, (offset, asked)  # never sent twice
        assert len(asked) == len(set(asked))
        script_again = _script_runs(tmp_path / MARKS) - runs_before
        assert result.state is not None
        ran_now = before["sh"] == PhaseStatus.PENDING and result.state.phases["sh"].status == PhaseStatus.DONE
        assert script_again == (1 if ran_now else 0), (offset, before)  # a script that had started never runs twice
        in_flight = [pid for pid in SIDE_EFFECTS if before[pid] == PhaseStatus.RUNNING]
        seen_in_flight.update(in_flight)
        if in_flight:
            # in flight when the power went: failed with the §4.3 explanation, not repeated
            assert result.state is not None
            assert [pid for pid in SIDE_EFFECTS if result.state.phases[pid].status == PhaseStatus.FAILED] == in_flight
            assert session.resumed is not None and session.resumed.side_effects_in_flight == in_flight
        else:
            assert result.status == "completed"
            assert result.state is not None and _summary(result.state) == _summary(reference.state)
        rows, _meta, warnings = jr.read_journal(copy)
        assert warnings == [] and rows[-1]["kind"] == "run_finished"
    # the fsync before a side effect starts makes its start durable: each is cut in flight once
    assert seen_in_flight == set(SIDE_EFFECTS)
