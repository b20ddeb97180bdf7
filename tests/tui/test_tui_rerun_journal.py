"""A partial re-run in the debugger is journaled by the run service: the re-run's own run
directory, folded alone, gives exactly what the debugger shows (the UI folds the same events
and never edits the state itself)."""

from __future__ import annotations

from pathlib import Path

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.journal import decode_events, read_journal
from tftui.engine.state import fold


def _view(state) -> dict[str, tuple[str, str | None, int]]:
    return {pid: (str(st.status), st.output, len(st.attempt_log)) for pid, st in state.phases.items()}


async def test_gate_rerun_journal_folds_to_what_the_debugger_shows(h, tmp_path: Path):
    runner = ScriptedRunner.from_file(h.FIXTURES / "review.replies.json")
    app = h.make_app(h.FIXTURES / "review.json", runner=runner, runs_root=tmp_path / "runs")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        first = app.run_dir
        app.main.dag.select_phase("review")
        await pilot.press("r")
        await h.run_to_end(pilot, app)
        again = app.run_dir
        assert first is not None and again is not None and again != first
        rows, _meta, warnings = read_journal(again)
        assert warnings == []
        assert sum(r["kind"] == "phases_reset" for r in rows) == 1
        events, problems = decode_events(rows)
        assert problems == []
        assert _view(fold(events)) == _view(app.state)
        assert (again / "trace.json").exists()
