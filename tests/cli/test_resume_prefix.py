"""`tftui run --resume PREFIX`: a run-id prefix that matches several runs lists them (exit 2)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


def test_ambiguous_resume_prefix_lists_the_matching_runs(tftui, runs_dir: Path) -> None:
    for _ in range(2):
        assert tftui("run", str(SAMPLES / "validate.json"), "--quiet").code == 0
    ids = sorted(p.name for p in runs_dir.iterdir())
    assert len(ids) == 2 and ids[0][:8] == ids[1][:8]  # both start with the date

    done = tftui("run", "--resume", ids[0][:8])
    assert done.code == 2
    assert f"run '{ids[0][:8]}' is ambiguous: it matches 2 runs" in done.stderr
    assert all(str(runs_dir / run_id) in done.stderr for run_id in ids)

    missing = tftui("run", "--resume", "19990101")
    assert missing.code == 2 and "run '19990101' was not found under" in missing.stderr
