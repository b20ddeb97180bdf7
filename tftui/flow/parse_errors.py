"""A JSON syntax error as a person can act on it (docs/language.md §1.1).

Python's decoder says *where it noticed* the problem ("Expecting value" at 1:1 for an empty file
or a YAML one, "Expecting ',' delimiter" at the key after a missing comma). These messages say
what is wrong and how to fix it, at the place the fix goes. Pure; never raises.
"""

from __future__ import annotations

import json
import re

from tftui.flow.diagnostics import Diagnostic
from tftui.flow.jsonpos import Locator

_YAML_KEY = re.compile(r"^(?:---\s*$|-\s+[A-Za-z_\"'][\w\"' -]*:|[A-Za-z_][\w-]*\s*:(?:\s|$))", re.MULTILINE)
_WS = " \t\r\n"


def _where(text: str, offset: int) -> tuple[int, int]:
    return Locator(text).line_col(max(0, min(offset, len(text))))


def _previous_token_end(text: str, offset: int) -> int:
    """The offset just after the last non-blank character before `offset` (comments are blanks
    in the JSONC-stripped text this reads)."""
    i = min(offset, len(text))
    while i > 0 and text[i - 1] in _WS:
        i -= 1
    return i


def _looks_like_yaml(text: str) -> bool:
    first = text.lstrip(_WS + "\ufeff")[:1]
    return bool(first) and first not in "{[\"" and _YAML_KEY.search(text) is not None


def _next_word(text: str, offset: int) -> str:
    match = re.compile(r'"(?:[^"\\\n]|\\.){0,40}"|[^\s,:{}\[\]]{1,40}').match(text, offset)
    return match.group() if match else text[offset : offset + 1]


def json_error(text: str, exc: json.JSONDecodeError) -> Diagnostic:
    """The diagnostic for a decode error of `text` (the JSONC-stripped text the decoder read)."""
    pos = exc.pos
    msg = exc.msg
    if not text.strip(_WS):
        what = "the file is empty" if not text else "the file has no JSON in it (only blanks or comments)"
        return Diagnostic(
            "error",
            f"Invalid JSON: {what} — a flow is a JSON object such as "
            '{"name": "my-flow", "phases": [{"id": "a", "task": "…"}]}',
            1,
            1,
        )
    if msg == "Expecting value" and _looks_like_yaml(text):
        return Diagnostic(
            "error",
            "Invalid JSON: this looks like YAML; tftui reads JSON flows (JSONC comments and trailing commas "
            'are fine) — write it as JSON: `name: x` becomes `"name": "x"`, a `- id: a` list item '
            'becomes `{"id": "a"}` inside `[…]`',
            *_where(text, pos),
        )
    if msg == "Expecting ',' delimiter":
        end = _previous_token_end(text, pos)
        line, col = _where(text, end)
        next_line, _ = _where(text, pos)
        after = f" before {_next_word(text, pos)}" + (f" on line {next_line}" if next_line != line else "")
        return Diagnostic("error", f"Invalid JSON: missing comma after line {line}? (expected ','{after})", line, col)
    if msg == "Expecting property name enclosed in double quotes":
        found = text[pos : pos + 1]
        if not text[pos:].strip():
            fix = "the file ends here: is the end of the flow missing?"
        elif found == "'":
            fix = "JSON strings use double quotes: write \"key\", not 'key'"
        elif found and found in "}]":
            fix = "a trailing comma before it? remove the comma"
        else:
            fix = f"found {_next_word(text, pos)}; keys are strings in double quotes"
        return Diagnostic("error", f"Invalid JSON: expecting a key in double quotes — {fix}", *_where(text, pos))
    if msg == "Expecting ':' delimiter":
        return Diagnostic(
            "error",
            f"Invalid JSON: expecting ':' after the key — found {_next_word(text, pos)}; write \"key\": value",
            *_where(text, pos),
        )
    if msg == "Extra data":
        end_line, _ = _where(text, _previous_token_end(text, pos))
        return Diagnostic(
            "error",
            f"Invalid JSON: more text after the flow's closing brace (line {end_line}) — remove it, or check "
            "for a '}' or ']' closed too early",
            *_where(text, pos),
        )
    if msg == "Expecting value" and text[pos : pos + 1] == "'":
        return Diagnostic(
            "error", "Invalid JSON: expecting a value — JSON strings use double quotes, not '…'", *_where(text, pos)
        )
    return Diagnostic("error", f"Invalid JSON: {msg[:1].lower() + msg[1:]}", exc.lineno, exc.colno)
