"""Append-only run journal: `<root>/<run-id>/events.jsonl` + `meta.json` + `flow.json`.

Why this shape:
- One JSON object per line. Lines are collected and handed to the OS in one write per batch
  (per `WRITE_CHUNK` characters of whole lines for a big batch; docs/scheduling.md §4.4): before the event loop can next wait (the flush is queued on the
  loop with the batch's first line, so it runs before anything scheduled after that event),
  before an agent call that leaves the process (`flush`, called by the run), at every `sync`
  and `close`, and once `MAX_BUFFERED` characters are held. So a killed process loses nothing
  whose effect anything outside could have seen (the kernel has the bytes), and a journal
  of a run of instant calls costs one write per loop turn instead of one per event.
- fsync is a group commit (docs/scheduling.md §4.4): a background timer makes everything
  written durable at most once every `GROUP_COMMIT_S` (50 ms) while events keep coming,
  and `sync()` does it at once; the engine calls `sync()` only before and after a phase
  with side effects, at pauses and at the end. A chain of 16,000 phases no longer pays one
  disk flush per phase, and the fsync itself runs off the event loop's thread. What a power
  loss can cost is bounded by the timer: the idempotent calls of the last 50 ms.
- Reading tolerates a torn last line (a crash mid-write) and reports it as a warning;
  a bad line elsewhere is skipped and reported too.
- Secrets never belong in a journal: values under keys such as `api_key` or
  `authorization` are replaced before anything is written. Run args are always
  redacted structurally; any other line is serialized first and only redacted (and
  re-serialized) when a cheap substring pre-check says it might hold a secret — the
  full walk cost ~70% of `append` when run on every event.
- Serialization uses one prebuilt compact C encoder (no per-call encoder construction,
  no deep copies: `event_to_json` shares the event's containers), once per event: `tap`
  hands the event on as the line holds it (the trace of a fresh run is built from that, not
  by reading the file back).

The journal stores plain JSON dicts; `tftui.engine.events.event_from_json` turns them
back into events (`decode_events`).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import threading
import time
from asyncio import AbstractEventLoop, _get_running_loop
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from threading import get_ident
from typing import Any

from tftui.engine.jsonl import encode_event, encode_line
from tftui.lang import strict_json
from tftui.lang.values import JSONObject
from tftui.redaction import might_contain_secret, redact

__all__ = [
    "Journal", "JournalBusy", "JournalDamaged", "JournalMissing", "no_journal", "encode_line", "read_journal", "load_events", "decode_events",
    "list_runs", "find_run",
]

EVENTS_FILE = "events.jsonl"
META_FILE = "meta.json"
FLOW_FILE = "flow.json"
RUNS_SUBDIR = Path(".tftui") / "runs"
ENV_RUNS_DIR = "TFTUI_RUNS_DIR"

# At most one timed fsync per this many seconds while a run appends (docs/scheduling.md §4.4).
GROUP_COMMIT_S = 0.05
# Lines held before they are written at once, without waiting for the loop (docs/scheduling.md §4.4).
MAX_BUFFERED = 1 << 20
# A batch is handed to the OS in writes of whole lines of at most this many characters (one
# line may be longer): measured on ext4, a 600 KB batch (a 1,000-item map's loop turn) cost
# 0.3-0.35 ms of CPU in 64 KiB writes against 0.45-1.8 ms in one write (the kernel's copy into
# the page cache and the process's own fresh buffers, which larger joins take from mmap).
WRITE_CHUNK = 1 << 16

_RUN_ID_RE = re.compile(r"^\d{8}-\d{6}-[0-9a-z]{4,}$")

# ── run ids and locations ────────────────────────────────────────────────────────────


def new_run_id(now: datetime | None = None) -> str:
    """A run id that sorts by start time: `YYYYMMDD-HHMMSS-xxxx` (UTC, random suffix)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def _claim_run_dir(root: Path, run_id: str | None, moment: datetime) -> tuple[str, Path]:
    """Create the new run's directory. A generated id that is taken (two runs started in the
    same second drew the same 4-hex suffix: runs started in a loop by CI meet it) draws again;
    an id the caller chose must be new (FileExistsError)."""
    root.mkdir(parents=True, exist_ok=True)
    for _ in range(64):
        rid = run_id or new_run_id(moment)
        try:
            (root / rid).mkdir()
        except FileExistsError:
            if run_id is not None:
                raise
            continue
        return rid, root / rid
    raise FileExistsError(f"{root}: no free run id for {moment:%Y%m%d-%H%M%S}")


