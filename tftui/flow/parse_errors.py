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


# A string or one bracket, for walking the part of the text the decoder accepted (comments are
# already blanks there, and every string in it is closed).
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_CLOSER = {"{": "}", "[": "]"}
# The decoder's complaints that, at the end of the file, mean the file stops inside a container.
_AT_END_POSSIBLE = frozenset(
    {"Expecting value", "Expecting ',' delimiter", "Expecting ':' delimiter", "Expecting property name enclosed in double quotes"}
)


def _open_brackets(text: str, offset: int) -> list[int]:
    """The offsets of the '{' and '[' still open at `offset`, outermost first."""
    stack: list[int] = []
    for match in _STRING_OR_BRACKET.finditer(text, 0, offset):
        token = match.group()
        if token in "{[":
            stack.append(match.start())
        elif token in "}]" and stack:
            stack.pop()
    return stack


def _not_closed(text: str, opened: list[int]) -> str:
    """'[' opened at 1:22 is not closed (add ']') — naming the innermost, and what else ends the file."""
    if not opened:
        return "is the end of the flow missing?"
    inner = text[opened[-1]]
    line, col = _where(text, opened[-1])
    said = f"'{inner}' opened at {line}:{col} is not closed (add '{_CLOSER[inner]}')"
    if len(opened) > 1:
        closers = "".join(_CLOSER[text[i]] for i in reversed(opened))
        said += f"; {len(opened) - 1} more around it: the file should end with '{closers}'"
    return said


def _at_end(text: str, pos: int, msg: str) -> Diagnostic:
    """The decoder met the end of the file inside an object or array: the file is cut short, or
    its closing brackets are missing. The fix goes after the last thing the file holds."""
    end = _previous_token_end(text, pos)
    opened = _open_brackets(text, end)
    if msg == "Expecting value" and text[end - 1 : end] not in "[{":  # after '[' it is only unclosed
        what = f"a value is missing after '{text[end - 1 : end]}', and "
    elif msg == "Expecting ':' delimiter":
        what = "the last key has no ':' and value, and "
    else:
        what = ""
    return Diagnostic("error", f"Invalid JSON: unexpected end of file: {what}{_not_closed(text, opened)}", *_where(text, end))


def _backslash_at(text: str, pos: int) -> int:
    """The backslash of the escape the decoder complains of (it points at it or at the 'u' after it)."""
    return pos if text[pos : pos + 1] == "\\" else max(0, text.rfind("\\", 0, pos))


def _escape_fix(text: str, pos: int) -> str:
    """What the bad backslash escape at `pos` should have been."""
    written = re.compile(r"\\(?:u[^\s\"]{0,4}|.)?", re.DOTALL).match(text, pos)
    seen = written.group() if written else "\\"
    if seen.startswith("\\u"):
        return (
            f"invalid escape '{seen}' in a string: \\u takes four hex digits (\\u00e9); "
            "write a literal backslash as \\\\"
        )
    return (
        f"invalid escape '{seen}' in a string: a backslash starts \\n, \\t, \\\", \\\\, \\/, \\b, \\f, \\r "
        "or \\uXXXX; write a literal backslash as \\\\ (a Windows path as C:/dir or C:\\\\dir)"
    )


def _control_fix(char: str) -> str:
    """What a raw control character inside a string should be written as."""
    if char in "\r\n":
        return (
            "a line break inside a string: close the string with '\"' before the end of the line, "
            "or write the break as \\n"
        )
    if char == "\t":
        return "a raw tab inside a string: write it as \\t"
    return f"a raw control character (U+{ord(char):04X}) inside a string: write it as \\u{ord(char):04x}"


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
    if msg in _AT_END_POSSIBLE and not text[pos:].strip(_WS):
        return _at_end(text, pos, msg)
    if msg == "Expecting ',' delimiter" and text[pos : pos + 1] in ("}", "]"):
        # A closer that is not the open bracket's: '}' where the ']' of an array is missing.
        opened = _open_brackets(text, pos)
        if opened:
            line, col = _where(text, opened[-1])
            inner = text[opened[-1]]
            return Diagnostic(
                "error",
                f"Invalid JSON: '{text[pos]}' here does not close '{inner}' opened at {line}:{col} "
                f"(add '{_CLOSER[inner]}' before it)",
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
        if found == "'":
            fix = "JSON strings use double quotes: write \"key\", not 'key'"
        elif found and found in "}]":
            fix = "a trailing comma before it? remove the comma"
        else:
            word = _next_word(text, pos)
            fix = f'found {word}; keys are strings in double quotes: write "{word}"'

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
    if msg.startswith("Unterminated string"):
        # The decoder stops a string at a raw line break (below), so this one runs to the end of
        # the file; the position is its opening quote.
        return Diagnostic(
            "error",
            "Invalid JSON: unterminated string: the file ends inside the string that starts here "
            "(add the closing quote)",
            *_where(text, pos),
        )
    if msg.startswith("Invalid control character"):  # the C decoder's words; the Python one adds the character
        return Diagnostic("error", f"Invalid JSON: {_control_fix(text[pos : pos + 1])}", *_where(text, pos))
    if msg.startswith(("Invalid \\escape", "Invalid \\uXXXX escape")):
        at = _backslash_at(text, pos)
        return Diagnostic("error", f"Invalid JSON: {_escape_fix(text, at)}", *_where(text, at))
    if msg == "Expecting value":
        return Diagnostic(
            "error",
            f"Invalid JSON: expecting a value, found {_next_word(text, pos)} — write a string in double quotes, "
            "a number, true, false, null, an object {…} or an array […]",
            *_where(text, pos),
        )
    # Every message the decoder has is worded above; one a later Python adds reads as it says.
    return Diagnostic("error", f"Invalid JSON: {msg[:1].lower() + msg[1:]}", exc.lineno, exc.colno)
