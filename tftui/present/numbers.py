"""Number formats: durations, token counts and cost, the same in every front end.

`1.5s`, `12.3k tok`, `$0.0018`: the debugger's tree and header, `tftui run`'s lines and
summary, `tftui runs` and `tftui replay --print` all format through these functions.

Unknown is never zero (README "Cost and usage"): a usage record counts the calls of unknown
cost (`unpriced`: answered without a cost, or failed with tokens but no cost) and the answered
calls with no usage at all (`untracked`). A cost with unpriced calls reads `cost unknown`, or
`≥ $X (some calls unpriced)` when some calls were priced; tokens of untracked calls read `? tok` (or `≥ N tok`); JSON gives null (`cost_json`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

TOKENS_UNIT = "tok"  # `12.3k tok`; the tree's narrow labels write `12.3kt`


def format_duration(ms: float | None) -> str:
    """`340ms`, `1.5s`, `2m05s`, `1h02m`; '' when unknown, not finite or under a millisecond."""
    if ms is None or not math.isfinite(ms) or ms < 1:
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


def not_spent_again(tokens: int, unrecorded: int, what: str = "recorded tokens") -> str:
    """What replaying recorded calls saved: `1.2k recorded tokens not spent again`; calls whose
    recording holds no usage are unknown, never a 0 (`? recorded tokens …: 2 calls recorded none`)."""
    if not unrecorded:
        return f"{format_tokens(tokens)} {what} not spent again"
    amount = f"≥ {format_tokens(tokens)}" if tokens else "?"
    calls = "1 call" if unrecorded == 1 else f"{unrecorded} calls"
    return f"{amount} {what} not spent again: {calls} recorded none"


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
    """The summed known cost (a lower bound when `cost_known` is False)."""
    if not usage:
        return 0.0
    value = usage.get("cost")
    return float(value) if isinstance(value, (int, float)) else 0.0


def unpriced_calls(usage: Mapping[str, object] | None) -> int:
    """Calls whose cost is not known (no prices, no usage reported at all, a failed call's tokens without a cost)."""
    return _int(usage.get("unpriced")) if usage else 0


def untracked_calls(usage: Mapping[str, object] | None) -> int:
    """Answered calls that reported no usage at all (a CLI agent): their tokens are not known."""
    return _int(usage.get("untracked")) if usage else 0


def calls_text(count: int) -> str:
    """A run's call count (`present.run_calls`) as every front end words it: `5 calls`, `1 call`
    (`tftui run`'s summary, `tftui runs`, `tftui replay --print`; the debugger's Info says
    `Calls: 5`). Calls, not attempts: a phase's attempts are its own count (a loop's 3
    iterations are 3 calls in 1 attempt, docs/language.md §2.2)."""
    return f"{count} call{'s' if count != 1 else ''}"


def cost_known(usage: Mapping[str, object] | None) -> bool:
    return unpriced_calls(usage) == 0


def cost_json(usage: Mapping[str, object] | None) -> float | None:
    """`costUSD` in JSON output: the cost, or None (null) when some call's cost is unknown."""
    return round(usage_cost(usage), 6) if cost_known(usage) else None


def tokens_known(usage: Mapping[str, object] | None) -> bool:
    """False when calls were made and none of them reported its tokens (a CLI agent): the count
    is unknown, not 0. One rule for the debugger, `tftui run`, `runs` and `--json`."""
    return not (untracked_calls(usage) and not usage_tokens(usage))


def spend_tokens_count(usage: Mapping[str, object] | None) -> str:
    """`489`; `?` when no call reported usage; `≥ 489` when some did not (a column: `tftui runs`)."""
    tokens = usage_tokens(usage)
    if not untracked_calls(usage):
        return format_tokens(tokens)
    return f"≥ {format_tokens(tokens)}" if tokens_known(usage) else "?"


def spend_tokens_text(usage: Mapping[str, object] | None) -> str:
    """`489 tok`, `? tok`, `≥ 489 tok` (see `spend_tokens_count`)."""
    return f"{spend_tokens_count(usage)} {TOKENS_UNIT}"


def spend_cost_variants(usage: Mapping[str, object] | None) -> tuple[str, ...]:
    """The cost, fullest first: `$0.002`; `cost unknown`; `≥ $0.002 (some calls unpriced)`, `≥ $0.002`."""
    cost = usage_cost(usage)
    if cost_known(usage):
        return (format_cost(cost),)
    if not cost:
        return ("cost unknown", "$?")
    return (f"≥ {format_cost(cost)} (some calls unpriced)", f"≥ {format_cost(cost)}")


def spend_cost_text(usage: Mapping[str, object] | None) -> str:
    """A total's cost (`tftui run`'s summary, `tftui runs`, the header): see `spend_cost_variants`."""
    return spend_cost_variants(usage)[0]


def spent(usage: Mapping[str, object] | None) -> bool:
    """Some call was answered or reported usage (a usage dict of engine/state.py's keys)."""
    if not usage:
        return False
    return usage_cost(usage) > 0 or any(_int(usage.get(key)) for key in ("turns", "unpriced", "untracked", "input",
                                                                         "output"))


def earlier_spend_variants(earlier: Mapping[str, object] | None) -> tuple[str, ...]:
    """What a run's total says of the spend on results a partial re-run replaced (`earlier`: in
    the total, on no phase's row any more), fullest first: `incl. 400 tok $0.001 of earlier
    runs`, `incl. earlier runs`, `incl. earlier`; () when there was none (README "Cost and usage")."""
    if not spent(earlier):
        return ()
    before = spend_tokens_text(earlier)
    if not (cost_known(earlier) and not usage_cost(earlier)):
        before += f" {spend_cost_variants(earlier)[-1]}"
    return (f"incl. {before} of earlier runs", "incl. earlier runs", "incl. earlier")


def spend_variants(usage: Mapping[str, object] | None, earlier: Mapping[str, object] | None = None,
                   budget: str | None = None) -> tuple[str, ...]:
    """A run's total spend, fullest first: `489 tok $0.002`, with the flow's `budget` right after
    the total in the fullest forms (`489 tok $0.002 / 10k tok`). It sums every call of the run, and
    every form says so when part of it is on no phase's row (`earlier_spend_variants`), after the
    budget: `500 tok $0.005 / 10k tok, incl. earlier runs`."""
    tokens = spend_tokens_text(usage)
    costs = spend_cost_variants(usage)
    known_zero = cost_known(usage) and not usage_cost(usage)
    totals = [tokens] if known_zero else [f"{tokens} {cost}" for cost in costs]
    capped = [f"{totals[0]} / {budget}"] if budget else []
    said = earlier_spend_variants(earlier)
    if not said:
        return tuple(dict.fromkeys([*capped, *totals]))
    forms = [*(f"{cap}, {words}" for cap in capped for words in said[:2]),
             f"{totals[0]} {said[0]}", f"{totals[0]} {said[1]}", f"{totals[-1]} {said[2]}"]
    return tuple(dict.fromkeys(forms))


def usage_text(usage: Mapping[str, object] | None) -> str:
    """`120t $0.0004` (the tree's narrow form); `120t $?` when the cost is not known, `?t` when
    no usage was reported; '' when no call was answered (nothing spent)."""
    tokens = usage_tokens(usage)
    cost = usage_cost(usage)
    untracked = untracked_calls(usage)
    parts = []
    if tokens:
        parts.append(f"{'≥' if untracked else ''}{format_tokens(tokens)}t")
    elif untracked:
        return "?t"
    if not cost_known(usage):
        parts.append(f"≥{format_cost(cost)}" if cost else "$?")
    elif cost:
        parts.append(format_cost(cost))
    return " ".join(parts)


def _int(value: object) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    return 0
