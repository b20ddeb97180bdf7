"""Reading a trace file for `tftui gate` (docs/trace-gates.md §1, §4): one typed decode straight
into step records, then one list per field, and no per-step Python validation.

The published schema (trace.schema.json) and the strict loader (`tftui.trace.model.load_columns`,
pydantic) are the authorities; this module only takes a shortcut when it is sure both would
accept the file and produce the same columns:

- the fast path decodes the bytes with msgspec into `_Trace`/`_Step` structs whose types are
  the strict loader's (an `int` field refuses `3.0` and `true`, kinds and statuses are literals,
  metadata values are flat scalars). msgspec is stricter than both authorities everywhere they
  differ from it: it refuses `NaN`/`Infinity`, numbers that overflow a float (`1e400`), lone
  `\\u` surrogates, a byte-order mark and encodings other than UTF-8, so whenever it accepts a
  file, the schema check and the strict loader accept it too, with the same values
  (tests/trace/test_fileload.py checks this property);
- whatever the fast path refuses goes the old way, for the precise message (file position,
  step index, field): the schema check on the `json` parse of the file, then the strict loader.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from tftui.trace.columns import StepKind, StepStatus, TraceColumns
from tftui.trace.integrity import MAX_SAFE_INTEGER, schema_error, schema_problems

__all__ = ["FileLoad", "fast_columns", "load_trace_file"]

_ABSENT = object()
_MetaValue = str | int | float | bool | None
# What integrity checks of every number (docs/trace-gates.md §4), as the decoder's own range
# checks: finite (the decoder refuses NaN and Infinity anyway), 0 <= n <= 2**53, attempts >= 1.
_MAX = MAX_SAFE_INTEGER
_Sound = Annotated[int, Meta(ge=0, le=_MAX)] | Annotated[float, Meta(ge=0, le=float(_MAX))]
_SoundMetaValue = str | bool | None | Annotated[int, Meta(ge=0, le=_MAX)] | Annotated[float, Meta(ge=0, le=float(_MAX))]


class _Step(msgspec.Struct, gc=False):
    """A step as trace.schema.json has it (field names are the file's); unknown fields are skipped.
    gc=False: a million records the garbage collector never has to scan (no field makes a cycle)."""

    id: str
    parentId: str | None  # noqa: N815 - the file's own field names
    sequence: int
    name: str
    kind: StepKind
    status: StepStatus
    attempt: int | None = None
    inputTokens: int | float | None = None  # noqa: N815
    outputTokens: int | float | None = None  # noqa: N815
    durationMs: int | float | None = None  # noqa: N815
    metadata: dict[str, _MetaValue] | None = None


class _SoundStep(_Step, gc=False):
    """`_Step` whose numbers are also in integrity's range: a file read so needs no number check."""

    sequence: Annotated[int, Meta(ge=0, le=_MAX)]
    attempt: Annotated[int, Meta(ge=1, le=_MAX)] | None = None
    inputTokens: _Sound | None = None  # noqa: N815
    outputTokens: _Sound | None = None  # noqa: N815
    durationMs: _Sound | None = None  # noqa: N815
    metadata: dict[str, _SoundMetaValue] | None = None


class _TraceFile(msgspec.Struct, gc=False):
    """The file's top level: schemaVersion, fixture and steps are required (the schema's `required`)."""

    schemaVersion: Literal[1]  # noqa: N815
    fixture: str
    steps: Sequence[_Step]
    status: StepStatus | None = None


class _SoundTraceFile(_TraceFile, gc=False):
    steps: Sequence[_SoundStep]


_SOUND_DECODER = msgspec.json.Decoder(_SoundTraceFile)
_DECODER = msgspec.json.Decoder(_TraceFile)


@dataclass
class FileLoad:
    """The columns of a trace file, or why there are none: `nonconforming` = (fixture, error) for
    a file that breaks the published schema, `error` for one the loader refused (parse errors)."""

    columns: TraceColumns | None
    error: str | None = None
    nonconforming: tuple[str, str] | None = None


def fast_columns(data: bytes) -> TraceColumns | None:
    """The trace's columns when the typed decode accepts the file (then they equal `load_columns`'s);
    None when it does not (the caller takes the schema check and the strict loader).

    First with integrity's number ranges checked as the file is read (`numbers_sound`: integrity
    then skips those passes); a file with a number out of range is read again without them, so
    integrity finds that number and words it as before."""
    paused = gc.isenabled()
    gc.disable()  # the metadata dicts are tracked: a million of them would be re-scanned per collection
    try:
        sound = True
        try:
            trace: _TraceFile = _SOUND_DECODER.decode(data)
        except msgspec.ValidationError:
            sound = False
            trace = _DECODER.decode(data)
    except msgspec.MsgspecError:
        return None
    finally:
        if paused:
            gc.enable()
    steps = trace.steps
    # List comprehensions: the cheapest way CPython has to pull one field out of a million records.
    cols = TraceColumns(
        fixture=trace.fixture, status=trace.status,
        ids=[s.id for s in steps], parent_ids=[s.parentId for s in steps], sequences=[s.sequence for s in steps],
        names=[s.name for s in steps], kinds=[s.kind for s in steps], statuses=[s.status for s in steps],
        attempts=[s.attempt for s in steps], input_tokens=[s.inputTokens for s in steps],
        output_tokens=[s.outputTokens for s in steps], durations=[s.durationMs for s in steps],
        metadata=[s.metadata for s in steps],
    )
    cols.numbers_sound = sound
    return cols


def _parse(data: bytes) -> Any:
    """`json.loads(data)` with collections paused; raises as json does."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return json.loads(data)
    finally:
        if paused:
            gc.enable()


def load_trace_file(data: bytes) -> FileLoad:
    """A trace file's bytes as columns (see the module docstring). Never raises."""
    cols = fast_columns(data)
    if cols is not None:
        return FileLoad(cols)
    try:  # `json` also reads NaN/Infinity: such a file is still JSON to the schema check, which speaks first
        decoded = _parse(data)
    except (ValueError, RecursionError):
        decoded = _ABSENT  # not JSON at all: the loader words the parse error
    if decoded is not _ABSENT:
        error = schema_error(schema_problems(decoded))
        if error is not None:
            fixture = decoded.get("fixture") if isinstance(decoded, dict) else None
            return FileLoad(None, nonconforming=((fixture if isinstance(fixture, str) else ""), error))
    del decoded
    from tftui.trace.model import load_columns  # the strict loader, for what the fast path refused

    loaded = load_columns(data)
    return FileLoad(loaded.columns, loaded.error)
