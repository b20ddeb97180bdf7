"""A symlinked flow (issue 17, fault 11; docs/inputs.md §5): its journal and its replies are both
looked up beside the file the link points to."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


def test_replies_and_journal_sit_beside_the_target(tftui, tmp_path: Path) -> None:
    real, links = tmp_path / "real", tmp_path / "links"
    real.mkdir()
    links.mkdir()
    for name in ("validate.json", "validate.replies.json"):
        shutil.copy(SAMPLES / name, real / name)
    (links / "v.json").symlink_to(real / "validate.json")
    done = tftui("run", str(links / "v.json"), journal_env=False)
    assert done.code == 0, done.stderr
    assert "replies" not in done.stderr or "not found" not in done.stderr
    assert [p.name for p in links.iterdir()] == ["v.json"]  # nothing beside the link
    assert len(list((real / ".tftui" / "runs").iterdir())) == 1
