"""Reading a trace file for `tftui gate` (docs/trace-gates.md §1, §4): one JSON parse, a check of
whole columns against the schema, and no object per step.

The published schema (trace.schema.json) and the strict loader (`tftui.trace.model.load_columns`,
pydantic) are the authorities; this module only takes a shortcut when it is sure both would
accept the file and produce the same columns:

- the file is parsed once (`json.loads`, with the garbage collector paused: a million step
  dicts would otherwise be re-scanned by every collection while they are built);
- each field is pulled out as one list, and the set of Python types in that list (and, for
  `kind`/`status`, the set of values) is compared with what both authorities allow. A
  conforming trace needs no per-step work beyond building its columns;
- anything the shortcut is not sure of (a missing field, a type outside the common set, a
  float in an integer field, a non-finite number, a `\\u` surrogate escape, which the strict
  loader treats differently from `json`) goes the old way: the schema check on the parsed value
  for its precise message, then the strict loader.
"""

from __future__ import annotations

import gc
import json
import math
from dataclasses import dataclass
from itertools import chain
from typing import Any, cast

from tftui.lang import strict_json
from tftui.trace.integrity import schema_error, schema_problems
from tftui.trace.model import STEP_KINDS, STEP_STATUSES, ColumnsLoad, StepStatus, TraceColumns, load_columns

__all__ = ["FileLoad", "load_trace_file"]

_ABSENT = object()
_NONE = type(None)
_STATUSES_OR_NULL = frozenset((*STEP_STATUSES, None))
_KINDS = frozenset(STEP_KINDS)
_STATUSES = frozenset(STEP_STATUSES)
_NUMBER = {int, float, _NONE}
_META_VALUE = {str, int, float, bool, _NONE}


@dataclass
class FileLoad:
    """The columns of a trace file, or why there are none: `nonconforming` = (fixture, error) for
    a file that breaks the published schema, `error` for one the loader refused (parse errors)."""

    columns: TraceColumns | None
    error: str | None = None
    nonconforming: tuple[str, str] | None = None


def _parse(data: bytes) -> Any:
    """`json.loads(data)` with collections paused; raises as json does."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return strict_json.loads(data)
    finally:
        if paused:
            gc.enable()


def _finite(values: list[Any]) -> bool:
    floats = [v for v in values if type(v) is float]
    return not floats or math.isfinite(sum(floats))  # an overflowing sum is only a false alarm


def conforming_columns(decoded: Any) -> TraceColumns | None:
    """The trace's columns when it certainly conforms (then they equal `load_columns`'s); None
    when the shortcut cannot tell (the caller takes the schema check and the strict loader)."""
    if type(decoded) is not dict:
        return None
    version, fixture, status = decoded.get("schemaVersion"), decoded.get("fixture"), decoded.get("status")
    steps = decoded.get("steps")
    if type(version) is not int or version != 1 or type(fixture) is not str or type(steps) is not list:
        return None
    if not (status is None or type(status) is str) or status not in _STATUSES_OR_NULL:
        return None
    if steps and set(map(type, steps)) != {dict}:
        return None

    # List comprehensions: the cheapest way CPython has to pull one field out of a million dicts.
    try:
        ids, parents, sequences = [s["id"] for s in steps], [s["parentId"] for s in steps], [s["sequence"] for s in steps]
        names, kinds, statuses = [s["name"] for s in steps], [s["kind"] for s in steps], [s["status"] for s in steps]
    except KeyError:
        return None  # a required field is missing: the schema check says where
    attempts, inputs = [s.get("attempt") for s in steps], [s.get("inputTokens") for s in steps]
    outputs, durations = [s.get("outputTokens") for s in steps], [s.get("durationMs") for s in steps]
    metadata = [s.get("metadata") for s in steps]  # absent and null are the same to the columns
    number_types = [set(map(type, column)) for column in (inputs, outputs, durations)]
    if steps and not (
        set(map(type, ids)) == {str}
        and set(map(type, parents)) <= {str, _NONE}
        and set(map(type, sequences)) == {int}  # a float (even 3.0) is for the strict loader to refuse
        and set(map(type, names)) == {str}
        and set(map(type, kinds)) == {str} and set(kinds) <= _KINDS
        and set(map(type, statuses)) == {str} and set(statuses) <= _STATUSES
        and set(map(type, attempts)) <= {int, _NONE}
        and all(types <= _NUMBER for types in number_types)
        and set(map(type, metadata)) <= {dict, _NONE}
    ):
        return None
    meta_values = list(chain.from_iterable(map(dict.values, filter(None, metadata))))
    meta_types = set(map(type, meta_values))
    if not meta_types <= _META_VALUE:
        return None
    with_floats = [c for c, t in zip((inputs, outputs, durations, meta_values), (*number_types, meta_types),
                                     strict=True) if float in t]
    if not all(map(_finite, with_floats)):
        return None
    return TraceColumns(
        fixture=fixture, status=cast(StepStatus | None, status), ids=ids, parent_ids=parents, sequences=sequences, names=names,
        kinds=kinds, statuses=statuses, attempts=attempts, input_tokens=inputs, output_tokens=outputs,
        durations=durations, metadata=metadata,
    )


def load_trace_file(data: bytes) -> FileLoad:
    """A trace file's bytes as columns (see the module docstring). Never raises."""
    decoded: Any = _ABSENT
    strict = True
    try:
        decoded = _parse(data)
    except (ValueError, RecursionError):
        strict = False
        try:  # NaN/Infinity: still JSON to the schema check, which speaks first (as it always did)
            decoded = json.loads(data)
        except (ValueError, RecursionError):
            pass  # not JSON at all: the loader words the parse error
    if strict and b"\\ud" not in data and b"\\uD" not in data:
        cols = conforming_columns(decoded)
        if cols is not None:
            return FileLoad(cols)
    if decoded is not _ABSENT:
        error = schema_error(schema_problems(decoded))
        if error is not None:
            fixture = decoded.get("fixture") if isinstance(decoded, dict) else None
            return FileLoad(None, nonconforming=((fixture if isinstance(fixture, str) else ""), error))
    del decoded
    loaded: ColumnsLoad = load_columns(data)
    return FileLoad(loaded.columns, loaded.error)
