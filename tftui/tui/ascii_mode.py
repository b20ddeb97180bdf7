"""`--ascii` / `ui.ascii = true`: nothing above U+007F on screen.

Three layers, from the most to the least specific:
1. Our own text goes through the glyph set (`present.ASCII`: status glyphs, separators, and
   `Glyphs.fold` for every string the tree, detail, log, header, modals and toasts show).
2. Textual's chrome: the `-ascii` class on the app switches borders to `ascii`, hides the
   tab underline bar (the active tab is shown in reverse), and so on (styles/app.tcss); the
   Rich console reports an ASCII encoding, so Rich renderables pick ASCII boxes and guides
   and the scrollbars are drawn without the partial-block glyphs of their ends.
3. A line filter on every line drawn folds whatever is left (a user's Chinese prompt, a glyph
   of some Textual widget) cell for cell, so the layout does not move.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual.app import App
from textual.command import CommandPalette
from textual.filter import LineFilter
from textual.scrollbar import ScrollBar, ScrollBarRender

from tftui.present.asciifold import KEY_NAMES, cell_ascii, to_ascii

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class AsciiFilter(LineFilter):
    """Every segment's text, folded to as many ASCII characters as it has cells."""

    def apply(self, segments: list[Segment], background: Any) -> list[Segment]:
        if all(segment.text.isascii() for segment in segments):
            return segments
        return [
            segment if segment.control or segment.text.isascii() else Segment(cell_ascii(segment.text), segment.style)
            for segment in segments
        ]


class _AsciiBarEnds(ScrollBarRender):
    # Blank ends: the thumb moves a whole cell at a time instead of by eighths of a block.
    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


class EncodingAwareScrollBarRender(ScrollBarRender):
    """Textual's scrollbar, drawn without block glyphs on a console that can only show ASCII."""

    def __rich_console__(self, console: Any, options: Any) -> Any:
        if not options.ascii_only:
            yield from super().__rich_console__(console, options)
            return
        yield _AsciiBarEnds(self.virtual_size, self.window_size, self.position, self.thickness, self.vertical, self.style)


class _Discard(io.RawIOBase):
    """Bytes written nowhere (as Textual's own null file), by a 'terminal'."""

    name = "<ascii console>"

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer) -> int:
        return memoryview(data).nbytes

    def isatty(self) -> bool:
        return True


def _ascii_sink() -> io.TextIOWrapper:
    """Where the app's Rich console writes: nowhere; its encoding tells Rich that only ASCII
    can be shown (`ConsoleOptions.ascii_only`)."""
    return io.TextIOWrapper(_Discard(), encoding="ascii", errors="replace", write_through=True)


def enable(app: App[Any], line_filter: AsciiFilter) -> None:
    """Switch an app to ASCII output. Called from its constructor."""
    app.add_class("-ascii")
    app.console.file = _ascii_sink()
    line_filter.enabled = True
    if ScrollBar.renderer is ScrollBarRender:  # the documented hook; unchanged on a UTF-8 console
        ScrollBar.renderer = EncodingAwareScrollBarRender


def key_display(shown: str) -> str:
    """A key as the footer and help show it, in ASCII (`⏎` -> `enter`)."""
    if shown.isascii():
        return shown
    for symbol, name in KEY_NAMES.items():
        shown = shown.replace(symbol, name)
    return to_ascii(shown)


def ascii_palette() -> CommandPalette:
    """Textual's command palette with a placeholder that does not end in `…`."""
    return CommandPalette(id="--command-palette", placeholder="Search for commands...")
