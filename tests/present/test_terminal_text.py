"""The one output sanitiser (docs/inputs.md §1): what it escapes, what it keeps."""

from __future__ import annotations

import io

from rich.text import Text

from tftui.present.terminal import (
    SafeStream,
    drop_unsafe,
    raw_stream,
    term_line,
    term_rich,
    term_text,
    write_raw,
)


def test_controls_are_escaped_newlines_and_tabs_kept() -> None:
    assert term_text("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07"
    assert term_text("one\r\ntwo\tthree\n") == "one\r\ntwo\tthree\n"  # line structure kept
    assert term_text("over\rwrite") == "over\\rwrite"  # a bare CR would overwrite the line
    assert term_text("\x9b31m \x7f \u202eevil \u2066") == "\\x9b31m \\x7f \\u202eevil \\u2066"
    assert term_text("half \ud83d emoji") == "half \\ud83d emoji"
    assert term_text("plain ✓ 中文 😀") == "plain ✓ 中文 😀"


def test_one_line_cells_escape_newlines_and_tabs_too() -> None:
    assert term_line("a\nb\tc\x1b") == "a\\nb\\tc\\x1b"


def test_escaping_is_idempotent() -> None:
    once = term_text("x\x1b]0;t\x07\ud800")
    assert term_text(once) == once


def test_rich_text_keeps_its_styles_on_the_same_characters() -> None:
    text = Text("ab\x1bcd")
    text.stylize("bold", 1, 4)  # "b\x1bc"
    shown = term_rich(text)
    assert shown.plain == "ab\\x1bcd"
    (span,) = shown.spans
    assert shown.plain[span.start:span.end] == "b\\x1bc"


def test_the_last_guard_keeps_the_width() -> None:
    assert drop_unsafe("a\x1b[2J\ud800z") == "a[2J\ufffdz"


def test_a_safe_stream_escapes_writes_and_raw_writes_stay_raw() -> None:
    sink = io.StringIO()
    stream = SafeStream(sink)
    stream.write("id \x1b[31m\n")
    write_raw(stream, '{"a": "\x1b"}\n')  # type: ignore[arg-type]
    write_raw(stream, "half \ud83d\n")  # type: ignore[arg-type]
    assert sink.getvalue() == 'id \\x1b[31m\n{"a": "\x1b"}\nhalf \\ud83d\n'
    assert raw_stream(stream) is sink  # type: ignore[arg-type]
