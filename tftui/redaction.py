"""The one redaction policy: what a credential looks like, and how it is shown (`…` + last 4).

It sits at the bottom of the package (it imports only the standard library) because both the
agents (their error texts) and the engine (the journal) need it, and everything above them
(config display, run output, bundles, the debugger) calls the same functions.

Masking is by value and by shape:

- **by value**: every configured secret, registered with `register_secret` when a runner or
  the config display reads it (an `api_key_env` value, every header value of a provider, a
  command's environment values under secret-looking names), or passed as `secrets=`. Values
  shorter than `MIN_SECRET_LEN` are not searched for in free text (they are placeholders such
  as "ollama", and masking every occurrence would corrupt ordinary answers).
- **by shape**: `Bearer`/`Basic` tokens, `sk-`/`pk-` style keys, `api_key=…` / `token=…` /
  `secret=…` / `password=…` in free text, `Cookie:` / `Set-Cookie:` lines, and any header
  (in text or in a `headers` mapping) whose name contains key, token, auth, secret, cookie or
  session. In data, values under secret-named keys (`api_key`, `apiKey`, `Authorization`,
  `*_secret`, `cookie`, …) are masked whole.

The masked form is `…` followed by the value's last 4 characters (`…` alone for values
shorter than 12 characters, which would otherwise show too much of themselves).

Cost: `redact` walks a value; the journal first checks a serialized line with
`might_contain_secret` (substring tests) and only then redacts. Every secret key, every shape
below and every registered secret contains one of the needles, so the pre-check never lets a
secret through (tests/engine/test_redaction_fast.py checks this).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import TypeVar, cast

MASK = "…"
MIN_SECRET_LEN = 8
_SHOW_TAIL_FROM = 12

_registered: set[str] = set()
# What the pre-checks look for: every registered secret as it is and as it reads inside JSON
# text (a `"`, `\\` or control character escaped; non-ASCII as `\\uXXXX` too), since they run on
# serialized lines; `redact` masks the decoded value (`_registered`).
_registered_forms: set[str] = set()


def _add_registered(value: str) -> None:
    _registered.add(value)
    _registered_forms.add(value)
    _registered_forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
    _registered_forms.add(json.dumps(value)[1:-1])


def register_secret(value: object) -> None:
    """Remember a configured secret: from now on every `redact` call masks it wherever it appears."""
    if isinstance(value, str):
        value = value.strip()
        if len(value) >= MIN_SECRET_LEN:
            _add_registered(value)
            scheme, sep, token = value.partition(" ")
            if sep and scheme.lower() in _SCHEMES and len(token.strip()) >= MIN_SECRET_LEN:
                _add_registered(token.strip())  # "Bearer X": X alone is the secret too


def forget_secrets() -> None:
    """Drop every registered secret (tests use this between cases)."""
    _registered.clear()
    _registered_forms.clear()


def mask(value: str | None) -> str:
    """The display form of a secret: `…` + its last 4 characters (`…` alone when short)."""
    if not value:
        return ""
    return MASK + value[-4:] if len(value) >= _SHOW_TAIL_FROM else MASK


def is_masked(value: object) -> bool:
    """Whether `value` is what `mask` returns (a run argument that must be given again)."""
    return isinstance(value, str) and value.startswith(MASK) and len(value) <= 1 + 4


# ── names ─────────────────────────────────────────────────────────────────────────────

_SCHEMES = ("bearer", "basic", "token")
# Data keys whose values are secrets, compared after normalising camelCase/dashes to snake_case.
_SECRET_KEYS = frozenset(
    {
        "api_key", "apikey", "authorization", "proxy_authorization", "password", "passwd",
        "secret", "client_secret", "access_token", "refresh_token", "id_token", "bearer_token",
        "auth_token", "token", "x_api_key", "private_key", "cookie", "set_cookie", "session",
        "session_id", "session_token",
    }
)
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_secret", "_password", "_token", "_cookie", "_auth")
# A header name containing one of these is a credential header (`X-Portkey-Api-Key`,
# `cf-aig-authorization`, `Cookie`, `X-Session-Id`, …).
_HEADER_WORDS = ("key", "token", "auth", "secret", "cookie", "session", "passw")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_secret_key(key: str) -> bool:
    """Whether the value under a data key `key` is a secret (usage fields such as `input_tokens` are not)."""
    norm = _CAMEL_RE.sub("_", key).lower().replace("-", "_").strip("_")
    return norm in _SECRET_KEYS or norm.endswith(_SECRET_SUFFIXES)


def is_secret_header(name: str) -> bool:
    """Whether a header called `name` carries a credential (its value is always masked)."""
    low = name.lower()
    return any(word in low for word in _HEADER_WORDS)


_ENV_SECRET_RE = re.compile(r"(?i)(?:^|_)(?:api_?key|key|token|secret|password|passwd|auth|cookie)$|api_?key")


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable called `name` holds a credential (`OPENAI_API_KEY`, `GH_TOKEN`)."""
    return bool(_ENV_SECRET_RE.search(name))


def mask_header_value(value: str) -> str:
    """`Bearer …abcd` for `Bearer <token>`; any other value is masked whole."""
    scheme, sep, token = value.strip().partition(" ")
    if sep and scheme.lower() in _SCHEMES:
        return f"{scheme} {mask(token.strip())}"
    return mask(value)


# ── shapes in free text ───────────────────────────────────────────────────────────────
# ASCII-only case folding (`a`): Unicode folding would also match e.g. a dotless `ı`, which
# `str.lower()` in the pre-checks does not turn into `i`.

