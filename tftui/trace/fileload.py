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

A file in the layout tftui writes (`dump_columns`: the envelope's keys on lines of their own, then
one step per line) is read faster still (`layout_columns`): the steps array is cut at line ends into
pieces of about `_PIECE` bytes, each decoded as a JSON array of the same typed steps, and turned
into columns while its records are still in the CPU's cache; Cutting is exact: JSON strings hold no
raw newline, so a `,` at a line end lies between two values, and a piece whose cut fell inside a
step (a file laid out otherwise) is not a balanced array and fails to decode; whatever this reader
cannot read, or refuses, is read by `fast_columns` as a whole.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice, repeat
from operator import lt
from typing import Annotated, Any, BinaryIO, Literal, cast

import msgspec
from msgspec import Meta
from msgspec.structs import astuple

from tftui.trace.columns import Metadata, MetaValue, StepKind, StepStatus, TraceColumns
from tftui.trace.facts import ABSENT, class_buckets
from tftui.trace.integrity import MAX_SAFE_INTEGER, schema_error, schema_problems

__all__ = ["HEAD_BYTES", "FileLoad", "fast_columns", "layout_columns", "layout_file", "load_trace_file", "read_trace_file"]

_ABSENT = object()
_NO_METADATA: Metadata = {}
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

class _PieceStep(_SoundStep, gc=False):
    """`_SoundStep` with its metadata kept as the file's text (absent: empty): each distinct text is
    decoded once (`_MetadataTable`), as `_SoundStep.metadata` would decode it."""

    metadata: msgspec.Raw = msgspec.Raw()  # type: ignore[assignment]


_PIECE_DECODER = msgspec.json.Decoder(list[_PieceStep])
_METADATA_DECODER = msgspec.json.Decoder(dict[str, _SoundMetaValue] | None)


class _MetadataTable(dict[bytes, tuple[Any, ...]]):
    """Each distinct metadata text of a file -> (its dict, then its signature class for each of
    `signature_keys`). The steps of a run mostly share their metadata (a phase's model calls carry
    the same phase, type and flags; the recorder shares one dict among them): decoding a dict per
    step was a third of reading a big trace and most of its memory, the signature and summary
    facts are computed once per text, and every step with the text gets the same dict (the columns
    are never changed, and a recorded trace shares its dicts so too). A text the decoder refuses
    raises, as in a whole decode. Equal texts decode to equal dicts, so the columns are the ones
    a decode per step gives."""

    def __init__(self, signature_keys: Collection[tuple[str, ...]]) -> None:
        super().__init__()
        self.signature_keys = tuple(signature_keys)
        # per key set: the values of its keys (ABSENT where missing) -> a class number; equal
        # values (as tuples compare: 1, 1.0 and True are one) share a class, as they share a signature
        self.classes: list[dict[tuple[object, ...], int]] = [{} for _ in self.signature_keys]
        self[b""] = self.__missing__(b"null")  # no metadata field: null, as the struct's default

    def __missing__(self, text: bytes) -> tuple[Any, ...]:
        meta: Metadata | None = _METADATA_DECODER.decode(text)
        get = (meta or _NO_METADATA).get
        entry = (meta, *[classes.setdefault(tuple(map(get, keys, repeat(ABSENT))), len(classes))
                         for keys, classes in zip(self.signature_keys, self.classes, strict=True)])
        self[text] = entry
        return entry

    def distinct(self) -> list[Metadata]:
        """Every distinct non-empty metadata dict, in the order the file first has it."""
        return [entry[0] for entry in self.values() if entry[0]]
_PIECE = 1 << 17  # bytes of steps decoded at once (~550 steps): their records stay in cache while read out
HEAD_BYTES = _HEAD = 1 << 16  # what `tftui gate` reads of a trace file first: its envelope's lines (and the OTLP check's 4 KB)
_BLOCK = 1 << 22  # what `layout_file` reads at a time
_STEPS_OPEN = b'\n  "steps": [\n'  # how dump_columns opens the steps array (a line of its own)
_STEPS_CLOSE = b"\n  ]"
_ENDINGS = (b"\n  ]\n}\n", b"\n  ]\n}")  # and closes it and the file


@lru_cache(maxsize=8)
def _canonical_format(steps: int) -> str:
    """`s%d` for each of `steps` sequences, one a line (pieces mostly hold the same number of steps)."""
    return "s%d" + "\ns%d" * (steps - 1)


