"""One journal line per event: compact JSON, secrets redacted, as cheaply as possible.

A journal line is written for every event, two per model call, so this is the hot path
of a journaled run. Costs avoided on purpose:
- no per-call encoder construction (json.dumps with kwargs builds one): one prebuilt C
  encoder;
- no deep copies: `event_to_json(plain=False)` shares the event's containers, and the
  MISSING-replacing walk only runs when the encoder actually meets a MISSING;
- no full redaction walk: the serialized line is checked with a few substring tests
  (`might_contain_secret`) and only then redacted and re-serialized; run args are
  always redacted structurally;
- the per-call events (AttemptStarted, AgentReturned) are formatted by hand, with the
  same keys, order and values as the generic path. Their keys are fixed and not secret,
  so only their free-text values need the (shorter) text pre-check
  (`might_contain_text_secret`); a hit sends the event down the generic path.
"""

from __future__ import annotations

import json
from math import isfinite
from typing import Any

from tftui.engine.events import (
    EVENT_TYPES,
    AgentReturned,
    AttemptStarted,
    Event,
    RunStarted,
    UnknownEvent,
    event_to_json,
    plain_json,
)
from tftui.engine.redaction import is_secret_key, might_contain_secret, might_contain_text_secret, redact
from tftui.lang.values import MISSING


def _encode(event: Any, *, plain: bool = True) -> dict[str, Any]:
    if isinstance(event, Event):
        data = event_to_json(event, plain=plain)
        if isinstance(event, RunStarted) and event.args:
            data["args"] = redact(event.args)  # args are where configured secrets arrive
        return data
    return event


class _HasMissing(Exception):
    """Raised by the encoder's `default` when a value holds MISSING (JS undefined)."""


def _default(value: Any) -> Any:
    if value is MISSING:
        raise _HasMissing
    return str(value)


try:  # the C encoder json.dumps uses, built once (json.dumps builds an encoder per call with kwargs)
    from json.encoder import c_make_encoder as _c_make_encoder
    from json.encoder import encode_basestring as _encode_str
except ImportError:  # pragma: no cover - CPython always has _json
    _c_make_encoder = None

if _c_make_encoder is not None:
    _C_ENCODER = _c_make_encoder(None, _default, _encode_str, None, ":", ",", False, False, True)

    def _dumps(data: dict[str, Any]) -> str:
        try:
            return "".join(_C_ENCODER(data, 0))
        except _HasMissing:
            raise
        except (TypeError, ValueError, RecursionError):
            return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
else:  # pragma: no cover

    def _dumps(data: dict[str, Any]) -> str:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_default)


def _attempt_started_line(e: AttemptStarted) -> str | None:
    if might_contain_text_secret("\n".join((e.phase_id, e.node_path, e.prompt, e.agent))):
        return None
    return (
        f'{{"kind":"attempt_started","seq":{e.seq},"ts":{e.ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"node_path":{_encode_str(e.node_path)},"attempt":{e.attempt},"prompt":{_encode_str(e.prompt)},'
        f'"agent":{_encode_str(e.agent)}}}'
    )


# Usage keys written by Usage.to_json; any other key (or a non-number value) takes the generic path.
_USAGE_KEYS = frozenset({"input", "output", "costUSD", "cacheRead", "cacheWrite"})


def _agent_returned_line(e: AgentReturned) -> str | None:
    usage = e.usage
    if usage is not None and not all(
        k in _USAGE_KEYS and (type(v) is int or (type(v) is float and isfinite(v))) for k, v in usage.items()
    ):
        return None
    texts = (e.phase_id, e.node_path, e.output) if e.error is None else (e.phase_id, e.node_path, e.output, e.error)
    if might_contain_text_secret("\n".join(texts)):
        return None
    error = "null" if e.error is None else _encode_str(e.error)
    usage = "null" if usage is None else _dumps(usage)
    return (
        f'{{"kind":"agent_returned","seq":{e.seq},"ts":{e.ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"node_path":{_encode_str(e.node_path)},"attempt":{e.attempt},"output":{_encode_str(e.output)},'
        f'"error":{error},"usage":{usage},"duration_ms":{e.duration_ms!r},'
        f'"timed_out":{"true" if e.timed_out else "false"},"exit_code":{e.exit_code}}}'
    )


# Hand-written lines for the per-call events (two per model call, i.e. most of a journal):
# same keys, order and values as event_to_json + the C encoder, about three times cheaper.
# Only for plain field types; anything unexpected takes the generic path.
_FAST_LINES: dict[type, Any] = {AttemptStarted: _attempt_started_line, AgentReturned: _agent_returned_line}


def _fast_line(event: Any) -> str | None:
    make = _FAST_LINES.get(type(event))
    if make is None or _c_make_encoder is None:
        return None
    if type(event.seq) is not int or type(event.ts) is not float or type(event.attempt) is not int:
        return None
    if type(event) is AgentReturned and (
        type(event.duration_ms) is not float or type(event.exit_code) is not int or not isfinite(event.duration_ms)
    ):
        return None
    if not isfinite(event.ts):
        return None
    try:
        return make(event)
    except (TypeError, AttributeError):  # a non-str text field: the generic encoder (default=str) handles it
        return None


# Top-level keys of a known event's JSON (its field names): fixed and, checked here, not
# secret-named, so a plain string under one of them only needs the free-text pre-check.
_FIELD_KEYS = frozenset(
    name
    for cls in EVENT_TYPES.values()
    if cls is not UnknownEvent
    for name in ("kind", *(f for f in cls.__dataclass_fields__))
    if not is_secret_key(name)
)


def _might_need_redaction(event: Any, data: dict[str, Any], line: str) -> bool:
    """False guarantees `redact(data) == data`. A long model output under a field such as
    `output` is scanned for the three free-text needles only; keys and values of nested
    containers still get the full check (they may hold secret-named keys)."""
    if not isinstance(event, Event) or isinstance(event, UnknownEvent) or len(line) < 4096:
        return might_contain_secret(line)  # arbitrary top-level keys, or too short to matter
    rest: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELD_KEYS:
            return might_contain_secret(line)
        if type(value) is str:
            if might_contain_text_secret(value):
                return True
        elif value is not None and type(value) is not bool and type(value) is not int and type(value) is not float:
            rest[key] = value
    return bool(rest) and might_contain_secret(_dumps(rest))


def encode_line(event: Any) -> str:
    """One journal line (with its newline) for an engine Event or a plain dict, secrets redacted."""
    line = _fast_line(event)
    if line is not None:
        return line + "\n"
    try:
        data = _encode(event, plain=False)
        line = _dumps(data)
    except _HasMissing:  # rare: a parsed value holding MISSING; walk it (MISSING -> omitted / null)
        data = plain_json(_encode(event))
        line = _dumps(data)
    if _might_need_redaction(event, data, line):
        line = _dumps(redact(data))
    return line + "\n"
