"""When the run fsyncs its journal (docs/scheduling.md §4.4): never per event or per layer —
the journal group-commits on its own timer — but at once before and after a phase with side
effects (`idempotent: false`, scripts, approvals), at pauses and at the end."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tftui.agents.scripted import MarkerRunner
from tftui.engine import journal as jmod
from tftui.engine.clock import InstantClock
from tftui.engine.journal import Journal
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


async def _run(phases: list[dict[str, Any]], concurrency: int = 1, **run: Any) -> list[tuple[str, str | None]]:
    flow = Flow.model_validate({"name": "sync", "concurrency": concurrency, "phases": phases})
    journal = RecordingJournal()
    result = await run_flow(flow, runner=MarkerRunner({}, "ok"), clock=InstantClock(), journal=journal, **run)
    assert result.status == "completed"
    return journal.log


def _syncs(log: list[tuple[str, str | None]]) -> int:
    return sum(1 for kind, _ in log if kind == "SYNC")


async def test_a_chain_of_idempotent_phases_leaves_fsyncs_to_the_journal_and_syncs_at_the_end() -> None:
    log = await _run(
        [{"id": "p0", "task": "[[p0]] go"}]
        + [{"id": f"p{i}", "task": f"[[p{i}]] {{previous.output}}", "dependsOn": [f"p{i - 1}"]} for i in range(1, 50)]
    )
    assert _syncs(log) == 1  # no fsync per layer any more: only the end's
    assert log[-1] == ("SYNC", None) and log[-2][0] == "run_finished"


@pytest.mark.parametrize(
    "phase",
    [
        {"id": "s", "task": "[[s]] send the mail", "idempotent": False, "dependsOn": ["a"]},
        {"id": "s", "type": "script", "run": "true", "dependsOn": ["a"]},
    ],
    ids=["idempotent-false", "script"],
)
async def test_a_side_effect_phase_is_durable_before_it_starts_and_after_it_ends(phase: dict[str, Any]) -> None:
    log = await _run([{"id": "a", "task": "[[a]] go"}, phase, {"id": "b", "task": "[[b]] go", "dependsOn": ["s"]}])
    start, end = log.index(("phase_started", "s")), log.index(("phase_finished", "s"))
    assert log[start + 1] == ("SYNC", None)  # its start (and a's result) is on disk before it runs
    assert log[end + 1] == ("SYNC", None)  # its end is on disk before anything else happens
    assert _syncs(log) == 3


async def test_an_approval_is_durable_before_and_after_the_decision() -> None:
    from tftui.engine.phases.approval import approve_all

    log = await _run(
        [{"id": "a", "task": "[[a]] go"}, {"id": "ok", "type": "approval", "prompt": "ship?", "dependsOn": ["a"]}],
        approver=approve_all,
    )
    start, end = log.index(("phase_started", "ok")), log.index(("phase_finished", "ok"))
    assert ("SYNC", None) == log[start + 1] and ("SYNC", None) in log[start + 1 : end]
    assert log[end + 1] == ("SYNC", None)


def _line(i: int) -> dict[str, Any]:
    return {"kind": "e", "seq": i}


def test_group_commit_makes_a_quiet_journal_durable_without_another_call(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x")
    journal.append(_line(1))
    size = (journal.run_dir / "events.jsonl").stat().st_size
    deadline = time.monotonic() + 30  # a safety net against a hung test, not a timing assertion
    while journal.synced_offset < size and time.monotonic() < deadline:
        time.sleep(0.01)
    assert journal.synced_offset == size and journal.syncs == 1
    journal.close()
    assert journal.syncs == 1  # nothing new since: closing does not fsync again


def test_group_commit_fsyncs_far_less_than_once_per_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(jmod.os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    journal = Journal.create(tmp_path, flow_name="x")
    calls.clear()  # creating the run directory syncs meta.json
    began = time.monotonic()
    for i in range(2000):
        journal.append(_line(i))
        if i % 100 == 0:
            time.sleep(0.005)
    elapsed = time.monotonic() - began
    journal.close()
    # At most one timed fsync per 50 ms window that saw appends, plus the one at close.
    assert 1 <= len(calls) <= elapsed / jmod.GROUP_COMMIT_S + 2
    assert journal.synced_offset == (journal.run_dir / "events.jsonl").stat().st_size


def test_no_timer_when_group_commit_is_off(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    journal.append(_line(1))
    assert journal.syncs == 0 and journal.synced_offset == 0
    journal.sync()
    assert journal.syncs == 1 and journal.synced_offset > 0
    journal.close()


def _os_lines(journal: Journal) -> int:
    return (journal.run_dir / "events.jsonl").read_bytes().count(b"\n")


async def test_events_of_one_loop_turn_reach_the_os_in_one_write_before_the_loop_waits(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    for i in range(50):
        journal.append(_line(i))
    await asyncio.sleep(0.001)  # the loop waits: what was appended is in the OS first
    assert _os_lines(journal) == 50 and journal.writes == 1
    journal.append(_line(50))
    journal.sync()  # a sync writes what is queued, then fsyncs it
    assert _os_lines(journal) == 51 and journal.synced_offset == (journal.run_dir / "events.jsonl").stat().st_size
    journal.close()


async def test_a_batch_looks_up_the_running_loop_once_not_once_per_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CPython 3.11's _get_running_loop makes a getpid system call: once per batch, not per line
    lookups: list[object] = []

    def counting() -> object:
        lookups.append(None)
        return asyncio.events._get_running_loop()

    monkeypatch.setattr(jmod, "_get_running_loop", counting)
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    for i in range(100):
        journal.append(_line(i))
    assert len(lookups) == 1 and _os_lines(journal) == 0  # one flush queued for the whole turn
    await asyncio.sleep(0.001)
    assert _os_lines(journal) == 100
    journal.append(_line(100))  # the next turn's first line queues the next flush
    assert len(lookups) == 2
    await asyncio.sleep(0.001)
    assert _os_lines(journal) == 101 and journal.writes == 2
    journal.close()


def test_a_line_appended_after_its_loop_stopped_is_written_at_once(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    loop = asyncio.new_event_loop()

    async def append_then_stop() -> None:
        journal.append(_line(0))  # queues a flush on this loop
        loop.stop()  # the loop stops before it runs that flush

    try:
        loop.call_soon(lambda: asyncio.ensure_future(append_then_stop(), loop=loop))
        loop.run_forever()
        journal.append(_line(1))  # no loop runs now: written at once, the line held before too
        assert _os_lines(journal) == 2
    finally:
        loop.close()
        journal.close()


async def test_a_long_turn_writes_its_events_once_the_cap_is_held(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    big = {"kind": "e", "text": "x" * 4096}
    count = jmod.MAX_BUFFERED // 4096 + 2
    for _ in range(count):
        journal.append(big)
    assert 0 < _os_lines(journal) <= count  # written without waiting for the loop to turn
    await asyncio.sleep(0)
    assert _os_lines(journal) == count
    journal.close()


class _FlakyFile:
    """The journal's file, with scripted write outcomes: an int writes only that many bytes
    (a short write), an OSError is raised; once the script is used up, writes go through."""

    def __init__(self, real: Any, script: list[int | OSError]) -> None:
        self.real, self.script = real, script

    @property
    def closed(self) -> bool:
        return bool(self.real.closed)

    def write(self, data: bytes) -> int | None:
        step = self.script.pop(0) if self.script else None
        if isinstance(step, OSError):
            raise step
        return self.real.write(data[:step] if step is not None else data)

    def fileno(self) -> int:
        return int(self.real.fileno())

    def close(self) -> None:
        self.real.close()


def test_a_write_that_fails_half_way_leaves_every_line_once_and_whole(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    journal._fh = _FlakyFile(journal._fh, [10, OSError(28, "No space left on device")])
    with pytest.raises(OSError, match="No space"):
        journal.append(_line(1))  # 10 bytes reached the file, then the disk was full
    journal.close()  # the disk has room again: the rest is written, not the whole line again
    data = (journal.run_dir / "events.jsonl").read_bytes()
    assert data.count(b"\n") == 1 and data.endswith(b"\n") and json.loads(data) == _line(1)
    assert journal.synced_offset == len(data)  # what a power loss would keep: the whole line


async def test_after_one_failed_write_later_events_still_reach_the_os_before_the_loop_waits(
    tmp_path: Path,
) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    journal._fh = _FlakyFile(journal._fh, [OSError(4, "Interrupted system call")])
    journal.append(_line(0))
    await asyncio.sleep(0)  # the queued write fails once; the error waits for the next call
    with pytest.raises(OSError, match="Interrupted"):
        journal.append(_line(1))
    journal.append(_line(2))
    await asyncio.sleep(0.001)  # the loop waits: lines 0 and 2 are in the OS first
    assert _os_lines(journal) == 2
    journal.close()


def test_without_a_running_loop_each_event_is_written_at_once(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    journal.append(_line(1))
    assert _os_lines(journal) == 1
    journal.close()


async def test_an_out_of_process_runner_gets_the_journal_written_before_each_call(tmp_path: Path) -> None:
    seen: list[int] = []

    class Outside:
        """A runner whose calls leave the process (it does not say `in_process`)."""

        async def run(self, request: Any) -> Any:
            seen.append(_os_lines(journal))  # what the outside could know of the run at the call
            from tftui.agent_types import AgentResult

            return AgentResult(output="ok")

    flow = Flow.model_validate({"name": "x", "phases": [{"id": "a", "task": "A"}, {"id": "b", "task": "B",
                                                                                  "dependsOn": ["a"]}]})
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    await run_flow(flow, runner=Outside(), clock=InstantClock(), journal=journal)
    journal.close()
    rows = (journal.run_dir / "events.jsonl").read_bytes().splitlines()
    starts = [i + 1 for i, row in enumerate(rows) if b'"attempt_started"' in row]
    assert seen == starts  # each call began with its own start, and everything before it, in the OS


class _RecordingFile(_FlakyFile):
    """`_FlakyFile` that also keeps the data of each write call."""

    def __init__(self, real: Any, script: list[int | OSError]) -> None:
        super().__init__(real, script)
        self.calls: list[bytes] = []

    def write(self, data: bytes) -> int | None:
        self.calls.append(bytes(data))
        return super().write(data)


async def test_a_large_batch_reaches_the_os_in_writes_of_whole_lines(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    journal._fh = fh = _RecordingFile(journal._fh, [])
    rows = [{"kind": "e", "i": i, "text": "y" * 1000} for i in range(3 * jmod.WRITE_CHUNK // 1000)]
    for row in rows:
        journal.append(row)
    await asyncio.sleep(0.001)  # one loop turn's batch, larger than WRITE_CHUNK
    assert len(fh.calls) >= 3 and journal.writes == len(fh.calls)
    assert all(call.endswith(b"\n") and len(call) <= jmod.WRITE_CHUNK for call in fh.calls)
    data = (journal.run_dir / "events.jsonl").read_bytes()
    assert [json.loads(line) for line in data.splitlines()] == rows
    journal.close()


async def test_an_interrupt_between_two_chunks_of_a_batch_loses_no_line(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A second Ctrl+C raises KeyboardInterrupt at any bytecode: landing while the batch's next
    chunk is cut and encoded (not in a write), the lines not yet handed over go back to the queue
    and reach the file, in order, before anything journaled after (review finding)."""
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    rows = [{"kind": "e", "i": i, "text": "y" * 1000} for i in range(3 * jmod.WRITE_CHUNK // 1000)]
    for row in rows:
        journal.append(row)  # queued: the loop has not turned since
    real, calls = jmod.bisect_right, []

    def interrupted_on_the_second_chunk(*args: Any) -> int:
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(jmod, "bisect_right", interrupted_on_the_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        journal.flush()
    monkeypatch.setattr(jmod, "bisect_right", real)
    journal.append({"kind": "e", "i": "after"})  # what teardown journals
    journal.close()
    data = (journal.run_dir / "events.jsonl").read_bytes()
    assert [json.loads(line) for line in data.splitlines()] == [*rows, {"kind": "e", "i": "after"}]


async def test_a_large_batch_that_fails_half_way_keeps_its_lines_in_order(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, flow_name="x", group_commit_s=None)
    # the first chunk goes through, the second is cut after 10 bytes, then the disk is full
    journal._fh = _FlakyFile(journal._fh, [None, 10, OSError(28, "No space left on device")])  # type: ignore[list-item]
    rows = [{"kind": "e", "i": i, "text": "y" * 1000} for i in range(3 * jmod.WRITE_CHUNK // 1000)]
    for row in rows:
        journal.append(row)
    await asyncio.sleep(0)  # the queued write fails; the error waits for the next call
    with pytest.raises(OSError, match="No space"):
        journal.append({"kind": "e", "i": "late"})
    journal.append({"kind": "e", "i": "later"})
    journal.close()  # room again: everything once, in order, whole
    data = (journal.run_dir / "events.jsonl").read_bytes()
    assert [json.loads(line) for line in data.splitlines()] == [*rows, {"kind": "e", "i": "later"}]


class _RecordingStop:
    """The journal's stop event with its waits recorded; a wait returns at once (not stopped)."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.stopped = False

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        return self.stopped

    def set(self) -> None:
        self.stopped = True


def test_the_group_commit_timer_waits_at_most_the_window_since_the_last_fsync(tmp_path: Path) -> None:
    # what a power loss can cost (docs/scheduling.md §4.4) is bounded by this wait, not by a clock
    journal = Journal.create(tmp_path, flow_name="x")
    journal._stop = stop = _RecordingStop()  # type: ignore[assignment]
    journal._last_sync = time.monotonic()  # an fsync just happened: the next may wait the whole window
    journal.append(_line(1))
    deadline = time.monotonic() + 30  # a safety net against a hung test, not a timing assertion
    while journal.syncs == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    journal.close()
    assert journal.syncs == 1 and stop.waits
    assert all(0 < wait <= jmod.GROUP_COMMIT_S for wait in stop.waits)


def test_the_documented_window_is_the_journals() -> None:
    import re

    docs = (Path(__file__).resolve().parents[2] / "docs" / "scheduling.md").read_text(encoding="utf-8")
    windows = {int(ms) for ms in re.findall(r"at most one fsync every (\d+) ms", docs)}
    lost = {int(ms) for ms in re.findall(r"the events of the last (\d+) ms", docs)}
    assert windows == lost == {round(jmod.GROUP_COMMIT_S * 1000)}
