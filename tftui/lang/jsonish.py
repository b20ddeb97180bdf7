"""Lenient JSON extraction from model output (docs/language.md §3.4).

Used by `output: "json"`, `{steps.X.json}`, map `over`, the json-schema scorer and
the verdict/judge/winner parsers. Returns MISSING when nothing parses; never raises.
"""

from __future__ import annotations

import json
import re
from typing import NoReturn

import msgspec

from tftui.lang.values import JS_WHITESPACE, MISSING, JSONValue, js_trim

_FENCE = "```"


def _find_fence(text: str, start: int) -> int:
    """`text.find("```", start)`, by the backticks: a one-character find is a memchr, where the
    three-character one compares at every position (on CPython 3.11, ~100 times slower on a
    100 KB reply with no backtick in its body)."""
    find = text.find
    tick = find("`", start)
    for _ in range(16):  # a reply full of inline `code` goes on with the three-character find
        if tick == -1 or text.startswith(_FENCE, tick):
            return tick
        tick = find("`", tick + 1)
    return find(_FENCE, tick) if tick != -1 else -1


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    r"""The fenced blocks of `text` as (info, body), in order (docs/language.md §3.4).

    A block is ```` ```<info>\n<body>``` ````: the info string has no backtick and no newline
    (a `\r` before the newline is not part of it), the body ends at the first ```` ``` ````
    after it. Scanned with one-character finds rather than the equivalent regex
    ```` ```([^`\n]*?)\r?\n([\s\S]*?)``` ````, whose lazy body retries the closing fence at every
    character (3 of the 3.7 ms a fenced 100 KB answer took to parse)."""
    blocks: list[tuple[str, str]] = []
    find = text.find
    start = _find_fence(text, 0)
    while start != -1:
        info_at = start + 3
        newline = find("\n", info_at)
        if newline == -1:
            break  # no line break after any later fence either
        tick = find("`", info_at, newline)
        if tick != -1:  # a backtick in the info string: no block opens here; try one further
            start = _find_fence(text, start + 1)
            continue
        close = _find_fence(text, newline + 1)
        if close == -1:
            break  # nothing closes this block, nor any that could open later
        info_end = newline - 1 if newline > info_at and text[newline - 1] == "\r" else newline
        blocks.append((text[info_at:info_end], text[newline + 1 : close]))
        start = _find_fence(text, close + 3)
    return blocks


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"JSON does not allow {name}")


# One decoder for every call: json.loads(..., parse_constant=...) would build a new one each time.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_FAST = msgspec.json.Decoder()
_SURROGATE_ESCAPE = re.compile(r"\\u[dD]")
_ERROR_AT = re.compile(r"\(byte ([0-9]+)\)$")


def strict_json(text: str) -> JSONValue:
    """JSON.parse: MISSING on any syntax error (NaN/Infinity are not JSON).

    msgspec reads it first (2-3 times faster than `json` on a big reply). It refuses more than
    `json` only in four cases, where `json` reads the text again: lone `\\u` surrogate escapes,
    lone surrogate characters in the text (a provider's reply decoded from a split emoji escape),
    numbers beyond a double (`1e400`, which JSON.parse reads as Infinity) and nesting at the
    interpreter's recursion limit (about 1,000 levels, where either reader gives up a few levels
    before or after the other, as `json` alone already did depending on the caller's stack)."""
    try:
        value: JSONValue = _FAST.decode(text)
        return value
    except _REFUSED as exc:
        return _refused(text, exc)


_REFUSED = (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeEncodeError)


def _refused(text: str, exc: Exception) -> JSONValue:
    """`strict_json(text)` once msgspec refused `text` with `exc`."""
    if type(exc) is msgspec.DecodeError and not _surrogate_escape_before(text, str(exc)):
        return MISSING  # malformed for `json` too
    # a number out of range (ValidationError), an escaped or lone surrogate, or very deep nesting
    return _strict_json_slow(text)


