"""A seeded partial re-run (`u`, `r`, an applied guard) copies the previous run's journal and
writes its trace.json from the lines as the journal writes them: the file it writes is the one a
reader of the journal would write, and the end of the re-run does not read events.jsonl back."""

from __future__ import annotations

import json
from pathlib import Path

from tftui import redaction, run_service
from tftui.agents.scripted import ScriptedRunner
from tftui.engine import journal as jr
from tftui.engine.clock import InstantClock
from tftui.engine.state import copy_state
from tftui.flow.model import Flow
from tftui.trace.record import trace_run_dir

FLOW = {
    "name": "seeded",
    "phases": [
        {"id": "a", "task": "A"},
        {"id": "b", "task": "B {steps.a.output}", "dependsOn": ["a"]},
        {"id": "c", "task": "C {steps.b.output}", "dependsOn": ["b"], "final": True},
    ],
}
SECRET = "s3cr3t-value-0123456789"


async def _first_run(tmp_path: Path):
    flow, runner = Flow.model_validate(FLOW), ScriptedRunner({"a": ["a1"], "b": ["b1"], "c": ["c1", "c2"]})
    first = run_service.start(flow, args={"topic": "x"}, flow_path=None, flow_text=json.dumps(FLOW), root=tmp_path,
                              runner=runner)
    result = await run_service.execute(first, runner=runner, clock=InstantClock())
    assert result.state is not None and first.run_dir is not None
    return flow, runner, first.run_dir, result.state


def _seed(flow: Flow, state, previous: Path, root: Path) -> run_service.RunSession:  # noqa: ANN001
    return run_service.seed(flow, copy_state(state), ["c"], "rerun-stale", args={"topic": "x"}, flow_path=None,
                            flow_text=json.dumps(FLOW), root=root, previous=previous, clock=InstantClock())


async def test_the_seeded_trace_is_written_without_reading_the_journal_back(tmp_path, monkeypatch) -> None:
    flow, runner, previous, state = await _first_run(tmp_path)

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("events.jsonl read back")

    monkeypatch.setattr(jr, "load_events", refused)  # from here on, nothing may read a journal back
    again = _seed(flow, state, previous, tmp_path)
    await run_service.execute(again, runner=runner, clock=InstantClock())
    assert [n.kind for n in again.notes] == ["seeded"]  # no trace warning
    monkeypatch.undo()
    assert again.run_dir is not None
    written = (again.run_dir / "trace.json").read_text(encoding="utf-8")
    path, warnings = trace_run_dir(again.run_dir, out=tmp_path / "from-the-file.json")
    assert warnings == [] and path is not None
    assert written == path.read_text(encoding="utf-8")  # what a reader of the journal writes
    assert all(f'"phase": "{pid}"' in written for pid in "abc")  # the copied calls and the re-run's


async def test_the_copy_holds_the_previous_lines_and_masks_what_they_hold(tmp_path) -> None:
    flow, _runner, previous, state = await _first_run(tmp_path)
    events = previous / "events.jsonl"
    before = events.read_text(encoding="utf-8").splitlines()
    # a line an earlier version wrote unmasked, then a torn last line (dropped, with a note)
    leaked = json.dumps({"kind": "phase_warning", "seq": 999, "ts": 1.0, "phase_id": "a", "message": f"saw {SECRET}"})
    events.write_text("\n".join([*before, leaked, '{"kind": "pha']) + "\n", encoding="utf-8")
    try:
        redaction.register_secret(SECRET)  # known now, not when the first run wrote its journal
        again = _seed(flow, state, previous, tmp_path)
        assert again.run_dir is not None and again.journal is not None
        again.journal.close()
    finally:
        redaction.forget_secrets()
    copied = (again.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert copied[: len(before)] == before  # the previous run's lines as they were written
    assert len(copied) == len(before) + 1
    assert SECRET not in copied[-1] and json.loads(copied[-1])["message"].startswith("saw ")
    assert [n.kind for n in again.notes] == ["seeded", "previous-journal"]  # the torn line