def is_run_id(text: str) -> bool:
    return bool(_RUN_ID_RE.match(text))


def runs_root(
    flow_path: str | os.PathLike[str] | None = None, override: str | os.PathLike[str] | None = None
) -> Path:
    """Where runs live: `--runs-dir` > env TFTUI_RUNS_DIR > `<flow dir>/.tftui/runs` > `./.tftui/runs`."""
    if override:
        return Path(override)
    env = os.environ.get(ENV_RUNS_DIR)
    if env:
        return Path(env)
    if flow_path is not None:
        return Path(flow_path).resolve().parent / RUNS_SUBDIR
    return Path.cwd() / RUNS_SUBDIR


def default_roots(cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where to look for runs when no flow or directory is named: env TFTUI_RUNS_DIR, else
    `./.tftui/runs` plus `./*/.tftui/runs` (runs live beside their flows, e.g. sample_flows/)."""
    env = os.environ.get(ENV_RUNS_DIR)
    if env:
        return [Path(env)]
    base = Path(cwd) if cwd is not None else Path.cwd()
    roots = [base / RUNS_SUBDIR]
    try:
        children = sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        children = []
    roots += [child / RUNS_SUBDIR for child in children if (child / RUNS_SUBDIR).is_dir()]
    return roots


# ── writing ──────────────────────────────────────────────────────────────────────────


def _atomic_write(path: Path, text: str) -> None:
    """Write via a temp file + rename so a crash never leaves half a meta.json.

    `text` is JSON: backslashreplace writes a lone surrogate (a flow name with half an emoji) as
    its JSON escape, as `append` does.
    """
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", errors="backslashreplace", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the data files are synced anyway
    finally:
        os.close(fd)


class JournalBusy(Exception):
    """Another process holds the journal open for writing (a run that is still going)."""


def _lock(fh: Any, path: Path) -> None:
    """An exclusive advisory lock, so two processes never append to one journal (e.g. a double
    --resume). The loser is told who holds it: the process meta.json names (docs/inputs.md §3)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no locking, as before
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        fh.close()
        meta = read_meta(path.parent) or {}
        pid, host = meta.get("pid"), meta.get("host")
        holder = f" (pid {pid}{f' on {host}' if isinstance(host, str) else ''})" if isinstance(pid, int) else ""
        raise JournalBusy(f"{path} is being written by another tftui process{holder}") from exc


class Journal:
    """An open run journal. `append` queues one event's line; `flush` hands the queued lines
    to the OS (one write, or one per `WRITE_CHUNK` of whole lines), which happens on its own before the event loop can next wait
    (docs/scheduling.md §4.4); a timer fsyncs what was written within `group_commit_s`
    (None: only `sync` does); `sync` writes and fsyncs at once.

    `synced_offset` is the size of the file the last fsync made durable (what a power loss
    would leave, at worst); `writes` counts the write calls made to the OS."""

    def __init__(
        self, run_dir: Path, run_id: str, meta: dict[str, Any], *, group_commit_s: float | None = GROUP_COMMIT_S,
        locked: Any = None,
    ) -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self.meta = meta
        self.events_path = run_dir / EVENTS_FILE
        if locked is not None:  # `reopen` took the lock before repairing the file and naming itself in meta
            self._fh = locked
        else:
            # Unbuffered: each append is one write(2) straight to the OS, no separate flush call.
            self._fh = open(self.events_path, "ab", buffering=0)  # noqa: SIM115 - lives as long as the journal
            _lock(self._fh, self.events_path)
        self._written = self.synced_offset = self._fh.seek(0, os.SEEK_END)
        self._pending = False  # bytes written since the last fsync (a timer is armed for them)
        self._sync_lock = threading.Lock()  # the timer thread and `sync`/`close` never fsync a closed file
        self._arm_lock = threading.Lock()
        self._armed = False  # a timer thread is waiting to fsync
        self._stop = threading.Event()
        self._interval = group_commit_s
        self._last_sync = time.monotonic()
        self.appended = 0  # lines appended (queued or written)
        self.syncs = 0
        self.writes = 0
        self._queue: list[str] = []  # lines not yet handed to the OS
        self._queued = 0  # their characters
        self._unwritten = b""  # bytes a failed write did not hand to the OS (written first by the next flush)
        self._flush_on: AbstractEventLoop | None = None  # the loop a `_flush_soon` waits on
        self._flush_thread = 0  # the thread that loop runs on (`threading.get_ident`)
        self._write_error: OSError | None = None  # a queued flush that failed: raised by the next call
        # Called after each append with (event, the redacted JSON object or None): what a reader
        # of events.jsonl would see, without reading it (the live trace, tftui.run_service).
        self.tap: Callable[[Any, JSONObject | None], None] | None = None

    # -- construction --------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: str | os.PathLike[str],
        *,
        flow_name: str,
        flow_path: str | os.PathLike[str] | None = None,
        flow_text: str | None = None,
        args: dict[str, Any] | None = None,
        run_id: str | None = None,
        now: datetime | None = None,
        group_commit_s: float | None = GROUP_COMMIT_S,
    ) -> Journal:
        """Start a new run directory under `root` (created if needed)."""
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        rid, run_dir = _claim_run_dir(Path(root), run_id, moment)
        meta: dict[str, Any] = {
            "schemaVersion": 1,
            "runId": rid,
            "flowName": flow_name,
            "flowPath": str(Path(flow_path).resolve()) if flow_path is not None else None,
            "started": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "args": redact(args or {}),
            "resumes": [],
            # Lets `tftui runs` tell a live run from a killed one (same host, process alive).
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        if flow_text is not None:
            _atomic_write(run_dir / FLOW_FILE, flow_text)
        _atomic_write(run_dir / META_FILE, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
        journal = cls(run_dir, rid, meta, group_commit_s=group_commit_s)
        _fsync_dir(run_dir)
        return journal

    @classmethod
    def reopen(
        cls, run_dir: str | os.PathLike[str], *, now: datetime | None = None,
        group_commit_s: float | None = GROUP_COMMIT_S,
    ) -> Journal:
        """Reopen an existing run for appending (resume). A torn tail is cut so the next line is clean.

        The lock is taken first and held from then on: a second resume is refused before this
        one repairs the file or writes its pid into meta.json, so meta never names the loser."""
        path = Path(run_dir)
        events_path = path / EVENTS_FILE
        if not events_path.is_file():  # appending would start an empty journal: a silent re-run
            raise JournalMissing(no_journal(path))
        fh = open(events_path, "ab", buffering=0)  # noqa: SIM115 - handed to the Journal below
        _lock(fh, events_path)  # refuse before touching a journal someone is writing
        try:
            return cls._repair_and_claim(path, fh, now=now, group_commit_s=group_commit_s)
        except BaseException:
            fh.close()
            raise

    @classmethod
    def _repair_and_claim(
        cls, path: Path, locked: Any, *, now: datetime | None, group_commit_s: float | None
    ) -> Journal:
        events_path = path / EVENTS_FILE
        meta = read_meta(path) or {"schemaVersion": 1, "runId": path.name, "resumes": []}
        torn = _torn_tail_length(events_path)
        if torn:
            # The half-written line is unreadable anyway; appending after it would glue
            # the next event onto it and corrupt a line in the middle of the file.
            with open(events_path, "r+b") as fh:
                fh.truncate(events_path.stat().st_size - torn)
                fh.flush()
                os.fsync(fh.fileno())
        _end_with_newline(events_path)
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        resumes = meta.setdefault("resumes", [])
        if isinstance(resumes, list):
            resumes.append(moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"))
        meta["pid"] = os.getpid()
        meta["host"] = socket.gethostname()
        _atomic_write(path / META_FILE, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
        return cls(path, str(meta.get("runId") or path.name), meta, group_commit_s=group_commit_s, locked=locked)

    # -- writing ---------------------------------------------------------------------

    def update_meta(self, **fields: Any) -> None:
        """Add fields to meta.json (rewritten atomically), e.g. where a seeded journal came from."""
        self.meta.update(fields)
        _atomic_write(self.run_dir / META_FILE, json.dumps(self.meta, ensure_ascii=False, indent=2) + "\n")

    def append(self, event: Any) -> None:
        """Serialize one event (an engine Event or a plain dict) and queue its line for the OS
        (`queue_line`), then hand it to `tap` (if set) as the journal holds it."""
        line, redacted = encode_event(event)
        self.queue_line(line)
        if self.tap is not None:
            self.tap(event, redacted)

    def copy_line(self, row: JSONObject, text: str) -> None:
        """Append a line read from another journal (`text`, without its newline; `row`, its JSON)
        as `append(row)` does, without encoding it again unless that could change it: a line
        that may hold a secret goes through `append` (redaction), and so does a run_started
        (its args are masked structurally); any other line is written as it is."""
        if row.get("kind") == "run_started" or might_contain_secret(text):
            self.append(row)
            return
        self.queue_line(text + "\n")
        if self.tap is not None:
            self.tap(row, None)

    def queue_line(self, line: str) -> None:
        """Queue one journal line (`encode_line`: JSON text and its newline) for the OS; a batch
        is encoded to UTF-8 once, when it is written. The first line of a batch queues a
        `flush` on the running event loop, so the batch is written before the loop can next
        wait (docs/scheduling.md §4.4); with no loop running, or `MAX_BUFFERED` characters
        held, it is written at once."""
        if self._write_error is not None:
            self._raise_write_error()
        if self._fh.closed:
            raise ValueError(f"{self.events_path}: the journal is closed")
        self._queue.append(line)
        self.appended += 1
        self._queued += len(line)
        pending = self._flush_on
        # A flush already waits on the loop this thread is running (a thread runs one loop at a
        # time, and a stopped loop is not running): this line goes with it. Asked this way, not
        # with `_get_running_loop`, which in CPython 3.11 makes a getpid system call: one per
        # event was 2,000 a 1,000-item map run.
        if pending is None or self._flush_thread != get_ident() or not pending.is_running():
            loop = _get_running_loop()
            if loop is None:  # not in a run (a tool, a test): nothing to batch with
                self.flush()
                return
            # One flush waits on this loop at a time. Asked for by the loop, not by "the queue was
            # empty": lines kept after a failed write must not stop later ones being scheduled.
            if pending is not loop:
                self._flush_on, self._flush_thread = loop, get_ident()
                loop.call_soon(self._flush_soon)
                return
        if self._queued >= MAX_BUFFERED:
            self.flush()

    def _flush_soon(self) -> None:
        """The flush queued on the loop: an error is kept for the run's next journal call
        (an exception here would only reach the loop's exception handler)."""
        self._flush_on = None
        try:
            self.flush()
        except OSError as exc:
            self._write_error = exc

    def _raise_write_error(self) -> None:
        error, self._write_error = self._write_error, None
        if error is not None:
            raise error

    def flush(self) -> None:
        """Hand every queued line to the OS (one write per `WRITE_CHUNK` characters of whole
        lines; none if nothing is queued)."""
        queue, unwritten = self._queue, self._unwritten
        if not queue and not unwritten:
            return
        if self._queued <= WRITE_CHUNK:
            # backslashreplace: a lone surrogate in model output becomes a valid JSON escape, not a crash.
            data = "".join(queue).encode("utf-8", "backslashreplace")
            queue.clear()
            self._queued = 0
            if unwritten:
                self._unwritten = b""
                data = unwritten + data
            self.write_line(data)
            return
        lines = queue[:]
        queue.clear()
        self._queued = 0
        start = 0
        # Everything between taking the lines off the queue and handing the last chunk over sits in
        # the try: an exception anywhere (a second Ctrl+C raises KeyboardInterrupt at any bytecode,
        # in the encode of a chunk as well as in a write) puts back what was not handed over.
        try:
            ends = list(accumulate(map(len, lines)))
            while start < len(lines):
                # whole lines up to WRITE_CHUNK characters (at least one line)
                end = max(start + 1, bisect_right(ends, (ends[start - 1] if start else 0) + WRITE_CHUNK, start))
                data = "".join(lines[start:end]).encode("utf-8", "backslashreplace")
                if self._unwritten:
                    data, self._unwritten = self._unwritten + data, b""
                start = end  # from here `write_line` answers for them: in the file or kept in `_unwritten`
                self.write_line(data)
        except BaseException:
            # the lines not handed over go back ahead of any queued since, behind `_unwritten`
            rest = lines[start:]
            queue[:0] = rest
            self._queued += sum(map(len, rest))
            raise

    def write_line(self, data: bytes) -> None:
        """Write encoded journal lines (whole lines, UTF-8) to the OS, in one write call: a kill
        can tear only the last line of what is being written. When a write fails (a full disk,
        an interrupt), only the bytes the OS did not take are kept, in front of the queue, for
        the next try (`close`): what reached the file is never written twice."""
        done = 0
        try:
            while done < len(data):  # more than one call only after a short write (rare)
                written = self._fh.write(data[done:] if done else data)
                done = len(data) if written is None else done + written
        except BaseException:
            rest = data[done:]
            if rest:
                self._unwritten = rest + self._unwritten
            raise
        finally:
            self._written += done
        self.writes += 1
        if not self._pending:  # the first line since the last fsync: arm the group commit
            self._pending = True
            if self._interval is not None:
                with self._arm_lock:
                    if not self._armed:
                        self._armed = True
                        threading.Thread(target=self._timer, name="tftui-journal-sync", daemon=True).start()

    __call__ = append  # lets a journal be passed where an `on_event` callback is expected

    def _timer(self) -> None:
        """One timer thread at a time: fsync what is pending once `group_commit_s` has passed
        since the last fsync; exit when nothing more was written meanwhile."""
        interval = self._interval or 0.0
        while True:
            delay = self._last_sync + interval - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return  # closed meanwhile: `close` made everything durable
            try:
                self._fsync()  # what was written; the queue is the run thread's (flushed before any wait)
            except OSError:
                pass  # a disk that refuses fsync now: `close` (or the next sync) reports it
            with self._arm_lock:
                if not self._pending or self._fh.closed:
                    self._armed = False
                    return

    def sync(self) -> None:
        """Make every event appended so far durable: write what is queued, then one fsync
        (none if nothing new). Called from the run's thread (the timer thread fsyncs only
        what was written, `_fsync`)."""
        if self._write_error is not None:
            self._raise_write_error()
        self.flush()
        self._fsync()

    def _fsync(self) -> None:
        with self._sync_lock:
            if not self._pending or self._fh.closed:
                return
            # Cleared before the fsync: a line written while it runs arms the next timer.
            self._pending = False
            offset = self._written
            try:
                os.fsync(self._fh.fileno())
            except BaseException:
                self._pending = True
                raise
            self._last_sync = time.monotonic()
            self.synced_offset = max(self.synced_offset, offset)
            self.syncs += 1

    def close(self) -> None:
        if self._fh.closed:
            return
        self._stop.set()
        self.sync()
        with self._sync_lock:
            self._fh.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _end_with_newline(path: Path) -> None:
    """A complete last line that only lacks its newline gets one, so the next append starts a new line."""
    try:
        size = path.stat().st_size
    except OSError:
        return
    if size == 0:
        return
    with open(path, "r+b") as fh:
        fh.seek(size - 1)
        if fh.read(1) != b"\n":
            fh.write(b"\n")


def _torn_tail_length(path: Path) -> int:
    """Bytes after the last newline of `path` that do not form a complete JSON line."""
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb") as fh:
        # Scan backwards in chunks for the last newline.
        pos = size
        tail = b""
        while pos > 0:
            step = min(65536, pos)
            pos -= step
            fh.seek(pos)
            tail = fh.read(step) + tail
            idx = tail.rfind(b"\n")
            if idx != -1:
                rest = tail[idx + 1 :]
                break
        else:
            rest = tail
    if not rest:
        return 0
    if _parse_line(rest) is not None:
        return 0  # complete JSON that only lacks its newline: keep it (append adds one)
    return len(rest)


# ── reading ──────────────────────────────────────────────────────────────────────────


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    try:
        return _parse_text(raw.decode("utf-8"))
    except ValueError:  # bad UTF-8: not an event
        return None


def _parse_text(text: str) -> dict[str, Any] | None:
    try:
        value = strict_json.loads(text)
    except (ValueError, RecursionError):  # bad JSON, NaN/Infinity, nested too deep: not an event
        return None
    return value if isinstance(value, dict) else None


def read_meta(run_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    try:
        value = json.loads((Path(run_dir) / META_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_journal(run_dir: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """Events (JSON dicts, in file order), meta (`{}` if unreadable) and warnings. Never raises on bad data."""
    rows, meta, warnings, damage = _read_rows(Path(run_dir))
    return rows, meta, [*warnings, *damage]


def read_journal_lines(
    run_dir: str | os.PathLike[str],
) -> tuple[list[dict[str, Any]], list[str], dict[str, Any], list[str]]:
    """`read_journal` plus the text of each row's line as the file holds it (without the
    newline): what a seeded journal copies (`Journal.copy_line`)."""
    texts: list[str] = []
    rows, _lines, meta, warnings, damage = _read_numbered_rows(Path(run_dir), texts)
    return rows, texts, meta, [*warnings, *damage]


class JournalDamaged(ValueError):
    """A journal that cannot be read as the run it records (docs/inputs.md §3)."""


class JournalMissing(JournalDamaged):
    """No journal at all: the directory is not a run directory, which is not a damaged one (a
    JournalDamaged still, so every reader refuses it the same way)."""


def no_journal(run_dir: str | os.PathLike[str]) -> str:
    """What a reader says of a directory with no events.jsonl."""
    return (
        f"{run_dir}: not a run directory (no {EVENTS_FILE}: there is no journal here) — a run directory "
        f"(.tftui/runs/<run-id>/) holds the {EVENTS_FILE} and {META_FILE} that `tftui run` writes"
    )


def load_events(run_dir: str | os.PathLike[str]) -> tuple[list[Any], dict[str, Any], list[str]]:
    """The decoded events, meta and warnings of a run directory, for a reader that must trust
    them (replay, trace, resume, the listing). Raises JournalDamaged naming the first problem
    when events.jsonl is missing or unreadable, a line other than the last is not a JSON object,
    or an event cannot be decoded (a field of the wrong type, an unknown status). A torn last
    line (a kill mid-write) is only a warning: the journal is repaired on resume."""
    path = Path(run_dir)
    if not (path / EVENTS_FILE).exists():
        raise JournalMissing(no_journal(path))
    rows, lines, meta, warnings, damage = _read_numbered_rows(path)
    events, undecodable = _decode_rows(rows)
    damage += [f"{path / EVENTS_FILE}:{lines[index]}: {problem}" for index, problem in undecodable]
    if damage:
        more = f" (and {len(damage) - 1} more)" if len(damage) > 1 else ""
        raise JournalDamaged(f"damaged journal: {damage[0]}{more}")
    return events, meta, warnings


def _read_rows(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any], list[str], list[str]]:
    """(rows, meta, warnings, damage): damage is what makes the journal untrustworthy."""
    rows, _lines, meta, warnings, damage = _read_numbered_rows(path)
    return rows, meta, warnings, damage


def _read_numbered_rows(
    path: Path, texts: list[str] | None = None
) -> tuple[list[dict[str, Any]], list[int], dict[str, Any], list[str], list[str]]:
    """`_read_rows` plus the file line number of each row (to name the line of an undecodable
    event); `texts`, when given, gets the text of each row's line."""
    warnings: list[str] = []
    damage: list[str] = []
    meta = read_meta(path)
    if meta is None:
        warnings.append(f"{path / META_FILE}: missing or not valid JSON")
        meta = {}
    events: list[dict[str, Any]] = []
    numbers: list[int] = []
    events_path = path / EVENTS_FILE
    try:
        data = events_path.read_bytes()
    except OSError as exc:
        damage.append(f"{events_path}: cannot read ({exc.strerror or exc})")
        return events, numbers, meta, warnings, damage
    lines = data.split(b"\n")
    last_index = len(lines) - 1
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except ValueError:  # bad UTF-8: not an event
            parsed = None
        else:
            parsed = _parse_text(text)
        if parsed is not None:
            events.append(parsed)
            numbers.append(number)
            if texts is not None:
                texts.append(text)
            continue
        if number - 1 == last_index:
            warnings.append(
                f"{events_path}:{number}: torn last line ({len(raw)} bytes) ignored — the run was interrupted mid-write"
            )
        else:
            damage.append(f"{events_path}:{number}: not a JSON object")
    return events, numbers, meta, warnings, damage


def decode_events(rows: Iterable[dict[str, Any]]) -> tuple[list[Any], list[str]]:
    """Journal dicts -> engine events (`event_from_json`); rows that cannot be decoded are reported."""
    events, problems = _decode_rows(rows)
    return events, [problem for _index, problem in problems]


def _decode_rows(rows: Iterable[dict[str, Any]]) -> tuple[list[Any], list[tuple[int, str]]]:
    """`decode_events`, with the 0-based row index of each problem."""
    from tftui.engine.events import event_from_json

    events: list[Any] = []
    problems: list[tuple[int, str]] = []
    for index, row in enumerate(rows):
        try:
            events.append(event_from_json(row))
        except (TypeError, ValueError) as exc:
            problems.append((index, f"event {index + 1} ({row.get('kind')!r}) could not be decoded: {exc}"))
    return events, problems


@dataclass
class RunEntry:
    """One recorded run directory (what `list_runs` returns; summaries are computed by callers)."""

    run_id: str
    run_dir: Path
    meta: dict[str, Any] = field(default_factory=dict)


def list_runs(root: str | os.PathLike[str]) -> list[RunEntry]:
    """Run directories under `root`, oldest first (run ids sort by start time)."""
    base = Path(root)
    try:
        children = list(base.iterdir())
    except OSError:
        return []
    entries: list[RunEntry] = []
    for child in children:
        if not child.is_dir():
            continue
        if not ((child / EVENTS_FILE).exists() or (child / META_FILE).exists()):
            continue
        meta = read_meta(child) or {}
        entries.append(RunEntry(run_id=str(meta.get("runId") or child.name), run_dir=child, meta=meta))
    entries.sort(key=lambda e: (str(e.meta.get("started") or ""), e.run_dir.name))
    return entries


def find_run(root: str | os.PathLike[str], run_id: str) -> Path | None:
    """The directory of `run_id` under `root`; a unique prefix is accepted; `None` if absent or ambiguous."""
    base = Path(root)
    exact = base / run_id
    if (exact / EVENTS_FILE).exists() or (exact / META_FILE).exists():
        return exact
    matches = [e.run_dir for e in list_runs(base) if e.run_dir.name.startswith(run_id)]
    return matches[0] if len(matches) == 1 else None
