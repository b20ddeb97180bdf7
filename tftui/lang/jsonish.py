"""Lenient JSON extraction from model output (docs/language.md §3.4).

Used by `output: "json"`, `{steps.X.json}`, map `over`, the json-schema scorer and
the verdict/judge/winner parsers. Returns MISSING when nothing parses; never raises.
"""

from __future__ import annotations

import json
import re
from typing import NoReturn

from tftui.lang.values import MISSING, JSONValue, js_trim

# ```<info>\n<body>```  — info has no backticks and no newline; \r\n accepted; body non-greedy.
_FENCE_RE = re.compile(r"```([^`\n]*?)\r?\n([\s\S]*?)```")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"JSON does not allow {name}")


# One decoder for every call: json.loads(..., parse_constant=...) would build a new one each time.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def strict_json(text: str) -> JSONValue:
    """JSON.parse: MISSING on any syntax error (NaN/Infinity are not JSON)."""
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
    if not isinstance(text, str):
        return MISSING
    body = js_trim(text)
    if not body:
        return MISSING
    value = strict_json(body)
    if value is not MISSING:
        return value
    if "```" in body:
        tagged: list[str] = []
        others: list[str] = []
        for match in _FENCE_RE.finditer(body):
            (tagged if match.group(1).strip().lower() == "json" else others).append(match.group(2))
        for block in tagged + others:
            value = strict_json(js_trim(block))
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
