"""Retry policy (docs/retry.md): transient classification, backoff curve, attempt budgets.

The attempt loop itself (which needs the run for events, budget and the debugger)
is `tftui.engine.calls.call_with_retry`; the decisions it takes live here as pure
functions so they can be tested against the conformance vectors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TypeAlias

from tftui.flow.model import Retry
from tftui.lang.values import JS_WS_CLASS, is_number

# A phase's retry block: the flow's `Retry` model, the block as written (a conformance vector's
# `retry`, a test's dict) or None when the phase has none.
RetryPolicy: TypeAlias = Retry | Mapping[str, object] | None

# JS `\b` is ASCII-only; `re.ASCII` keeps `\b` and case folding ASCII (JS without /u does
# not fold non-ASCII letters onto ASCII ones), and `\s` is spelled out as JS whitespace.
_W = "[A-Za-z0-9_]"


def _word(num: str) -> str:
    return f"(?<!{_W}){num}(?!{_W})"


_TRANSIENT_RE = re.compile(
    "|".join(
        [
            f"rate(?:_|{JS_WS_CLASS}|-)?limit",
            r"too[ \t\n\r]+many[ \t\n\r]+requests",
            "overloaded",
            _word("429"),
            _word("502"),
            _word("503"),
            _word("504"),
            r"service[ \t\n\r]+unavailable",
            r"temporarily[ \t\n\r]+unavailable",
            "timeout",
            r"timed?[ \t\n\r]+out",
            "econnreset",
            "etimedout",
            r"socket[ \t\n\r]+hang[ \t\n\r]*up",
        ]
    ),
    re.IGNORECASE | re.ASCII,
)

TRANSIENT_MAX_ATTEMPTS = 3  # the transient layer retries while k < 3 (docs/retry.md §3)
DEFAULT_BASE_MS = 2000
DEFAULT_FACTOR = 2
MAX_DELAY_MS = 60000


def is_transient(
    message: str | None,
    *,
    stderr: str | None = "",
    output: str | None = "",
    stop_reason: str | None = None,
    idle_timeout: bool = False,
    phase_timeout: bool = False,
) -> bool:
    """docs/retry.md §2 text test over `message + " " + stderr + " " + output`.

    Aborts, idle timeouts and phase timeouts are never transient. The caller must also
    exclude contract violations explicitly (D5): the text test alone would say transient
    for `Output contract violated: timeout field missing`.
    """
    if stop_reason == "aborted" or idle_timeout or phase_timeout:
        return False
    return transient_match(f"{message or ''} {stderr or ''} {output or ''}") is not None


def transient_match(text: str) -> str | None:
    """The piece of `text` that makes a failure transient (docs/retry.md §2 pattern), or None."""
    match = _TRANSIENT_RE.search(text)
    return match.group(0) if match else None


def _field(retry: RetryPolicy, name: str, alias: str | None = None) -> object:
    if retry is None:
        return None
    if isinstance(retry, Mapping):
        if alias is not None and alias in retry:
            return retry[alias]
        return retry.get(name)
    return getattr(retry, name, None)


def js_round(value: float) -> int:
    """JS Math.round: halves round up (2.5 -> 3, -2.5 -> -2)."""
    return math.floor(value + 0.5)


def backoff_ms(retry: RetryPolicy, attempt: int) -> int:
    """Delay before the retry that follows failed attempt `attempt` (0-based), docs/retry.md §3.3 + D4.

    `retry` is the phase's retry block (a mapping with `backoffMs`/`factor`, or the
    pydantic `Retry` model) or None. An explicit `backoffMs` gives base = backoffMs and
    factor = `retry.factor` (default 1); otherwise 2000 ms x 2^attempt (the transient
    defaults, also for an explicit block without backoffMs).
    """
    base_raw = _field(retry, "backoff_ms", "backoffMs")
    if is_number(base_raw) and math.isfinite(base_raw):
        factor_raw = _field(retry, "factor")
        factor = factor_raw if is_number(factor_raw) and math.isfinite(factor_raw) else 1
        base = float(base_raw)
    else:
        base, factor = float(DEFAULT_BASE_MS), DEFAULT_FACTOR
    try:
        raw = base * (float(factor) ** max(0, attempt))
    except OverflowError:
        return MAX_DELAY_MS
    if not math.isfinite(raw):
        return MAX_DELAY_MS
    return max(0, min(MAX_DELAY_MS, js_round(raw)))


# What the OpenAI-compatible runner appends when the answer had a `Retry-After` header
# (tftui/agents/openai.py); a provider's own "retry after 20s" sentence reads the same.
_RETRY_AFTER_RE = re.compile(r"(?i)\bretry[ -]after:?[ \t]+([0-9]+(?:\.[0-9]+)?)[ \t]*s\b")


def retry_after_ms(text: str | None) -> int | None:
    """The wait the provider asked for in a failure text (`(retry after 5s)`), in ms, or None."""
    match = _RETRY_AFTER_RE.search(text or "")
    if match is None:
        return None
    try:
        value = float(match.group(1)) * 1000
    except (ValueError, OverflowError):
        return None
    return js_round(value) if math.isfinite(value) else MAX_DELAY_MS


def backoff_honouring_retry_after(retry: RetryPolicy, attempt: int, error: str | None) -> tuple[int, int | None]:
    """(delay, retry_after): the policy's backoff raised to at least the provider's `Retry-After`,
    the whole capped at 60 s (`MAX_DELAY_MS`); retry_after is None when the failure named none."""
    delay = backoff_ms(retry, attempt)
    asked = retry_after_ms(error)
    if asked is None:
        return delay, None
    asked = min(asked, MAX_DELAY_MS)
    return max(delay, asked), asked


def explicit_max(retry: RetryPolicy) -> int:
    """`1 + max(0, floor(retry.max or 0))`: attempts allowed by the explicit policy."""
    raw = _field(retry, "max")
    if not is_number(raw) or not math.isfinite(raw):
        return 1
    return 1 + max(0, math.floor(raw))


def max_attempts(retry: RetryPolicy) -> int:
    """Total attempt budget: `max(explicitMax, 1 + 3)` (docs/retry.md §3)."""
    return max(explicit_max(retry), 1 + TRANSIENT_MAX_ATTEMPTS)


def should_retry(*, attempt: int, retry: RetryPolicy, transient: bool, idempotent: bool) -> bool:
    """After failed attempt `attempt` (0-based): may another attempt follow? (docs/retry.md §3)

    Timeouts, aborts and budget stops are the caller's business (they stop before this).
    `transient` must already be False for contract violations (D5).
    """
    if attempt + 1 >= max_attempts(retry):
        return False
    within_explicit = attempt < explicit_max(retry) - 1
    within_transient = transient and idempotent and attempt < TRANSIENT_MAX_ATTEMPTS
    return within_explicit or within_transient


# Why a failed attempt is its node's last (docs/retry.md §3): the attempt loop's own decision,
# carried by `AttemptFailed.stop`, so every front end words the engine's reason, never its own guess.
STOP_BUDGET = "budget"  # the run is over its budget (docs/retry.md §3.1)
STOP_CONTRACT = "contract"  # an output-contract violation is never transient; retry.max allows no more
STOP_NOT_IDEMPOTENT = "not-idempotent"  # transient, but `idempotent: false`: no automatic retry
STOP_RETRIES_USED = "retries-used"  # transient: the automatic retries and retry.max are used up
STOP_NOT_TRANSIENT = "not-transient"  # not transient, and retry.max (if any) allows no more
STOP_TIMEOUT = "timeout"  # a phase timeout is never retried
STOP_ABORTED = "aborted"  # the call was aborted (a user abort, a lost race)


def retry_decision(
    *, attempt: int, retry: RetryPolicy, transient: bool, idempotent: bool, over_budget: bool = False, contract: bool = False
) -> tuple[bool, str]:
    """After failed attempt `attempt` (0-based): (another attempt follows, and if not, why: a
    STOP_* reason; '' when it does). `transient` is already False for a contract violation."""
    if over_budget:
        return False, STOP_BUDGET
    if should_retry(attempt=attempt, retry=retry, transient=transient, idempotent=idempotent):
        return True, ""
    if contract:
        return False, STOP_CONTRACT
    if not transient:
        return False, STOP_NOT_TRANSIENT
    if not idempotent and attempt < TRANSIENT_MAX_ATTEMPTS:
        return False, STOP_NOT_IDEMPOTENT
    return False, STOP_RETRIES_USED


def recorded_stop(*, attempt: int, transient: bool, why: str, will_retry: bool) -> str:
    """The STOP_* reason of a failed attempt recorded without one (a journal written before
    `AttemptFailed.stop` existed), from what it does record: within the first
    TRANSIENT_MAX_ATTEMPTS attempts only `idempotent: false` stops a transient error, since the
    attempt budget is never under 1 + TRANSIENT_MAX_ATTEMPTS (`max_attempts`)."""
    if will_retry:
        return ""
    if why in (STOP_BUDGET, STOP_CONTRACT, STOP_TIMEOUT, STOP_ABORTED):
        return why
    if not transient:
        return STOP_NOT_TRANSIENT
    return STOP_NOT_IDEMPOTENT if attempt < TRANSIENT_MAX_ATTEMPTS else STOP_RETRIES_USED
