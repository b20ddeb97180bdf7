"""Source positions for JSON text: JSONC stripping and JSON-path -> line:col.

Parsing uses the fast `json` module; positions are computed only when a diagnostic
needs one. `Locator` walks the text along a path, skipping sibling values with the
C decoder, and caches each container's member offsets so locating many paths in a
large file stays linear.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
_SCAN_VALUE = json.scanner.make_scanner(_DECODER)  # type: ignore[attr-defined]  # (value, end); StopIteration if none
_SIMPLE_KEY = re.compile(r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*')
_COMMA = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")

# One token of interest for JSONC: a string literal (possibly unterminated on its
# line), a line comment, a block comment (possibly unterminated) or a comma.
_JSONC_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|,', re.DOTALL)
_NEXT_SIGNIFICANT = re.compile(r"[^ \t\n\r]")
_SURROGATE_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _blank(text: str) -> str:
    """Replace every character except line breaks by a space (keeps line:col valid)."""
    return re.sub(r"[^\n\r]", " ", text)


def strip_jsonc(text: str) -> str:
    """JSONC -> JSON of the same length: comments outside strings become spaces, and a
    trailing comma directly before `}` or `]` becomes a space (docs/language.md §1.1)."""
    if "/" not in text and "," not in text:
        return text
    pieces: list[str] = []
    last = 0
    commas: list[int] = []  # positions (in the output) of commas outside strings
    for match in _JSONC_TOKEN.finditer(text):
        token = match.group()
        if token[0] == "/":
            pieces.append(text[last : match.start()])
            pieces.append(_blank(token))
            last = match.end()
        elif token == ",":
            commas.append(match.start())
    pieces.append(text[last:])
    out = "".join(pieces)
    if not commas:
        return out
    chars = None
    for pos in commas:
        nxt = _NEXT_SIGNIFICANT.search(out, pos + 1)
        if nxt is not None and nxt.group() in "}]":
            if chars is None:
                chars = list(out)
            chars[pos] = " "
    return "".join(chars) if chars is not None else out


class Locator:
    """Maps JSON paths to offsets and offsets to 1-based (line, col) in one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts: list[int] | None = None
        # container value offset -> {key or index: (key offset or None, value offset)}
        self._members: dict[int, dict[str | int, tuple[int | None, int]]] = {}

    def line_col(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def offset(self, path: Sequence[str | int], *, at_key: bool = False) -> int | None:
        """Offset of the value at `path` (or of its key), None if the path is absent."""
        pos = self._skip_ws(0)
        key_pos: int | None = None
        for step in path:
            members = self._members_of(pos)
            if members is None or step not in members:
                return None
            key_pos, pos = members[step]
        if at_key and key_pos is not None:
            return key_pos
        return pos

    def nearest(self, path: Sequence[str | int], *, at_key: bool = False) -> tuple[int, int]:
        """(line, col) of `path`, or of its longest existing prefix (the document start at worst)."""
        path = tuple(path)
        for cut in range(len(path), -1, -1):
            off = self.offset(path[:cut], at_key=at_key and cut == len(path))
            if off is not None:
                return self.line_col(off)
        return (1, 1)

    def _skip_ws(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def _members_of(self, pos: int) -> dict[str | int, tuple[int | None, int]] | None:
        if pos in self._members:
            return self._members[pos]
        try:
            members = self._scan(pos)
        except (ValueError, IndexError):
            members = None
        if members is not None:
            self._members[pos] = members
        return members

    def _scan(self, pos: int) -> dict[str | int, tuple[int | None, int]] | None:
        # one regex match per separator and the C scanner per value: a save of a 2,000-phase
        # flow with a warning on every phase scans every phase object
        text = self.text
        opener = text[pos : pos + 1]
        if opener not in ("{", "["):
            return None
        closer = "}" if opener == "{" else "]"
        members: dict[str | int, tuple[int | None, int]] = {}
        ws = _WS.match
        i = ws(text, pos + 1).end()  # type: ignore[union-attr]
        if text[i : i + 1] == closer:
            return members
        is_object = opener == "{"
        key_of, comma, scan_value = _SIMPLE_KEY.match, _COMMA.match, _SCAN_VALUE
        index = 0
        while True:
            if is_object:
                simple = key_of(text, i)
                if simple is not None:  # "key" : (no escapes in the key)
                    members[simple.group(1)] = (i, simple.end())  # a later duplicate wins, as in JSON.parse
                    i = simple.end()
                else:
                    if text[i : i + 1] != '"':
                        return members
                    key, end = _scanstring(text, i + 1)
                    key_pos = i
                    i = ws(text, end).end()  # type: ignore[union-attr]
                    if text[i : i + 1] != ":":
                        return members
                    i = ws(text, i + 1).end()  # type: ignore[union-attr]
                    members[key] = (key_pos, i)
            else:
                members[index] = (None, i)
                index += 1
            try:
                _, end = scan_value(text, i)
            except StopIteration as exc:
                raise ValueError(f"no JSON value at {i}") from exc
            after = comma(text, end)
            if after is None:
                return members
            i = after.end()


def string_char_offset(text: str, value_offset: int, char: int) -> int | None:
    """Offset in `text` of character `char` of the JSON string literal at `value_offset`
    (escapes count as one character, a `\\uD83D\\uDE00` surrogate pair too, as JSON decodes it to
    one); None if it is not a string or is shorter."""
    if text[value_offset : value_offset + 1] != '"':
        return None
    i = value_offset + 1
    for _ in range(char):
        c = text[i : i + 1]
        if c in ('"', "\n", ""):
            return None
        if c != "\\":
            i += 1
        elif text[i + 1 : i + 2] != "u":
            i += 2
        else:
            i += 12 if _SURROGATE_PAIR.match(text, i) else 6
    return i if text[i : i + 1] not in ("\n", "") else None