def layout_columns(data: bytes, signature_keys: Collection[tuple[str, ...]] = ()) -> TraceColumns | None:
    """`fast_columns` for a file in the layout tftui writes (see the module docstring), with the
    same columns and their facts (`TraceColumns.record_facts`; the signature buckets of each of
    `signature_keys`, what loop_signature rules will count); None for a file it cannot read this
    way or that a check refuses (the caller reads it as a whole)."""
    opened = data.find(_STEPS_OPEN)
    closed = data.rfind(_STEPS_CLOSE)
    if opened < 0 or closed < opened or data[closed:] not in _ENDINGS:
        return None
    start = opened + len(_STEPS_OPEN)
    pieces = (piece for piece, _ in _cut_pieces(data, start, closed, final=True))
    return _layout(data[:opened] + b'\n  "steps": [' + data[closed:], pieces, closed - start, signature_keys)


def layout_file(file: BinaryIO, head: bytes, signature_keys: Collection[tuple[str, ...]] = ()) -> TraceColumns | None:
    """`layout_columns` of an open regular file, reading its steps a block at a time instead of
    holding the whole file (a copy of a 1M-step file was 235 MB the kernel handed over page by
    page). `head`: the file's first bytes as read, `_HEAD` of them unless the file is shorter.
    The same columns, or None where `layout_columns` of the file's bytes gives None, and also when
    the line opening the steps is not in `head` or the file got shorter while read (the caller
    then reads it whole) or changed while read: a file rewritten in place while its blocks are
    read (an editor, another tool; tftui replaces its own) would give columns of two versions."""
    before = os.fstat(file.fileno())
    size = before.st_size
    opened = head.find(_STEPS_OPEN)
    if opened < 0 or len(head) < min(size, _HEAD):
        return None
    file.seek(max(size - len(_ENDINGS[0]), 0))
    tail = file.read()
    # The close `layout_columns` finds (the last in the file) is the one that starts the ending:
    # an ending holds one.
    ending = next((e for e in _ENDINGS if tail.endswith(e)), None)
    if ending is None or len(tail) != min(size, len(_ENDINGS[0])) or size - len(ending) < opened:
        return None
    start, closed = opened + len(_STEPS_OPEN), size - len(ending)
    if start >= closed:  # no step: a whole decode reads that as fast
        return None
    cols = _layout(head[:opened] + b'\n  "steps": [' + ending, _file_pieces(file, start, closed), closed - start,
                   signature_keys)
    if cols is None:
        return None
    after = os.fstat(file.fileno())
    if (after.st_size, after.st_mtime_ns, after.st_ctime_ns) != (size, before.st_mtime_ns, before.st_ctime_ns):
        return None
    return cols


def _cut_pieces(text: bytes | bytearray, at: int, end: int, *, final: bool) -> Iterator[tuple[bytearray, int]]:
    """The steps in `text[at:end]` as JSON arrays of about `_PIECE` bytes, each cut after a `,` at
    a line end (see the module docstring), with the position after it; not `final`: the text goes
    on past `end`, so what follows the last cut is left for later."""
    with memoryview(text) as view:
        while at < end:
            cut = text.find(b",\n", at + _PIECE, end)
            if cut < 0:
                if not final:
                    return
                cut = end
            piece = bytearray(b"[")
            piece += view[at:cut]
            piece += b"]"
            at = cut + 2
            yield piece, at


def _file_pieces(file: BinaryIO, start: int, end: int) -> Iterator[bytearray]:
    """`_cut_pieces` of the file's bytes `start:end`, read `_BLOCK` bytes at a time into one buffer
    (what follows a block's last cut stays in it for the next). EOFError if the file ends first."""
    file.seek(start)
    buffer = bytearray()
    left = end - start
    while True:
        block = file.read(min(_BLOCK, left)) if left else b""
        if left and not block:
            raise EOFError
        left -= len(block)
        buffer += block
        done = 0
        for piece, done in _cut_pieces(buffer, 0, len(buffer), final=not left):  # noqa: B007 - done: the last one
            yield piece
        del buffer[:done]
        if not left:
            return


