"""Keeping secrets out of results, errors, logs and the `tftui config` display.

`redact(value, secrets)` returns a copy of text or nested JSON-like data where every known
secret, every `Authorization` / `api-key` style header value and every `sk-…` looking key is
replaced by its masked form. `mask(secret)` is the display form: `sk-…abcd`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# Header (and config key) names whose values are credentials.
SECRET_HEADER_NAMES = frozenset(
    {"authorization", "proxy-authorization", "api-key", "x-api-key", "api_key", "apikey", "x-goog-api-key"}
)
# Secrets shorter than this are not searched for in free text: masking every "ollama" or "x"
# in a model's answer would corrupt it, and such values are placeholders, not credentials.
MIN_SECRET_LEN = 8

_HEADER_IN_TEXT = re.compile(
    r"(?i)\b(authorization|proxy-authorization|x-api-key|api[-_]?key|x-goog-api-key)"
    r"""(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?([^\s"',;]+)"""
)
_KEY_LIKE = re.compile(r"\b(sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{12,})")


def mask(secret: str | None) -> str:
    """`sk-proj-abc…wxyz` → `sk-…wxyz`; short values are fully hidden."""
    if not secret:
        return ""
    if len(secret) < 12:
        return "****"
    prefix = secret[:3] if secret[:3].isascii() else ""
    return f"{prefix}…{secret[-4:]}"


def redact(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A copy of `value` (text, dict, list, tuple) with credentials masked. Never raises."""
    known = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True)
    return _redact(value, known)


def redact_known(text: str, secrets: Iterable[str | None]) -> str:
    """Mask only the given secrets (no pattern guessing): safe for model answers, which may
    legitimately contain `Authorization: Bearer <placeholder>` or `sk-…` examples."""
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, mask(secret))
    return text


def _redact(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _redact_text(value, secrets)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and key.lower() in SECRET_HEADER_NAMES and isinstance(item, str):
                out[key] = mask_header_value(item)
            else:
                out[key] = _redact(item, secrets)
        return out
    if isinstance(value, list):
        return [_redact(v, secrets) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, secrets) for v in value)
    return value


def mask_header_value(value: str) -> str:
    """`Bearer sk-…abcd` for `Bearer sk-…`; a bare value is masked whole."""
    scheme, sep, token = value.partition(" ")
    if sep and scheme.lower() in ("bearer", "basic", "token"):
        return f"{scheme} {mask(token.strip())}"
    return mask(value)


def _redact_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, mask(secret))
    text = _HEADER_IN_TEXT.sub(_mask_header_match, text)
    return _KEY_LIKE.sub(lambda m: mask(m.group(1)), text)


def _mask_header_match(m: re.Match[str]) -> str:
    token = m.group(4)
    if "…" in token:  # already masked
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{mask(token)}"
