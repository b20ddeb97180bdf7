"""Trace integrity (SPEC §9.4): is the telemetry itself trustworthy?

Run before any rule, on the trace as loaded (ids as the recorder wrote them, so messages
point at the file). A failure is an instrumentation error: rules are not evaluated and
`tftui gate` exits 3.
"""

from __future__ import annotations

import math
from itertools import chain, compress, repeat
from operator import is_not
from typing import Any

from tftui.lang.values import js_number_str
from tftui.trace.model import STEP_STATUSES, AgentTrace, TraceColumns

# tftui decision (SPEC §9.4): payload keys that must never reach trace metadata (case-insensitive).
FORBIDDEN_METADATA_KEYS = frozenset(
    {
        "prompt",
        "completion",
        "messages",
        "content",
        "payload",
        "raw",
        "body",
        "headers",
        "authorization",
        "api_key",
        "apikey",
        "secret",
        "password",
    }
)

_MAX_PROBLEMS = 50  # enough to fix a recorder; a broken million-step trace should not print a million lines
_INF = math.inf


def _num(value: Any) -> str:
    return js_number_str(value) if isinstance(value, (int, float)) else str(value)


def _bad_number(value: Any) -> bool:
    """Not finite or negative (NaN fails every comparison, so it is caught too)."""
    return not (0 <= value < _INF)


_NUMBER_TYPES = frozenset({int, float})  # exact types: bool is not a number here


def _all_sound(values: list[Any]) -> bool:
    """Fast path: every number finite and ≥ 0 (C-level min/sum; a NaN or inf makes the sum non-finite)."""
    if not values:
        return True
    try:
        return min(values) >= 0 and math.isfinite(sum(values))
    except OverflowError:  # an int too large for a float: let the exact check decide
        return False


def _present(column: list[Any]) -> list[Any]:
    return list(compress(column, map(is_not, column, repeat(None))))


def check_columns(cols: TraceColumns) -> list[str]:
    """Every failed check, in SPEC §9.4 order (the first one is the reported error); [] when sound.

    Each check is a C-level pass over one column (set, count, min, sum, compress); the
    per-step Python loop that locates the offending step runs only when a check fails.
    """
    problems: list[str] = []

    def add(message: str) -> bool:
        problems.append(message)
        return len(problems) >= _MAX_PROBLEMS

    ids = cols.ids
    known = set(ids)
    # Ids must be unique, or parent links are ambiguous.
    if len(known) != len(ids):
        seen: set[str] = set()
        for step_id in ids:
            if step_id in seen and add(f"duplicate id {step_id}"):
                return problems
            seen.add(step_id)
    if not set(cols.parent_ids) <= known | {None}:
        for step_id, parent in zip(ids, cols.parent_ids, strict=True):
            if parent is not None and parent not in known and add(f"unknown parent {parent} for step {step_id}"):
                return problems

    if len(set(cols.sequences)) != len(cols.sequences):
        ordered = sorted(cols.sequences)
        for prev, cur in zip(ordered, ordered[1:], strict=False):
            if cur == prev and add(f"duplicate sequence {cur}"):
                return problems

    roots = cols.parent_ids.count(None)
    if roots != 1 and add(f"expected exactly one root step, found {roots}"):
        return problems

    root_status = cols.statuses[cols.parent_ids.index(None)] if roots else None
    if cols.status not in STEP_STATUSES or root_status not in STEP_STATUSES:
        if add("missing terminal status"):
            return problems

    numeric = (
        ("sequence", cols.sequences),
        ("attempt", cols.attempts),
        ("inputTokens", cols.input_tokens),
        ("outputTokens", cols.output_tokens),
        ("durationMs", cols.durations),
    )
    for field, column in numeric:
        if _all_sound(_present(column)):
            continue
        for step_id, value in zip(ids, column, strict=True):
            if value is not None and _bad_number(value) and add(f"non-finite or negative {field} on step {step_id}"):
                return problems
    if 0 in _present(cols.attempts):
        for step_id, attempt in zip(ids, cols.attempts, strict=True):
            # SPEC §9.1: attempt is an integer ≥ 1 (0 would be a 0-based counter leaking into the trace).
            if attempt is not None and attempt == 0 and add(f"attempt {_num(attempt)} below 1 on step {step_id}"):
                return problems

    with_metadata = list(filter(None, cols.metadata))
    values = list(chain.from_iterable(map(dict.values, with_metadata)))
    numbers = list(compress(values, map(_NUMBER_TYPES.__contains__, map(type, values))))
    if not _all_sound(numbers):
        for step_id, metadata in zip(ids, cols.metadata, strict=True):
            for key, value in (metadata or {}).items():
                if type(value) in _NUMBER_TYPES and _bad_number(value):
                    if add(f"non-finite or negative metadata.{key} on step {step_id}"):
                        return problems
    keys = set(chain.from_iterable(with_metadata))
    if any(k.lower() in FORBIDDEN_METADATA_KEYS for k in keys):
        for step_id, metadata in zip(ids, cols.metadata, strict=True):
            for key in metadata or ():
                if key.lower() in FORBIDDEN_METADATA_KEYS and add(f"forbidden payload key '{key}' on step {step_id}"):
                    return problems
    return problems


def check_integrity(trace: AgentTrace | TraceColumns) -> list[str]:
    """Integrity problems of a trace ([] when it can be evaluated). Never raises."""
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    return check_columns(cols)


def integrity_error(problems: list[str]) -> str | None:
    """The report's `error` field (SPEC §9.4) for a list of problems, or None."""
    return f"trace integrity: {problems[0]}" if problems else None
