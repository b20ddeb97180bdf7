"""The one output sanitiser: text that reaches a terminal shows control characters escaped.

Phase ids, flow names, model replies, error texts and file contents are user or model data; a
terminal interprets escape sequences in them (set the title, clear the screen, write the
clipboard with OSC 52). Everything tftui prints for a person goes through `term_text` (or
`term_line` for one-line cells): a control character is shown as `\\x1b`, `\\r`, `\\u202e`, never
sent raw. Files, the journal and `--json` keep the raw text (docs/inputs.md §1).

Escaped: C0 controls except newline and tab (a `\\r` too, unless it ends a `\\r\\n` line), DEL,
C1 controls (U+0080-U+009F, which some terminals read as CSI/OSC), the bidirectional overrides
and isolates (U+202A-U+202E, U+2066-U+2069, "Trojan Source"), and lone surrogates (an emoji cut
in half: printing one would raise UnicodeEncodeError).

`SafeStream` wraps a text stream so every write is sanitised (the CLI wraps stdout and stderr
with it); `raw_stream` returns the stream underneath for tftui's own control sequences (the
live status line, colours) and for output that must stay byte-exact (JSON, the final output
when stdout is not a terminal).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO, cast

from tftui.present.asciifold import rewritten

if TYPE_CHECKING:  # annotations only: every command's output goes through here, rich.text stays unloaded
    from rich.text import Text

# One pattern, one author. `\r` is escaped unless it is followed by `\n`.
# U+2028/U+2029 break lines for str.splitlines (and so for a TextArea) but not for split("\n"):
# escaped, a shown text has the same rows everywhere (a copied selection maps back to them).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)"
)
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def term_text(text: str) -> str:
    """`text` safe for a terminal: control characters escaped, newlines and tabs kept."""
    if text.isprintable():  # the common case costs one C-level scan
        return text
    return _UNSAFE.sub(_escape, text)


def term_line(text: str) -> str:
    """`text` for a one-line cell (an id, a name, a table column): newlines and tabs escaped too."""
    if text.isprintable():
        return text
    return _UNSAFE_LINE.sub(_escape, text)


def encodable(text: str) -> str:
    """`text` with lone surrogates written as `\\udXXX` (raw output: files, JSON, a piped final output).

    In JSON text made by `json.dumps(..., ensure_ascii=False)` this is the JSON escape of the
    same code unit, so the value round-trips; elsewhere it reads as `term_text` shows it.
    """
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape, text)


def term_rich(text: Text) -> Text:
    """`term_text` over a rich Text, its styled spans moved with the characters they cover."""
    plain = text.plain
    if plain.isprintable() or _UNSAFE.search(plain) is None:
        return text
    offsets = [0] * (len(plain) + 1)  # old character index -> new index
    pieces: list[str] = []
    length = 0
    last = 0
    for match in _UNSAFE.finditer(plain):
        for k in range(last, match.start() + 1):
            offsets[k] = length + (k - last)
        length += match.start() - last
        pieces.append(plain[last:match.start()])
        escaped = _escape(match)
        pieces.append(escaped)
        length += len(escaped)
        last = match.end()
        offsets[last] = length
    for k in range(last, len(plain) + 1):
        offsets[k] = length + (k - last)
    pieces.append(plain[last:])
    return rewritten(text, "".join(pieces), offsets)


def drop_unsafe(text: str) -> str:
    """Width-neutral last guard for a drawn line: zero-width controls dropped, surrogates as U+FFFD.

    For what reaches the screen after layout (the debugger's line filter), where the text can no
    longer grow; what tftui shows was escaped by `term_text` before, this catches the rest.
    """
    if text.isprintable():
        return text
    return _UNSAFE_LINE.sub(_drop, text)


def _drop(match: re.Match[str]) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"
    return ""


def is_term_safe(text: str) -> bool:
    """True when `text` holds nothing `term_text` would escape."""
    return _UNSAFE.search(text) is None


class SafeStream:
    """A text stream whose writes are sanitised by `term_text`; `raw` is the stream underneath."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(term_text(text))
        return len(text)

    def write_raw(self, text: str) -> None:
        """`text` as it is (tftui's own control sequences, JSON), lone surrogates escaped."""
        self.raw.write(encodable(text))

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.raw, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.raw.fileno()

    def __getattr__(self, name: str) -> object:  # encoding, errors, buffer, …: the raw stream's
        return getattr(self.raw, name)


def raw_stream(stream: TextIO | SafeStream) -> TextIO:
    """The stream underneath a `SafeStream` (the stream itself otherwise)."""
    while isinstance(stream, SafeStream):
        stream = stream.raw
    return stream


def write_raw(stream: TextIO, text: str) -> None:
    """Write `text` unsanitised (JSON, a final output going to a file or pipe), surrogates escaped."""
    raw_stream(stream).write(encodable(text))


def write_lines(stream: TextIO, lines: list[str]) -> None:
    """Each of `lines` as `print(line, file=stream)` writes it, in one write to the stream
    underneath, then flushed: a run's many diagnostics reach stderr at once, not a write and a
    flush each. A `SafeStream` sanitises each line on its own, as it does for a print of it (a
    lone `\r` closing a line stays escaped, not taken for half of a line break)."""
    if not lines:
        return
    if isinstance(stream, SafeStream):
        raw_stream(stream).write("".join(term_text(line) + "\n" for line in lines))
    else:
        stream.write("".join(line + "\n" for line in lines))
    stream.flush()


@contextmanager
def guarded_streams() -> Iterator[None]:
    """sys.stdout and sys.stderr wrapped in `SafeStream` for the duration (the CLI's commands)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, SafeStream):
        sys.stdout = cast(TextIO, SafeStream(sys.stdout))
    if not isinstance(sys.stderr, SafeStream):
        sys.stderr = cast(TextIO, SafeStream(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
