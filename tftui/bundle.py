"""Repro bundles: one `.tftui.zip` with everything needed to replay or re-run a recorded run.

Members (all UTF-8 text):
- `bundle.json`          format marker, version, run id, what the bundle holds
- `flow.json`            the flow as it was run (the run dir's copy, else the file it names), with
                         the guards edited in the debugger (`e`, `enter`) written in (`edited_guards`)
- `meta.json`            the run's meta
- `events.jsonl`         the journal (already redacted by the journal writer)
- `trace.json`           the normalized trace (the run dir's, else computed from the events)
- `answers.replies.json` every recorded model answer as a node-path replies file (docs/language.md §7),
                         so `tftui run flow.json --replies answers.replies.json` re-runs it offline

`open_bundle(path)` reads only those members (any other entry is ignored, nothing is
extracted to disk) and returns the `Recording` that `tftui replay` needs.
`load_recording(path)` / `open_replay(path)` take a run directory or a bundle: what every
reader of a recorded run calls (the engine reads run directories only).
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tftui.engine.events import Event
from tftui.engine.replay import Recording, Replay, ReplayError, load_run_dir
from tftui.lang import strict_json
from tftui.lang.values import JSONObject, JSONValue

BUNDLE_FORMAT = "tftui-bundle"
BUNDLE_VERSION = 1
BUNDLE_SUFFIX = ".tftui.zip"
# Zip bombs (docs/inputs.md §3): each member read is capped, so are all of them together (as
# decompressed, whatever the headers claim), and so is the number of entries in the archive.
MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_ENTRIES = 1000
MEMBERS = ("bundle.json", "flow.json", "meta.json", "events.jsonl", "trace.json", "answers.replies.json")


class BundleError(ReplayError):
    pass


def answers_from_events(events: Sequence[Event]) -> dict[str, list[JSONValue]]:
    """Node path -> recorded replies in call order (a ScriptedRunner replies mapping)."""
    from tftui.engine.recorded import recorded_calls

    replies: dict[str, list[JSONValue]] = {}
    for call in recorded_calls(events):
        replies.setdefault(call.node_path, []).append(call.to_reply())
    return replies


def edited_guards(events: Sequence[Event]) -> dict[str, str]:
    """Phase id -> the `when` the run last evaluated for it, for the top-level phases whose last
    evaluation was a debugger override (the guard editor's `enter`, docs/scheduling.md §2.3): the journal
    is the record of which guard ran, whatever the flow file says."""
    from tftui.engine.events import GuardEvaluated

    last: dict[str, GuardEvaluated] = {}
    for event in events:
        if isinstance(event, GuardEvaluated) and "/" not in event.phase_id:
            last[event.phase_id] = event
    return {pid: e.expr for pid, e in last.items() if e.overridden}


def _with_edited_guards(flow_text: str, edited: dict[str, str], warnings: list[str]) -> str:
    """`flow_text` with each edited guard set (`flow.edit.set_when`, formatting kept; an empty
    guard removes `when`), so the bundle's flow and answers re-run what was run."""
    from tftui.flow.edit import set_when

    for pid, expr in edited.items():
        edit = set_when(flow_text, pid, expr if expr.strip() else None)
        if edit.text is None:
            warnings.append(f"the guard of '{pid}' edited in the debugger is not in flow.json: {edit.error}")
            continue
        flow_text = edit.text
        warnings.append(f"flow.json has the guard of '{pid}' as edited in the debugger: {expr or '(none)'}")
    return flow_text


def export_bundle(run_dir: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> tuple[Path, list[str]]:
    """Write the bundle of `run_dir` to `out_path` (atomically); returns (path, warnings)."""
    from tftui.engine.journal import EVENTS_FILE, META_FILE, no_journal
    from tftui.trace.model import dump_trace
    from tftui.trace.record import trace_of_run_dir

    source = Path(run_dir)
    if not (source / EVENTS_FILE).is_file():
        raise BundleError(no_journal(source))
    recording = load_run_dir(source)
    warnings = list(recording.warnings)
    if recording.flow_text is None:
        warnings.append("the flow file was not found; the bundle has no flow.json")
    trace_text = recording.trace_text
    if trace_text is None:
        trace, more = trace_of_run_dir(source)
        warnings.extend(more)
        trace_text = dump_trace(trace) if trace is not None else None
    answers = answers_from_events(recording.events)
    edited = edited_guards(recording.events)
    flow_text = recording.flow_text
    if flow_text is not None and edited:
        flow_text = _with_edited_guards(flow_text, edited, warnings)
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "runId": recording.meta.get("runId") or source.name,
        "flowName": recording.meta.get("flowName"),
        "created": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "events": len(recording.events),
        "answers": sum(len(v) for v in answers.values()),
        **({"editedGuards": edited} if edited else {}),
    }
    target = Path(out_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:

        def put(name: str, text: str) -> None:  # JSON text: a lone surrogate is written as its JSON escape
            zf.writestr(name, text.encode("utf-8", "backslashreplace"))

        put("bundle.json", json.dumps(manifest, indent=2) + "\n")
        if flow_text is not None:
            put("flow.json", flow_text)
        put("meta.json", (source / META_FILE).read_text(encoding="utf-8") if (source / META_FILE).is_file()
            else json.dumps(recording.meta, indent=2) + "\n")
        zf.write(source / EVENTS_FILE, "events.jsonl")
        if trace_text is not None:
            put("trace.json", trace_text)
        put("answers.replies.json", json.dumps(answers, ensure_ascii=False, indent=2) + "\n")
    os.replace(tmp, target)
    return target, warnings


class _Budget:
    """What is left of MAX_TOTAL_BYTES for the members still to read."""

    def __init__(self) -> None:
        self.left = MAX_TOTAL_BYTES


def _member(zf: zipfile.ZipFile, name: str, budget: _Budget) -> str | None:
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.flag_bits & 0x1:
        raise BundleError(f"bundle member {name} is encrypted (tftui bundles never are)")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise BundleError(f"bundle member {name} uses compression method {info.compress_type} "
                          "(tftui bundles are stored or deflated)")
    cap = min(MAX_MEMBER_BYTES, budget.left)
    if info.file_size > cap:
        raise BundleError(f"bundle member {name} is too large ({info.file_size} bytes; the limit is {cap})")
    with zf.open(info) as fh:
        data = fh.read(cap + 1)  # the header's size may lie: never decompress more than the cap
    if len(data) > cap:
        raise BundleError(f"bundle member {name} is too large (over {cap} bytes uncompressed)")
    budget.left -= len(data)
    return data.decode("utf-8")


def load_recording(source: str | os.PathLike[str]) -> Recording:
    """A run directory (events.jsonl + meta.json [+ flow.json]) or a `.tftui.zip` bundle."""
    path = Path(source)
    return open_bundle(path) if path.is_file() else load_run_dir(path)


def open_replay(source: str | os.PathLike[str]) -> Replay:
    """The time-travel cursor over a run directory or a bundle (raises ReplayError)."""
    return Replay.of(load_recording(source))


def open_bundle(path: str | os.PathLike[str]) -> Recording:
    """Read a bundle written by `export_bundle` (raises BundleError with a clear message)."""
    from tftui.engine.journal import decode_events

    file = Path(path)
    try:
        zf = zipfile.ZipFile(file)
    except (OSError, zipfile.BadZipFile) as exc:
        raise BundleError(f"{file}: not a tftui bundle ({exc})") from exc
    with zf:
        if len(zf.infolist()) > MAX_ENTRIES:
            raise BundleError(f"{file}: not a tftui bundle ({len(zf.infolist())} entries; at most {MAX_ENTRIES})")
        budget = _Budget()
        try:
            manifest_text = _member(zf, "bundle.json", budget)
            events_text = _member(zf, "events.jsonl", budget)
            flow_text = _member(zf, "flow.json", budget)
            meta_text = _member(zf, "meta.json", budget)
            trace_text = _member(zf, "trace.json", budget)
            answers_text = _member(zf, "answers.replies.json", budget)
        except BundleError as exc:
            raise BundleError(f"{file}: {exc}") from exc
        except (UnicodeDecodeError, zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError,
                ValueError, zlib.error) as exc:  # a CRC mismatch, a truncated stream, a bad header
            raise BundleError(f"{file}: damaged bundle ({exc})") from exc
    manifest = _json(manifest_text)
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{file}: not a tftui bundle (bundle.json missing or of another format)")
    if events_text is None:
        raise BundleError(f"{file}: the bundle has no events.jsonl")
    rows: list[JSONObject] = []
    for number, line in enumerate(events_text.splitlines(), start=1):
        if not line.strip():
            continue
        value = _json(line)
        if not isinstance(value, dict):  # a bundle is written whole: no line of it may be torn
            raise BundleError(f"{file}: damaged bundle: events.jsonl:{number}: not a JSON object")
        rows.append(value)
    events, undecodable = decode_events(rows)
    if undecodable:
        raise BundleError(f"{file}: damaged bundle: events.jsonl: {undecodable[0]}")
    meta = _json(meta_text)
    answers = _json(answers_text)
    return Recording(
        events=events,
        meta=meta if isinstance(meta, dict) else {},
        flow_text=flow_text,
        trace_text=trace_text,
        replies=answers if isinstance(answers, dict) else None,
        source=str(file),
        warnings=[],
    )


def _json(text: str | None) -> JSONValue:
    if text is None:
        return None
    try:
        return strict_json.loads(text)
    except (ValueError, RecursionError):  # nested too deep to be anything a bundle holds
        return None