_TOKEN = r"[A-Za-z0-9._~+/=:-]"
_NAME = (
    r"(?ai)(\b(?:[a-z0-9]+[-_])*(?:api[-_]?key|key|[a-z]*token|auth|authorization|secret|passw(?:or)?d"
    r"|session(?:[-_]?id)?)[\"']?\s*[:=]\s*[\"']?"
)
_TEXT_SECRET_RES: tuple[re.Pattern[str], ...] = (
    # a header line or JSON pair whose name holds a credential word: `X-Api-Key: v`,
    # `"cf-aig-authorization": "Bearer v"`, `api_key=v`, `token=v`; without a scheme word the
    # value must hold a digit (credentials do; "Authorization: required" is prose)
    re.compile(_NAME + r"(?:bearer|basic|token)\s+)(" + _TOKEN + r"{8,})"),
    re.compile(_NAME + r")(?=[^\s\"',;]*[0-9])(" + _TOKEN + r"{8,})"),
    # cookies: the whole value up to the end of the line or a closing quote
    re.compile(r"(?ai)(\b(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?)([^\r\n\"']{4,})"),
    re.compile(r"(?ai)(\b(?:bearer|basic)\s+)(" + _TOKEN + r"{8,})"),
    re.compile(r"(?a)()(\b[sp]k-[A-Za-z0-9_-]{12,})"),
)
# Lower-case fragments: every secret key, header word, and shape above contains one.
_TEXT_NEEDLES = ("key", "token", "auth", "secret", "passw", "session", "cookie", "bearer", "basic", "sk-", "pk-")
_NEEDLES = (*_TEXT_NEEDLES, "private")


def _has_text_needle(low: str) -> bool:
    # _TEXT_NEEDLES unrolled: one C-level substring test each, no generator (this runs on every
    # journal line; tests/engine/test_redaction_fast.py checks it against _TEXT_NEEDLES)
    return (
        "key" in low or "token" in low or "auth" in low or "secret" in low or "passw" in low
        or "session" in low or "cookie" in low or "bearer" in low or "basic" in low or "sk-" in low
        or "pk-" in low
    )


def might_contain_text_secret(text: str) -> bool:
    """Cheap pre-check for free text: False guarantees `redact(text) == text`."""
    # (the two checks inlined as calls only where needed: this runs on every journal line)
    return _has_text_needle(text.lower()) or (bool(_registered) and holds_registered_secret(text))


def has_text_needle(text: str) -> bool:
    """The part of `might_contain_text_secret` that depends on `text` alone (a caller may keep it
    for a text it meets again; the registered secrets can change, `holds_registered_secret`)."""
    return _has_text_needle(text.lower())


def holds_registered_secret(text: str) -> bool:
    """Whether a secret registered so far (`register_secret`) occurs in `text`, as it is or as
    it reads inside JSON text (a serialized line: `pa\\"ss` for `pa"ss`)."""
    return bool(_registered_forms) and any(secret in text for secret in _registered_forms)


def might_contain_secret(text: str) -> bool:
    """Cheap pre-check: False guarantees `redact` leaves a value serializing to `text` unchanged."""
    return has_secret_needle(text) or holds_registered_secret(text)


def has_secret_needle(text: str) -> bool:
    """The part of `might_contain_secret` that depends on `text` alone (a caller may keep it for
    a text it meets again; the registered secrets can change, `holds_registered_secret`)."""
    low = text.lower()
    return _has_text_needle(low) or "private" in low


def _mask_match(m: re.Match[str]) -> str:
    value = m.group(2)
    if value.startswith(MASK) or MASK in value[:2]:
        return m.group(0)
    return m.group(1) + mask(value)


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every known secret and every credential-shaped fragment masked. Never raises."""
    if len(text) < MIN_SECRET_LEN:
        return text
    known = {s for s in secrets if s and len(s) >= MIN_SECRET_LEN} | _registered
    for secret in sorted(known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, mask(secret))
    for pattern in _TEXT_SECRET_RES:
        text = pattern.sub(_mask_match, text)
    return text


def redact_known(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Mask only known secrets (given and registered), no shapes: for a model's answer, which
    feeds the next phase and may legitimately show `Bearer <placeholder>` examples."""
    known = {s for s in secrets if s and len(s) >= MIN_SECRET_LEN} | _registered
    for secret in sorted(known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, mask(secret))
    return text


T = TypeVar("T")


def redact(value: T, secrets: Iterable[str | None] = ()) -> T:
    """A copy of `value` (text, or JSON-like data of dicts, lists and tuples) with credentials masked."""
    return cast("T", _redact(value, tuple(s for s in secrets if s), False))  # same shape as `value`


def _redact(value: object, secrets: tuple[str, ...], headers: bool) -> object:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, Mapping):
        out: dict[object, object] = {}
        for key, item in value.items():
            secret = isinstance(key, str) and (is_secret_key(key) or (headers and is_secret_header(key)))
            if secret and isinstance(item, str) and item:
                out[key] = mask_header_value(item)
            elif secret and item not in (None, "") and not isinstance(item, bool):
                out[key] = MASK  # a number or a structure under a secret name: hidden whole
            else:
                out[key] = _redact(item, secrets, isinstance(key, str) and key.lower() == "headers")
        return out
    if isinstance(value, list):
        return [_redact(v, secrets, False) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, secrets, False) for v in value)
    return value
