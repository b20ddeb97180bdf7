"""A gate's evaluation history as words: which evaluation a record is, and its verdict line.

`tftui.engine.gate_history` keeps the records (every verdict of every gate, from the events).
"""

from __future__ import annotations

from tftui.engine.gate_history import GateRecord


def evaluation_label(rec: GateRecord) -> str:
    """`first evaluation`, `round 2`, `re-run 1 · first evaluation`."""
    parts = [f"round {rec.round}" if rec.round else "first evaluation"]
    if rec.run:
        parts.insert(0, f"re-run {rec.run}")
    return " · ".join(parts)


def verdict_line(rec: GateRecord) -> str:
    """`BLOCK (source: judge) — reason`, or `FAILED — error` when the gate's call failed."""
    if rec.status == "failed":
        return f"FAILED — {rec.error or 'gate call failed'}"
    text = f"{(rec.verdict or '?').upper()} (source: {rec.source})"
    return f"{text} — {rec.reason}" if rec.reason else text