def _surrogate_escape_before(text: str, error: str) -> bool:
    """Whether a `\\ud…`/`\\uD…` escape starts at or before the place msgspec's `error` names
    (`… (byte N)`; the whole text when it names none): only such an escape can make `json` read
    what msgspec refused. The UTF-8 byte offset N is at least the character offset, so the text
    up to character N+1 holds the escape's backslash. A prose reply fails at byte 0 and is done
    with one character compare instead of a scan of its whole length."""
    at = _ERROR_AT.search(error)
    end = int(at.group(1)) + 1 if at is not None else len(text)
    if text.find("\\", 0, end) == -1:  # a one-character find: most texts have no backslash there
        return False
    return _SURROGATE_ESCAPE.search(text, 0, end + 2) is not None


def _strict_json_slow(text: str) -> JSONValue:
    start = len(text) - len(text.lstrip(" \t\n\r"))
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return MISSING
    # raw_decode stops at the value's end; like JSON.parse, only trailing whitespace may follow.
    if text[end:].strip(" \t\n\r"):
        return MISSING
    return value


def lenient_parse(text: object) -> JSONValue:
    """First success of: whole text, fenced blocks (json-tagged first), bracket slice."""
    if type(text) is not str:
        if not isinstance(text, str):
            return MISSING
        text = str(text)
    try:
        # msgspec skips JSON's whitespace around the value, which is all that js_trim would cut
        # from a text that reads as JSON: most replies and targets end here, untrimmed
        value: JSONValue = _FAST.decode(text)
        return value
    except _REFUSED as exc:
        return _lenient(text, exc)


# The last few texts `lenient_parse_recent` parsed: re-reading the same text (onBlock rounds
# with an unchanged output, a gate re-run after editing its scorers, several json-schema scorers
# on one target) parses it once. Values are only read, never handed out. Full, it starts again
# empty: each step is one dict operation, safe without a lock for the what-if answers that
# score in worker threads beside the run (a lock and dropping the oldest cost 0.9 us a miss,
# as much as parsing a short target).
_RECENT: dict[str, JSONValue] = {}
_RECENT_MAX = 8
_UNSEEN: JSONValue = object()


def lenient_parse_recent(text: str) -> JSONValue:
    """`lenient_parse(text)` of a str, remembered for the last few texts: the value may be shared,
    so the caller only reads it. (The parse is lenient_parse's, in this frame: a scorer round
    calls it once per json-schema scorer.)"""
    value = _RECENT.get(text, _UNSEEN)  # (a KeyError raised and caught costs more than the parse)
    if value is _UNSEEN:
        try:
            value = _FAST.decode(text)
        except _REFUSED as exc:
            value = _lenient(text, exc)
        if len(_RECENT) >= _RECENT_MAX:
            _RECENT.clear()
        _RECENT[text] = value
    return value


def _lenient(text: str, refused: Exception) -> JSONValue:
    """`lenient_parse(text)` once msgspec refused the whole untrimmed text with `refused`."""
    body = _json_trim(text)
    if not body:
        return MISSING
    value = _refused(body, refused) if body is text else strict_json(body)  # the whole text (trimmed)
    if value is not MISSING:
        return value
    tagged: list[str] = []
    others: list[str] = []
    for info, block in fenced_blocks(body):
        (tagged if info.strip().lower() == "json" else others).append(block)
    for block in tagged + others:
        value = strict_json(_json_trim(block))
        if value is not MISSING:
            return value
    starts = [i for i in (body.find("["), body.find("{")) if i >= 0]
    if starts:
        start = min(starts)
        closer = "]" if body[start] == "[" else "}"
        end = body.rfind(closer)
        if end > start:
            return strict_json(body[start : end + 1])
    return MISSING


_JSON_SPACE = frozenset(" \t\n\r")
_JS_SPACE = frozenset(JS_WHITESPACE)
_EDGE = 64


def _json_trim(text: str) -> str:
    """What the parse reads for js_trim(text) (docs/language.md §3.4): `text` itself when all
    that js_trim would cut is a few characters of JSON's own whitespace, which JSON.parse skips
    and which hold no fence or bracket; else js_trim(text). A 100 KB reply or block is then not
    copied again for its last newline."""
    end = len(text)
    last = end - 1
    stop = end - _EDGE
    while last >= stop and last >= 0 and text[last] in _JSON_SPACE:
        last -= 1
    if last < 0 or text[last] in _JS_SPACE:  # blank, other JS whitespace, or a long run
        return js_trim(text)
    first = 0
    while first < _EDGE and text[first] in _JSON_SPACE:
        first += 1
    if text[first] in _JS_SPACE:
        return js_trim(text)
    return text
