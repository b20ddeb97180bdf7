"""Trace integrity (SPEC §9.4): is the telemetry itself trustworthy?

Run before any rule, on the trace as loaded (ids as the recorder wrote them, so messages
point at the file). A failure is an instrumentation error: rules are not evaluated and
`tftui gate` exits 3.
"""

from __future__ import annotations

import math
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


def check_columns(cols: TraceColumns) -> list[str]:
    """Every failed check, in SPEC §9.4 order (the first one is the reported error); [] when sound."""
    problems: list[str] = []

    def add(message: str) -> bool:
        problems.append(message)
        return len(problems) >= _MAX_PROBLEMS

    ids = cols.ids
    # Ids must be unique, or parent links are ambiguous.
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for step_id in ids:
            if step_id in seen and add(f"duplicate id {step_id}"):
                return problems
            seen.add(step_id)
    known = set(ids)
    for step_id, parent in zip(ids, cols.parent_ids, strict=True):
        if parent is not None and parent not in known and add(f"unknown parent {parent} for step {step_id}"):
            return problems

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
        for step_id, value in zip(ids, column, strict=True):
            if value is not None and _bad_number(value) and add(f"non-finite or negative {field} on step {step_id}"):
                return problems
    for step_id, attempt in zip(ids, cols.attempts, strict=True):
        # SPEC §9.1: attempt is an integer ≥ 1 (0 would be a 0-based counter leaking into the trace).
        if attempt is not None and attempt == 0 and add(f"attempt {_num(attempt)} below 1 on step {step_id}"):
            return problems

    with_metadata = [(i, m) for i, m in zip(ids, cols.metadata, strict=True) if m]
    for step_id, metadata in with_metadata:
        for key, value in metadata.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and _bad_number(value):
                if add(f"non-finite or negative metadata.{key} on step {step_id}"):
                    return problems
    for step_id, metadata in with_metadata:
        for key in metadata:
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
