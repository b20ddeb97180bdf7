"""Secrets never belong in a run journal: what gets replaced before an event is written.

Cost model: `redact` walks a whole value, which is far too slow to run on every journal
line. The journal serializes first and calls `might_contain_secret(line)` — a handful of
substring tests on the lower-cased line — and only runs the full `redact` when one of the
needles is present. Every secret key and every free-text pattern below contains at least
one needle (tests/engine/test_redaction_fast.py checks this), so the pre-check never
lets a secret through; it only has false positives (prose mentioning "token"), which
take the slow path and come out unchanged.

Values under secret-named keys (`api_key`, `apiKey`, `Authorization`, `x-api-key`, `*_secret`,
…) become `[redacted]`; inside free text only credential-shaped fragments are replaced
(`Authorization: Bearer <token>`, `Bearer <long token>`, `sk-…` keys), because journaled
outputs feed resumed runs and ordinary prose must survive unchanged.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"

# Keys whose values are secrets, compared after normalising camelCase/dashes to snake_case.
_SECRET_KEYS = frozenset(
    {
        "api_key",
        "apikey",
        "authorization",
        "proxy_authorization",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "access_token",
        "refresh_token",
        "id_token",
        "bearer_token",
        "auth_token",
        "x_api_key",
        "private_key",
        "cookie",
        "set_cookie",
    }
)
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_secret", "_password")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Credential-looking fragments inside free text (an error message quoting a header, a key).
# ASCII-only case folding (`a`): Unicode folding would also match e.g. a dotless `ı`, which
# `str.lower()` in the pre-check below does not turn into `i`.
_TEXT_SECRET_RES = (
    re.compile(r"(?ai)(\bauthorization\s*[:=]\s*(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?ai)(\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{16,}"),
)


# Lower-case fragments, one of which every secret key (any casing/separator) and every
# credential pattern of _TEXT_SECRET_RES contains.
_NEEDLES = (
    "apikey",
    "api_key",
    "api-key",
    "authoriz",
    "passw",
    "secret",
    "token",
    "private",
    "cookie",
    "bearer",
    "sk-",
)


# The subset of _NEEDLES that every _TEXT_SECRET_RES match contains: enough for a value
# that is free text under a key known not to be secret (a prompt, an output).
_TEXT_NEEDLES = ("authoriz", "bearer", "sk-")


def might_contain_text_secret(text: str) -> bool:
    """Cheap pre-check for free text: False guarantees `redact(text) == text`."""
    low = text.lower()
    return "authoriz" in low or "bearer" in low or "sk-" in low


def might_contain_secret(text: str) -> bool:
    """Cheap pre-check: False guarantees `redact` would leave a value serializing to `text` unchanged."""
    low = text.lower()
    for needle in _NEEDLES:
        if needle in low:
            return True
    return False


def is_secret_key(key: str) -> bool:
    """Whether `redact` replaces the value under `key`."""
    norm = _CAMEL_RE.sub("_", key).lower().replace("-", "_").strip("_")
    return norm in _SECRET_KEYS or norm.endswith(_SECRET_SUFFIXES)



def _redact_text(text: str) -> str:
    if len(text) < 8:
        return text
    for pattern in _TEXT_SECRET_RES:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact(value: Any) -> Any:
    """A copy of `value` with secret-keyed values and secret-looking text replaced by `[redacted]`."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and is_secret_key(k) and v not in (None, "") else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _redact_text(value)
    return value