def _layout(without_steps: bytes, pieces: Iterable[bytearray], length: int,
            signature_keys: Collection[tuple[str, ...]]) -> TraceColumns | None:
    """The columns of a file in tftui's layout from its envelope (the file without its steps)
    and its steps' pieces (`_cut_pieces`; `length`: the bytes they come from), or None."""
    paused = gc.isenabled()
    gc.disable()
    try:
        # The file without its steps: the same envelope checks as a whole decode.
        envelope: _TraceFile = _SOUND_DECODER.decode(without_steps)
        if envelope.steps:
            return None
        columns: list[list[Any]] = []
        # Facts of the whole trace (TraceColumns.record_facts), gathered a piece at a time while
        # its values are in cache: a pass over a million scattered objects later costs more.
        parents: set[str | None] = set()
        signature_keys = tuple(dict.fromkeys(signature_keys))
        table = _MetadataTable(signature_keys)
        buckets: dict[tuple[str, ...], list[int]] = {}
        roots = 0
        increasing = canonical = True
        last = -1
        at = 0  # steps read so far
        for piece in pieces:
            steps = _PIECE_DECODER.decode(piece)
            if not steps:  # `,\n,\n`: not JSON, which a whole decode refuses
                return None
            if not columns:
                if len(steps) != piece.count(b"\n") + 1:  # not one step a line
                    return None
                # The columns are made about as long as the file has steps (estimated from this
                # piece's, with room to spare; cut to size at the end) and filled a piece at a time:
                # growing a million-entry list by extends copies it over and over.
                size = length * len(steps) * 5 // (4 * max(len(piece) - 2, 1)) + 16
                columns = [[None] * size for _ in range(11)]
                buckets = {signature: [0] * size for signature in signature_keys}
            fields: list[Sequence[Any]] = list(zip(*map(astuple, steps), strict=True))
            del steps
            # each step's (metadata, signature classes…), from its metadata's text
            by_text = list(zip(*map(table.__getitem__, map(bytes, fields[10])), strict=True))
            fields[10] = by_text[0]
            piece_ids, piece_parents, piece_sequences, piece_names, piece_kinds, piece_statuses = fields[:6]
            upto = at + len(piece_ids)
            piece_roots = piece_parents.count(None)
            roots += piece_roots
            parent = piece_parents[-1]  # a run's steps mostly share one parent: counted, not hashed
            if parent is None or piece_parents.count(parent) + piece_roots != len(piece_parents):
                parents.update(piece_parents)
            else:  # one parent: one string for all of them (a decode makes one per step)
                parents.update((None, parent) if piece_roots else (parent,))
                fields[1] = ([None if p is None else parent for p in piece_parents] if piece_roots
                             else [parent] * len(piece_parents))
            for column, values_of_field in zip(columns, fields, strict=True):
                column[at:upto] = values_of_field
            if increasing:
                increasing = last < piece_sequences[0] and all(
                    map(lt, piece_sequences, islice(piece_sequences, 1, None)))
                last = piece_sequences[-1]
            # ids `s<sequence>`: compared joined, which is exact (an id holding the separator would
            # make one joined text longer than the other); the sequences are written into one text by
            # `%` (ints, as str() writes them) without a string object per step
            canonical = canonical and "\n".join(piece_ids) == _canonical_format(len(piece_ids)) % piece_sequences
            for classes, column in zip(by_text[1:], buckets.values(), strict=True):
                column[at:upto] = class_buckets(piece_names, piece_kinds, piece_statuses, classes)
            at = upto
        # Facts of the whole trace (TraceColumns.record_facts) from each distinct metadata once.
        present = table.distinct()
        keys: set[str] = set()
        keys.update(*present)  # dicts given whole: the set reads their stored hashes, no iterator per dict
        values: set[MetaValue] = set(chain.from_iterable(map(dict.values, present)))
    except (msgspec.MsgspecError, EOFError):  # EOFError: the file got shorter while read
        return None
    finally:
        if paused:
            gc.enable()
    if not columns:  # no step: a whole decode reads that as fast
        return None
    for column in chain(columns, buckets.values()):
        del column[at:]  # fewer steps than lines (a step over several lines read in one piece)
    (ids, parent_ids, sequences, names, kinds, statuses, attempts, input_tokens, output_tokens, durations,
     metadata) = columns
    cols = TraceColumns(
        fixture=envelope.fixture, status=envelope.status, ids=ids, parent_ids=parent_ids, sequences=sequences,
        names=names, kinds=kinds, statuses=statuses, attempts=attempts, input_tokens=input_tokens,
        output_tokens=output_tokens, durations=durations, metadata=metadata,
    )
    parents.discard(None)
    cols.record_facts(roots=roots, increasing=increasing, canonical_ids=canonical,
                      parents=cast("set[str]", parents), metadata_keys=keys, metadata_values=values)
    for signature, column in buckets.items():
        cols.record_signature_buckets(signature, column)
    cols.numbers_sound = True
    return cols


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


def load_trace_file(data: bytes, signature_keys: Collection[tuple[str, ...]] = ()) -> FileLoad:
    """A trace file's bytes as columns (see the module docstring); `signature_keys`: see
    `layout_columns`. Never raises."""
    cols = layout_columns(data, signature_keys)
    if cols is None:
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


def read_trace_file(file: BinaryIO, head: bytes, signature_keys: Collection[tuple[str, ...]] = ()) -> FileLoad:
    """`load_trace_file` of an open regular file whose first bytes `head` were read (see
    `layout_file`): a file in tftui's layout is read a block at a time, any other whole. Raises
    OSError as reading does."""
    cols = layout_file(file, head, signature_keys)
    if cols is not None:
        return FileLoad(cols)
    file.seek(0)
    return load_trace_file(file.read(), signature_keys)
