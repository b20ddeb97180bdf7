"""Malformed journals and bundles are clear errors with exit 2, never tracebacks (issue 17,
fault 8; docs/inputs.md §3): in `runs`, `trace`, `replay` and `run --resume`; zip bombs are
refused by a total cap and an entry cap; only one process resumes a run, and the loser is told
who holds it; a run whose events.jsonl is gone is not silently re-run."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


@pytest.fixture
def recorded(tftui, tmp_path: Path) -> Path:
    """A completed run of sample_flows/validate.json (flow and replies copied beside it)."""
    for name in ("validate.json", "validate.replies.json"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    done = tftui("run", str(tmp_path / "validate.json"))
    assert done.code == 0, done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


def _write(run_dir: Path, rows: list[dict], *, raw_line: str | None = None) -> None:
    lines = [json.dumps(r) for r in rows]
    if raw_line is not None:
        lines.insert(3, raw_line)
    (run_dir / "events.jsonl").write_text("\n".join(lines) + "\n")


def _seq_x(rows: list[dict]) -> None:
    rows[2]["seq"] = "x"


def _unknown_status(rows: list[dict]) -> None:
    next(r for r in rows if r["kind"] == "phase_finished")["status"] = "weird"


def _object_phase_id(rows: list[dict]) -> None:
    rows[1]["phase_id"] = {"a": 1}


def _infinite_duration(rows: list[dict]) -> None:
    next(r for r in rows if "duration_ms" in r)["duration_ms"] = float("inf")  # json.dumps writes Infinity


def _half_attempt(rows: list[dict]) -> None:
    next(r for r in rows if r["kind"] == "attempt_started")["attempt"] = 1.5


CORRUPTIONS: dict[str, tuple[Callable[[list[dict]], None] | None, str | None, str]] = {
    "seq is a string": (_seq_x, None, "field 'seq' must be a number, got 'x'"),
    "half an attempt": (_half_attempt, None, "events.jsonl:3: event 3 ('attempt_started') could not be decoded: "
                        "field 'attempt' must be a whole number, got 1.5"),
    "unknown status": (_unknown_status, None, "unknown status 'weird'"),
    "object as phase id": (_object_phase_id, None, "field 'phase_id' must be a string"),
    "Infinity as a number": (_infinite_duration, None, "not a JSON object"),
    "deep JSON line": (None, "[" * 100_000 + "]" * 100_000, ":4: not a JSON object"),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_a_damaged_journal_is_exit_2_everywhere(tftui, recorded: Path, case: str) -> None:
    change, raw_line, expected = CORRUPTIONS[case]
    rows = _rows(recorded)
    if change is not None:
        change(rows)
    _write(recorded, rows, raw_line=raw_line)
    for argv in (("runs",), ("trace", str(recorded)), ("replay", str(recorded), "--print"),
                 ("run", "--resume", recorded.name, "--runs-dir", str(recorded.parent))):
        done = tftui(*argv)
        assert done.code == 2, (argv, done.stderr)
        assert "Traceback" not in done.stderr
        assert "damaged journal" in done.stderr and expected in done.stderr, (argv, done.stderr)


def test_runs_still_lists_the_sound_runs_beside_a_damaged_one(tftui, recorded: Path, tmp_path: Path) -> None:
    again = tftui("run", str(tmp_path / "validate.json"))
    assert again.code == 0
    rows = _rows(recorded)
    _seq_x(rows)
    _write(recorded, rows)
    listed = tftui("runs", "--json")
    assert listed.code == 2
    statuses = sorted(e["status"] for e in listed.json())
    assert statuses == ["completed", "damaged"]


def test_a_missing_events_file_is_an_error_not_a_rerun(tftui, recorded: Path) -> None:
    (recorded / "events.jsonl").unlink()
    done = tftui("run", "--resume", recorded.name, "--runs-dir", str(recorded.parent))
    assert done.code == 2, done.stderr
    assert "events.jsonl" in done.stderr
    assert not (recorded / "events.jsonl").exists()  # nothing was re-run into a fresh journal


# QA: `tftui trace` of a directory without events.jsonl said "damaged journal: …: cannot read
# (No such file or directory)"; a missing journal is no journal, and what a run directory holds.
def test_a_directory_without_a_journal_is_not_called_damaged(tftui, recorded: Path) -> None:
    (recorded / "events.jsonl").unlink()
    said = (f"{recorded}: not a run directory (no events.jsonl: there is no journal here) — a run directory "
            "(.tftui/runs/<run-id>/) holds the events.jsonl and meta.json that `tftui run` writes")
    for argv in (("trace", str(recorded)), ("replay", str(recorded), "--print"),
                 ("run", "--resume", recorded.name, "--runs-dir", str(recorded.parent))):
        done = tftui(*argv)
        assert done.code == 2, (argv, done.stderr)
        assert said in done.stderr and "damaged" not in done.stderr, (argv, done.stderr)


def test_a_second_resume_is_refused_naming_the_holder(tftui, recorded: Path) -> None:
    from tftui.engine.journal import Journal

    rows = _rows(recorded)
    _write(recorded, rows[:-2])  # interrupted before its end: resumable
    holder = Journal.reopen(recorded)  # this process resumes it and holds the journal
    try:
        meta_before = json.loads((recorded / "meta.json").read_text())
        assert meta_before["pid"] == os.getpid()
        done = tftui("run", "--resume", recorded.name, "--runs-dir", str(recorded.parent), subprocess=True)
        assert done.code == 2, done.stderr
        assert f"pid {os.getpid()}" in done.stderr and "Traceback" not in done.stderr
        # the loser never named itself in meta.json: `tftui runs` still sees the live holder
        assert json.loads((recorded / "meta.json").read_text())["pid"] == os.getpid()
        assert tftui("runs", "--json").json()[0]["status"] == "running"
    finally:
        holder.close()


# -- bundles ----------------------------------------------------------------------------------------


@pytest.fixture
def bundle(tftui, recorded: Path, tmp_path: Path) -> Path:
    out = tmp_path / "repro.tftui.zip"
    assert tftui("replay", str(recorded), "--export", str(out)).code == 0
    return out


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _rewrite(path: Path, members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> None:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _set_flag_bits(path: Path, name: str, flag: int) -> None:
    """Mark one member encrypted in both its local and central headers (the bytes stay as they are)."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    # (signature, offset of the flag bits, offset of the name length, offset of the name)
    for signature, flag_at, length_at, name_at in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
        at = data.find(signature)
        while at != -1:
            length = int.from_bytes(data[at + length_at:at + length_at + 2], "little")
            if data[at + name_at:at + name_at + length] == encoded:
                data[at + flag_at] |= flag
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))


