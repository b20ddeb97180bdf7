"""When the run fsyncs its journal: before a layer that depends on results ended since the
last fsync, around side-effect phases and at the end — never per event, never on a timer."""

from __future__ import annotations

from typing import Any

from tftui.agents.scripted import MarkerRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow


class RecordingJournal:
    """Records appended event kinds and syncs, in order; `sync` is a no-op when nothing is new."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str | None]] = []
        self.dirty = False

    def append(self, event: Any) -> None:
        self.log.append((event.kind, getattr(event, "phase_id", None)))
        self.dirty = True

    def sync(self) -> None:
        if self.dirty:
            self.log.append(("SYNC", None))
            self.dirty = False


async def _run(phases: list[dict[str, Any]], concurrency: int = 1) -> list[tuple[str, str | None]]:
    flow = Flow.model_validate({"name": "sync", "concurrency": concurrency, "phases": phases})
    journal = RecordingJournal()
    result = await run_flow(flow, runner=MarkerRunner({}, "ok"), clock=InstantClock(), journal=journal)
    assert result.status == "completed"
    return journal.log


def _syncs_before_start(log: list[tuple[str, str | None]], phase_id: str) -> int:
    start = log.index(("phase_started", phase_id))
    return sum(1 for kind, _ in log[:start] if kind == "SYNC")


async def test_chain_syncs_before_each_dependent_layer_and_at_the_end() -> None:
    log = await _run(
        [
            {"id": "a", "task": "[[a]] go"},
            {"id": "b", "task": "[[b]] {steps.a.output}", "dependsOn": ["a"]},
            {"id": "c", "task": "[[c]] {steps.b.output}", "dependsOn": ["b"]},
        ]
    )
    assert _syncs_before_start(log, "a") == 0
    assert _syncs_before_start(log, "b") == 1
    assert _syncs_before_start(log, "c") == 2
    # a's result is durable before b starts: the last sync before b comes after a finished
    b_start = log.index(("phase_started", "b"))
    assert log.index(("phase_finished", "a")) < max(i for i in range(b_start) if log[i][0] == "SYNC")
    assert log[-1] == ("SYNC", None)
    assert sum(1 for kind, _ in log if kind == "SYNC") == 3


async def test_independent_phases_share_one_sync() -> None:
    log = await _run(
        [{"id": f"p{i}", "task": f"[[p{i}]] go"} for i in range(5)]
        + [{"id": "join", "task": "[[join]] all", "dependsOn": [f"p{i}" for i in range(5)]}],
        concurrency=3,
    )
    assert _syncs_before_start(log, "join") == 1
    assert sum(1 for kind, _ in log if kind == "SYNC") == 2  # before join, at the end


async def test_skipped_dependency_is_durable_before_its_dependent_starts() -> None:
    log = await _run(
        [
            {"id": "a", "task": "[[a]] go", "when": "1 == 2"},
            {"id": "b", "task": "[[b]] go", "dependsOn": ["a"], "join": "any"},
            {"id": "c", "task": "[[c]] go"},
            {"id": "d", "task": "[[d]] go", "dependsOn": ["c"]},
        ]
    )
    skipped = log.index(("phase_skipped", "a"))
    d_start = log.index(("phase_started", "d"))
    assert any(kind == "SYNC" for kind, _ in log[skipped:d_start])
