"""Number formats: durations, token counts and cost, the same in every front end.

`1.5s`, `12.3k tok`, `$0.0018`: the debugger's tree and header, `tftui run`'s lines and
summary, `tftui runs` and `tftui replay --print` all format through these functions.
"""

from __future__ import annotations

from collections.abc import Mapping

TOKENS_UNIT = "tok"  # `12.3k tok`; the tree's narrow labels write `12.3kt`


def format_duration(ms: float | None) -> str:
    """`340ms`, `1.5s`, `2m05s`, `1h02m`; '' when unknown or under a millisecond."""
    if ms is None or ms < 1:
        return ""
    if ms < 1000:
        return f"{int(ms)}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def elapsed_text(ms: float | None) -> str:
    """A duration that is always shown (a column, the run's elapsed time): `0ms` at least."""
    return format_duration(ms) or "0ms"


def format_tokens(n: float | int) -> str:
    """`950`, `12.3k`, `1.2M`."""
    n = int(n)
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def tokens_text(n: float | int) -> str:
    """`12.3k tok`."""
    return f"{format_tokens(n)} {TOKENS_UNIT}"


def format_cost(cost: float | int | None) -> str:
    """`$0.00`, `$0.0018` (under a cent), `$0.123`, `$12.50`; '' when not known."""
    if cost is None:
        return ""
    if cost == 0:
        return "$0.00"
    if abs(cost) < 0.01:
        return f"${cost:.4f}"
    return f"${cost:.3f}" if abs(cost) < 10 else f"${cost:.2f}"


def usage_tokens(usage: Mapping[str, object] | None) -> int:
    """Input plus output tokens of a usage record (bad values count as 0)."""
    if not usage:
        return 0
    return _int(usage.get("input")) + _int(usage.get("output"))


def usage_cost(usage: Mapping[str, object] | None) -> float:
    if not usage:
        return 0.0
    value = usage.get("cost")
    return float(value) if isinstance(value, (int, float)) else 0.0


def usage_text(usage: Mapping[str, object] | None) -> str:
    """`120t $0.0004` (the tree's narrow form); '' when nothing was spent."""
    tokens = usage_tokens(usage)
    cost = usage_cost(usage)
    parts = []
    if tokens:
        parts.append(f"{format_tokens(tokens)}t")
    if cost:
        parts.append(format_cost(cost))
    return " ".join(parts)


def _int(value: object) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    return 0