def _replay(tftui, path: Path):  # noqa: ANN202
    return tftui("replay", str(path), "--print")


def test_a_deep_json_line_in_a_bundle_is_exit_2(tftui, bundle: Path) -> None:
    members = _members(bundle)
    members["events.jsonl"] = members["events.jsonl"] + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    _rewrite(bundle, members)
    done = _replay(tftui, bundle)
    assert done.code == 2 and "damaged bundle" in done.stderr and "Traceback" not in done.stderr


def test_wrongly_typed_events_in_a_bundle_are_exit_2(tftui, bundle: Path) -> None:
    members = _members(bundle)
    rows = [json.loads(line) for line in members["events.jsonl"].decode().splitlines()]
    rows[1]["phase_id"] = {"a": 1}
    members["events.jsonl"] = ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
    _rewrite(bundle, members)
    for argv in (("replay", str(bundle), "--print"), ("run", str(bundle.parent / "validate.json"), "--from", str(bundle))):
        done = tftui(*argv)
        assert done.code == 2, (argv, done.stderr)
        assert "field 'phase_id' must be a string" in done.stderr and "Traceback" not in done.stderr


def test_an_encrypted_member_is_exit_2(tftui, bundle: Path) -> None:
    _set_flag_bits(bundle, "events.jsonl", 0x1)
    done = _replay(tftui, bundle)
    assert done.code == 2, done.stderr
    assert "encrypted" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("compression", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_another_compression_method_is_exit_2(tftui, bundle: Path, compression: int) -> None:
    _rewrite(bundle, _members(bundle), compression=compression)
    done = _replay(tftui, bundle)
    assert done.code == 2, done.stderr
    assert "compression method" in done.stderr and "Traceback" not in done.stderr


def test_a_zip_bomb_is_refused_by_the_total_cap(tftui, bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tftui.bundle as bundle_module

    members = _members(bundle)
    members["trace.json"] = b" " * 3_000_000  # compresses to a few KB
    members["answers.replies.json"] = b" " * 3_000_000
    _rewrite(bundle, members)
    monkeypatch.setattr(bundle_module, "MAX_MEMBER_BYTES", 4_000_000)
    monkeypatch.setattr(bundle_module, "MAX_TOTAL_BYTES", 5_000_000)  # each member fits, both do not
    done = tftui("run", str(bundle.parent / "validate.json"), "--from", str(bundle))
    assert done.code == 2, done.stderr
    assert "too large" in done.stderr and "Traceback" not in done.stderr


def test_a_bundle_with_too_many_entries_is_refused(tftui, bundle: Path) -> None:
    from tftui.bundle import MAX_ENTRIES

    members = _members(bundle)
    members.update({f"junk/{i}": b"" for i in range(MAX_ENTRIES + 1)})
    _rewrite(bundle, members)
    done = _replay(tftui, bundle)
    assert done.code == 2 and "entries" in done.stderr


def test_a_whole_float_from_another_writer_is_the_same_count(tftui, recorded: Path) -> None:
    """`"attempt": 0.0` is the number 0 (JSON has one number type): read as the int it is."""
    before = tftui("replay", str(recorded), "--print")
    rows = _rows(recorded)
    for row in rows:
        for key in ("attempt", "seq"):
            if type(row.get(key)) is int:
                row[key] = float(row[key])
    _write(recorded, rows)
    assert '"seq": 1.0' in (recorded / "events.jsonl").read_text()
    after = tftui("replay", str(recorded), "--print")
    assert after.code == 0 and after.stdout == before.stdout, after.stderr
