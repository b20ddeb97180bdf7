"""Secrets never belong in a run journal: what gets replaced before an event is written.

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
_TEXT_SECRET_RES = (
    re.compile(r"(?i)(\bauthorization\s*[:=]\s*(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{16,}"),
)


def _is_secret_key(key: str) -> bool:
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
            k: (REDACTED if isinstance(k, str) and _is_secret_key(k) and v not in (None, "") else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _redact_text(value)
    return value
