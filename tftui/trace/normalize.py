"""Normalization (docs/trace-gates.md §1): make a trace deterministic before rules read it.

Works on `TraceColumns` (one list per field), so a million-step trace is normalized with
list operations rather than a million model objects:
- steps sorted by sequence;
- ids renamed `s<sequence>`, parent links preserved (an unknown parent is kept as written,
  integrity reports it);
- volatile metadata dropped (wall-clock timestamps, request/trace/run ids, temp paths);
- `durationMs` dropped unless the run used a fake clock (root metadata `fakeClock: true`).
Fields outside the schema (raw payloads an adapter attached to a step) never reach the
columns. Forbidden payload keys inside `metadata` are kept: integrity must report them.
Idempotent. Run the integrity check first (duplicate sequences would collide as ids).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeVar

from tftui.trace.columns import FAKE_CLOCK_KEY, SCHEMA_VERSION, Metadata, TraceColumns

if TYPE_CHECKING:
    from tftui.trace.model import AgentTrace

_T = TypeVar("_T")

# Metadata keys whose values change from run to run: wall clock, request/trace ids, temp dirs.
# Compared lower-cased with `_`/`-` removed, so `request_id`, `requestId` and `Request-Id` all match.
_VOLATILE_KEYS = frozenset(
    {"ts", "timestamp", "time", "date", "datetime", "starttime", "endtime", "requestid", "reqid",
     "traceid", "spanid", "runid", "tmpdir", "tempdir", "tmppath", "temppath"}
)
_VOLATILE_SUFFIXES = ("timestamp", "requestid", "traceid", "spanid")
_CAMEL_AT = re.compile(r"[a-z]At$|_at$")  # startedAt, created_at (case-sensitive: keeps `format`, `chat`)
_TEMP_PATH = re.compile(r"^(?:/tmp/|/var/tmp/|/var/folders/|/private/var/folders/|[A-Za-z]:\\.*\\Temp\\)")
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_VALUE_STARTS = frozenset("/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def volatile_key(key: str) -> bool:
    flat = key.lower().replace("_", "").replace("-", "")
    return flat in _VOLATILE_KEYS or flat.endswith(_VOLATILE_SUFFIXES) or bool(_CAMEL_AT.search(key))


def volatile_value(value: object) -> bool:
    return isinstance(value, str) and bool(_TEMP_PATH.match(value) or _ISO_TIME.match(value))


def volatile_metadata(key: str, value: object) -> bool:
    """True for metadata that must not influence a deterministic result."""
    return volatile_key(key) or volatile_value(value)


def _clean_metadata(metadata: list[Metadata | None], cols: TraceColumns) -> list[Metadata | None]:
    """Metadata (`cols.metadata` in some order) without volatile entries; dicts without any are
    shared, not copied, and the list itself is returned when nothing is volatile."""
    keys, distinct = cols.metadata_summary()
    bad_keys = {k for k in keys if volatile_key(k)}
    bad_values = {v for v in distinct if type(v) is str and volatile_value(v)}
    if not bad_keys and not bad_values:
        return metadata
    out: list[Metadata | None] = []
    for m in metadata:
        if m and (not bad_keys.isdisjoint(m) or any(type(v) is str and v in bad_values for v in m.values())):
            m = {k: v for k, v in m.items() if k not in bad_keys and not (type(v) is str and v in bad_values)}
        out.append(m)
    return out


def uses_fake_clock(cols: TraceColumns) -> bool:
    if cols.root_count() != 1:
        return False
    root = cols.metadata[cols.parent_ids.index(None)]
    return root is not None and root.get(FAKE_CLOCK_KEY) is True


def normalize_columns(cols: TraceColumns, *, fake_clock: bool | None = None) -> TraceColumns:
    keep_duration = uses_fake_clock(cols) if fake_clock is None else fake_clock
    seqs = cols.sequences
    in_order = cols.increasing() or seqs == sorted(seqs)
    if in_order:
        def reorder(column: list[_T]) -> list[_T]:
            return column
    else:
        order = sorted(range(len(seqs)), key=seqs.__getitem__)

        def reorder(column: list[_T]) -> list[_T]:
            return [column[i] for i in order]

    ordered_metadata = reorder(cols.metadata)
    metadata = _clean_metadata(ordered_metadata, cols)
    bad = metadata is not ordered_metadata
    sequences = reorder(seqs)
    ids = reorder(cols.ids)
    if in_order and cols.canonical_ids():  # a trace tftui wrote: named so already, in order (integrity knows)
        new_ids, parents = ids, cols.parent_ids
    elif ids == (new_ids := [f"s{q}" for q in sequences]):  # already named so: every parent keeps its name
        parents = reorder(cols.parent_ids)
    else:
        rename = dict(zip(ids, new_ids, strict=True))
        parents = [None if p is None else rename.get(p, p) for p in reorder(cols.parent_ids)]
    return TraceColumns(
        fixture=cols.fixture,
        status=cols.status,
        ids=new_ids,
        parent_ids=parents,
        sequences=list(sequences),
        names=reorder(cols.names),
        kinds=reorder(cols.kinds),
        statuses=reorder(cols.statuses),
        attempts=reorder(cols.attempts),
        input_tokens=reorder(cols.input_tokens),
        output_tokens=reorder(cols.output_tokens),
        durations=reorder(cols.durations) if keep_duration else [None] * len(seqs),
        metadata=metadata,
    ).share_summaries(cols, same_metadata=not bad)


def columns_to_trace(cols: TraceColumns) -> AgentTrace:
    """Back to the pydantic boundary type (for writing files and for callers of `normalize`)."""
    from tftui.trace.model import AgentTrace, TraceStep  # the validation models: only when asked for

    steps = [
        TraceStep.model_construct(
            id=i, parent_id=p, sequence=q, name=n, kind=k, status=st, attempt=a,
            input_tokens=it, output_tokens=ot, duration_ms=d, metadata=None if m is None else dict(m),
        )
        for i, p, q, n, k, st, a, it, ot, d, m in zip(
            cols.ids, cols.parent_ids, cols.sequences, cols.names, cols.kinds, cols.statuses, cols.attempts,
            cols.input_tokens, cols.output_tokens, cols.durations, cols.metadata, strict=True,
        )
    ]
    return AgentTrace.model_construct(
        schema_version=SCHEMA_VERSION, fixture=cols.fixture, status=cols.status, steps=steps
    )
