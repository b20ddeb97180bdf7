"""`tftui run` progress lines keep their columns when a graft-mode expand adds phases
(`fanout-draft`, longer than any id in the file) to the run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tftui.flow.load as load_module
from tftui.commands.progress import grafted_ids
from tftui.flow.load import load_flow

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

def _flow(path: Path):  # type: ignore[no-untyped-def]
    loaded = load_flow(path).flow
    assert loaded is not None
    return loaded


def test_grafted_ids_from_the_loaded_flow():
    race = SAMPLES / "subflow_race.json"
    assert grafted_ids(_flow(race)) == ["fanout-draft", "fanout-polish"]
    reduce = SAMPLES / "map_reduce.json"
    assert grafted_ids(_flow(reduce)) == []


def test_grafted_ids_do_not_read_the_flow_again(monkeypatch: pytest.MonkeyPatch):
    """The run's flow is the one already loaded and checked (before, the file was read, loaded
    and checked a second time for the column widths)."""
    race = SAMPLES / "subflow_race.json"
    flow = _flow(race)
    read: list[str] = []
    original = load_module.read_regular_file

    def counting(path, limit):  # type: ignore[no-untyped-def]
        read.append(Path(path).name)
        return original(path, limit)

    monkeypatch.setattr(load_module, "read_regular_file", counting)
    assert grafted_ids(flow) == ["fanout-draft", "fanout-polish"]
    assert read == []
