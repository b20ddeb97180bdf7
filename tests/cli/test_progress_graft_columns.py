"""`tftui run` progress lines keep their columns when a graft-mode expand adds phases
(`fanout-draft`, longer than any id in the file) to the run."""

from __future__ import annotations

import re
from pathlib import Path

from tftui.commands.progress import grafted_ids

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
LINE = re.compile(r"^(\S) (\S+)( +)(\S+)( +)(done|failed|skipped|blocked)")


def test_grafted_rows_line_up_with_the_others(tftui):
    done = tftui("run", str(SAMPLES / "subflow_race.json"))
    assert done.code == 0, done.stderr
    matches = [m for m in map(LINE.match, done.stderr.splitlines()) if m]
    assert {"fanout-draft", "fanout-polish", "plan", "report"} <= {m.group(2) for m in matches}, done.stderr
    # the type column and the status column start at the same place on every line
    assert len({m.start(4) for m in matches}) == 1, done.stderr
    assert len({m.start(6) for m in matches}) == 1, done.stderr

def test_grafted_ids_from_the_file():
    assert grafted_ids(str(SAMPLES / "subflow_race.json")) == ["fanout-draft", "fanout-polish"]
    assert grafted_ids(str(SAMPLES / "map_reduce.json")) == []
    assert grafted_ids(str(SAMPLES / "no-such-flow.json")) == []
