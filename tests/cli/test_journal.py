"""Unit tests of the run journal (plain dict events; no engine needed)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tftui.engine import journal as jmod
from tftui.engine.journal import (
    Journal,
    find_run,
    is_run_id,
    list_runs,
    new_run_id,
    read_journal,
    runs_root,
)
from tftui.redaction import mask, redact


def _ev(kind: str, seq: int, **extra: object) -> dict:
    return {"kind": kind, "seq": seq, "ts": 1.0, **extra}


def test_run_ids_sort_by_time() -> None:
    base = datetime(2026, 11, 30, 4, 15, 0, tzinfo=UTC)
    ids = [new_run_id(base + timedelta(seconds=s)) for s in (0, 1, 59, 3600, 86400)]
    assert ids == sorted(ids)
    assert ids[0].startswith("20261130-041500-")
    assert all(is_run_id(i) for i in ids)
    assert not is_run_id("latest")


def test_two_runs_started_in_one_second_with_the_same_suffix_get_two_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suffixes = iter(["abcd", "abcd", "abcd", "ef01"])
    monkeypatch.setattr(jmod.secrets, "token_hex", lambda _n: next(suffixes))
    moment = datetime(2026, 12, 1, 23, 36, 50, tzinfo=UTC)
    with Journal.create(tmp_path, flow_name="x", now=moment) as first:
        pass
    with Journal.create(tmp_path, flow_name="x", now=moment) as second:
        pass
    assert (first.run_id, second.run_id) == ("20261201-233650-abcd", "20261201-233650-ef01")
    assert json.loads((second.run_dir / "meta.json").read_text())["runId"] == second.run_id
    with pytest.raises(FileExistsError):  # an id the caller chose is never silently replaced
        Journal.create(tmp_path, flow_name="x", run_id=first.run_id)


def test_create_writes_meta_flow_copy_and_events(tmp_path: Path) -> None:
    flow = tmp_path / "f.json"
    flow.write_text('{"name": "x", "phases": []}')
    with Journal.create(
        tmp_path / "runs", flow_name="x", flow_path=flow, flow_text=flow.read_text(), args={"topic": "t"}
    ) as j:
        j.append(_ev("run_started", 1))
        j.append(_ev("phase_finished", 2, phase_id="a", status="done", output="héllo"))
        run_dir = j.run_dir
    events, meta, warnings = read_journal(run_dir)
    assert warnings == []
    assert [e["kind"] for e in events] == ["run_started", "phase_finished"]
    assert events[1]["output"] == "héllo"
    assert meta["runId"] == run_dir.name and meta["flowName"] == "x"
    assert meta["flowPath"] == str(flow.resolve())
    assert meta["args"] == {"topic": "t"}
    assert (run_dir / "flow.json").read_text() == flow.read_text()


def test_each_event_reaches_the_os_before_sync(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x")
    j.append(_ev("a", 1))
    # Another reader (another process) sees the line at once: it was flushed, not buffered.
    assert (j.run_dir / "events.jsonl").read_text().count("\n") == 1
    j.close()


def test_sync_is_grouped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = os.fsync
    j = Journal.create(tmp_path, flow_name="x", group_commit_s=None)  # explicit syncs only (no timer)
    monkeypatch.setattr(jmod.os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    for i in range(50):
        j.append(_ev("e", i))
    assert calls == []  # never one fsync per event
    j.sync()
    assert len(calls) == 1
    j.sync()  # nothing new: no fsync
    assert len(calls) == 1
    j.append(_ev("e", 51))
    j.close()
    assert len(calls) == 2


def test_torn_last_line_is_tolerated_and_reported(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x")
    j.append(_ev("a", 1))
    j.append(_ev("b", 2))
    j.close()
    path = j.run_dir / "events.jsonl"
    with open(path, "ab") as fh:
        fh.write(b'{"kind": "c", "se')
    events, _meta, warnings = read_journal(j.run_dir)
    assert [e["kind"] for e in events] == ["a", "b"]
    assert len(warnings) == 1 and "torn last line" in warnings[0]


def test_bad_middle_line_is_skipped_and_reported(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.mkdir()
    (run / "events.jsonl").write_text('{"kind":"a"}\nnot json\n{"kind":"b"}\n')
    events, meta, warnings = read_journal(run)
    assert [e["kind"] for e in events] == ["a", "b"]
    assert meta == {}
    assert any(":2: not a JSON object" in w for w in warnings)
    assert any("meta.json" in w for w in warnings)


def test_reopen_cuts_torn_tail_and_keeps_appending(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x")
    j.append(_ev("a", 1))
    j.close()
    with open(j.run_dir / "events.jsonl", "ab") as fh:
        fh.write(b'{"kind": "tor')
    j2 = Journal.reopen(j.run_dir)
    j2.append(_ev("b", 2))
    j2.close()
    events, meta, warnings = read_journal(j.run_dir)
    assert warnings == []
    assert [e["kind"] for e in events] == ["a", "b"]
    assert len(meta["resumes"]) == 1


def test_reopen_keeps_complete_line_missing_newline(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.mkdir()
    (run / "events.jsonl").write_text('{"kind":"a"}')
    j = Journal.reopen(run)
    j.append(_ev("b", 2))
    j.close()
    events, _meta, _w = read_journal(run)
    assert [e["kind"] for e in events] == ["a", "b"]


def test_secrets_are_redacted(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x", args={"apiKey": "sk-abcdefghijklmnopqrstuv", "topic": "t"})
    j.append(
        _ev(
            "agent_returned",
            1,
            error="401: Authorization: Bearer abcdefgh12345678 rejected",
            extra={"headers": {"Authorization": "Bearer zzz", "X-Api-Key": "k1"}, "api_key": "k2"},
            usage={"input": 3, "output": 4},
        )
    )
    j.close()
    text = (j.run_dir / "events.jsonl").read_text() + (j.run_dir / "meta.json").read_text()
    for secret in ("sk-abcdefghijklmnopqrstuv", "abcdefgh12345678", "zzz", "k1", "k2"):
        assert secret not in text
    events, meta, _ = read_journal(j.run_dir)
    assert meta["args"] == {"apiKey": mask("sk-abcdefghijklmnopqrstuv"), "topic": "t"}
    assert events[0]["usage"] == {"input": 3, "output": 4}  # token counts are not secrets


def test_redact_leaves_ordinary_values() -> None:
    value = {
        "tokens": 5,
        "max_tokens": 9,
        "output": "a key insight; Authorization: required; the bearer of bad news",
        "contextTokens": 1,
        "secretive": "x",
        "api_key": None,
    }
    assert redact(value) == value


def test_runs_root_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flow = tmp_path / "flows" / "f.json"
    monkeypatch.delenv("TFTUI_RUNS_DIR", raising=False)
    assert runs_root(flow) == (tmp_path / "flows" / ".tftui" / "runs").resolve()
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(tmp_path / "env"))
    assert runs_root(flow) == tmp_path / "env"
    assert runs_root(flow, tmp_path / "flag") == tmp_path / "flag"


def test_list_and_find_runs(tmp_path: Path) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    ids = []
    for i in (2, 0, 1):
        j = Journal.create(tmp_path, flow_name=f"f{i}", now=t0 + timedelta(minutes=i))
        j.close()
        ids.append(j.run_id)
    (tmp_path / "not-a-run").mkdir()
    runs = list_runs(tmp_path)
    assert [r.meta["flowName"] for r in runs] == ["f0", "f1", "f2"]
    assert find_run(tmp_path, ids[0]) == tmp_path / ids[0]
    assert find_run(tmp_path, ids[0][:-2]) == tmp_path / ids[0]
    assert find_run(tmp_path, "2026") is None  # ambiguous prefix
    assert find_run(tmp_path, "nope") is None
    assert list_runs(tmp_path / "missing") == []


def test_journal_lines_are_compact_json(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x")
    j.append(_ev("a", 1, text="line1\nline2"))
    j.close()
    lines = (j.run_dir / "events.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["text"] == "line1\nline2"


def test_a_journal_has_one_writer(tmp_path: Path) -> None:
    j = Journal.create(tmp_path, flow_name="x")
    with pytest.raises(jmod.JournalBusy):
        Journal.reopen(j.run_dir)
    j.close()
    Journal.reopen(j.run_dir).close()  # free again once the writer is gone
