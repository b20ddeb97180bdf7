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

from typing import Any

from rich.segment import Segment
from textual.command import CommandPalette
from textual.filter import LineFilter
from textual.scrollbar import ScrollBar, ScrollBarRender

from tftui.present.asciifold import KEY_NAMES, cell_ascii, to_ascii


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


class _AsciiSink:
    """Where the app's Rich console writes (nowhere, as Textual's own null file); its
    encoding tells Rich that only ASCII can be shown (`ConsoleOptions.ascii_only`)."""

    encoding = "ascii"

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def enable(app: Any) -> None:
    """Switch an app (AsciiModeMixin) to ASCII output. Called from its constructor."""
    app.add_class("-ascii")
    app.console.file = _AsciiSink()
    app.ascii_filter.enabled = True
    if ScrollBar.renderer is ScrollBarRender:  # the documented hook; unchanged on a UTF-8 console
        ScrollBar.renderer = EncodingAwareScrollBarRender


class AsciiModeMixin:
    """App methods that show Textual's own strings (keys, notifications) the ASCII way."""

    glyphs: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.ascii_filter = AsciiFilter(enabled=False)  # before Textual's constructor: it may draw
        super().__init__(*args, **kwargs)

    def get_line_filters(self) -> Any:
        filters = super().get_line_filters()  # type: ignore[misc]
        return [*filters, self.ascii_filter] if self.ascii_filter.enabled else filters

    def get_key_display(self, binding: Any) -> str:
        shown = super().get_key_display(binding)  # type: ignore[misc]
        if not self.glyphs.ascii or shown.isascii():
            return shown
        for symbol, name in KEY_NAMES.items():
            shown = shown.replace(symbol, name)
        return to_ascii(shown)

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:
        if self.glyphs.ascii:
            message, title = to_ascii(message), to_ascii(title)
        super().notify(message, title=title, **kwargs)  # type: ignore[misc]

    def action_command_palette(self) -> None:
        if not self.glyphs.ascii:
            super().action_command_palette()  # type: ignore[misc]
            return
        # as Textual's, with a placeholder that does not end in `…`
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[attr-defined, arg-type]
            self.push_screen(CommandPalette(id="--command-palette", placeholder="Search for commands..."))  # type: ignore[attr-defined]
