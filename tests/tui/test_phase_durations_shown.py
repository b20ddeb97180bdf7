"""A phase's duration is shown wherever it is known: `0ms` for one under a millisecond (as
`tftui run`'s column has it), and in a replay the durations the recording holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tftui import present
from tftui.engine.state import PhaseState


def test_a_finished_phase_under_a_millisecond_reads_0ms_and_one_never_started_reads_nothing():
    done = PhaseState(id="a", type="agent", status="done", started_at=100.0, ended_at=100.0004, duration_ms=0.4)
    instant = PhaseState(id="b", type="agent", status="done", started_at=100.0, ended_at=100.0, duration_ms=0.0)
    skipped = PhaseState(id="c", type="agent", status="skipped")
    running = PhaseState(id="d", type="agent", status="running", started_at=100.0)
    assert present.phase_duration_text(done, None) == present.elapsed_text(0.4) == "0ms"
    assert present.phase_duration_text(instant, None) == "0ms"
    assert present.phase_duration_text(skipped, 105.0) == ""
    assert present.phase_duration_text(running, None) == ""  # no clock: a replay's running phase
    assert present.phase_duration_text(running, 100.25) == "250ms"


@pytest.fixture
def recorded(h, tmp_path: Path) -> Path:
    from tftui.cli import main

    runs = tmp_path / "runs"
    assert main(["run", str(h.FIXTURES / "guarded.json"), "--runs-dir", str(runs), "-q"]) == 0
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    return run_dir


async def test_a_replay_shows_the_recorded_durations(recorded, tmp_path):
    from tftui.tui import detail_text
    from tftui.tui.replay_app import open_replay_app

    app, problem = open_replay_app(recorded, config_path=tmp_path / "none.toml")
    assert problem is None and app is not None
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        state = app.main.dag.state
        assert state.phases["triage"].status == "done"
        label = app.main.dag.label_for("triage").plain
        assert re.search(r" \d+ms\b", label), label
        assert state.phases["quick-summary"].status == "skipped"
        assert not re.search(r"\d+ms", app.main.dag.label_for("quick-summary").plain)  # never ran
        overview = detail_text.overview(
            "triage", app.flow.phase("triage"), state.phases["triage"], stale=False, breakpoint=False,
            guard_override=None, show_times=app.show_times,
        ).plain
        assert re.search(r"^Duration: \d+ms$", overview, re.M), overview
