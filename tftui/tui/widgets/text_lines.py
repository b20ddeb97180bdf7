"""A read-only text drawn row by row (Textual's line API): the body of the detail tabs.

A Static in a VerticalScroll (what the body was) turns its whole text into screen rows on
every update, measures it again for its height and asks the screen for a new layout; with a
10,000-item map's tab redrawn while the run goes that held the keyboard (README "Large
flows"). This view keeps the text's lines, wraps a line only when a row of it is drawn (once
per width, until the text changes: an update that changes nothing draws nothing), counts the
rows of the other lines by their width, and changes its scrollable height without a new
screen layout (only a scrollbar that appears or goes needs one).

What it draws is what the padded Static drew: each line is wrapped by Textual's own
`Visual.to_strips`, as the Static wrapped its text (a line at a time), with the text's
offsets kept for mouse selection, and `pad` blank columns on either side inside the
scrollbar. While text is selected with the mouse, the whole text is drawn as the Static drew
it (the selection's styling spans lines).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.content import Content, Span
from textual.geometry import Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

_UNSEEN: list[Strip] = []  # a line not counted at this width yet


def _on_line(strip: Strip, line: int) -> Strip:
    """`strip` with its selection offsets on logical line `line` (a line wrapped alone has 0)."""
    segments = []
    for text, style, control in strip:
        meta = style.meta if style is not None else {}
        offset = meta.get("offset")
        if style is not None and offset is not None:
            style = style + RichStyle.from_meta({**meta, "offset": (offset[0], line)})
        segments.append(Segment(text, style, control))
    return Strip(segments, strip.cell_length)


class TextLines(ScrollView):
    DEFAULT_CSS = """
    TextLines { overflow-x: hidden; overflow-y: auto; }
    """
    ALLOW_SELECT = True

    # Not Widget's layout reactive: a new height would lay the whole screen out again. The
    # scrollbars follow here; one that appears or goes asks for the layout it needs.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0))

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    def __init__(self, *, pad: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pad = pad
        self.content: Text | Content = Text("")  # what is shown, as given to `update`
        self._whole_content = Content("")
        self._lines: list[Content] = []
        self._width = -1  # the content width the rows were counted at (-1: not counted)
        self._starts: list[int] = []  # the first row of each line
        self._rows: dict[int, list[Strip]] = {}  # the rows of the lines drawn, by line number
        # A long line's rows at `_width` by its text and styles: kept from one update to the
        # next, so a tab that grows at its end (a map's calls) wraps only its new lines.
        self._wrapped: dict[tuple[str, tuple[Span, ...]], list[Strip] | None] = {}  # None: fits one row
        self._wrapped_width = -1
        self._whole: list[Strip] | None = None  # every row, drawn at once (while text is selected)

    def update(self, text: Text | Content) -> None:
        """Show `text`; nothing is drawn when it is the text already shown."""
        shown = self.content
        if type(text) is type(shown) and text == shown:
            if not (isinstance(text, Text) and isinstance(shown, Text)) or text.style == shown.style:
                return
        self.content = text
        self._whole_content = text if isinstance(text, Content) else Content.from_rich_text(text, console=self.app.console)
        self._lines = self._whole_content.split(allow_blank=True)
        self._width = -1  # count again (the wrapped lines are kept)
        self._count_rows()

    def render(self) -> Content:  # what `str(widget.render())` reads: the text shown
        return self._whole_content

    # -- rows -------------------------------------------------------------------------
    @property
    def text_width(self) -> int:
        """The cells a row of the text has (inside the padding and the scrollbar)."""
        return max(0, self.scrollable_content_region.width - 2 * self.pad)

    def _content_width(self) -> int:
        return self.text_width

    def _count_rows(self) -> None:
        """Each line's first row and the scrollable height, at the current width."""
        width = self._content_width()
        if width == self._width:
            return
        wrapped = self._wrapped if width == self._wrapped_width else {}
        self._wrapped, self._wrapped_width = {}, width
        self._width = width
        self._rows.clear()
        self._whole = None
        starts: list[int] = []
        row = 0
        keep = self._wrapped
        for line in self._lines:
            starts.append(row)
            plain = line.plain
            key = (plain, tuple(line.spans))
            rows = wrapped.get(key, _UNSEEN)
            if rows is _UNSEEN:
                if width and ("\t" in plain or cell_len(plain) > width):
                    rows = Visual.to_strips(self, line, width, None, self.visual_style)
                else:  # fits: one row, as Textual's wrapping leaves it
                    rows = None
            keep[key] = rows  # only the lines shown now stay
            row += 1 if rows is None else len(rows)
        self._starts = starts
        self.refresh()  # every row may have moved
        # last: a scrollbar that appears or goes changes the width, and the rows are counted again
        self.virtual_size = Size(self.scrollable_content_region.width, row)

    def watch_show_vertical_scrollbar(self) -> None:
        self._count_rows()

    def _line_rows(self, index: int) -> list[Strip]:
        rows = self._rows.get(index)
        if rows is None:
            line = self._lines[index]
            rows = self._wrapped.get((line.plain, tuple(line.spans))) if self._wrapped else None
            if rows is None:
                rows = Visual.to_strips(self, line, self._width, None, self.visual_style)
            rows = self._rows[index] = [_on_line(strip, index) for strip in rows] if index else rows
        return rows

    def _whole_rows(self) -> list[Strip]:
        if self._whole is None:
            self._whole = Visual.to_strips(self, self._whole_content, self._width, None, self.visual_style)
        return self._whole

    def render_line(self, y: int) -> Strip:
        self._count_rows()
        width = self._width
        row = self.scroll_offset.y + y
        base, background = self.background_colors
        inner = Style(background=base + background).rich_style  # what Textual pads a row with
        strip: Strip | None = None
        if width > 0 and self._lines:
            if self.text_selection is not None:
                whole = self._whole_rows()
                strip = whole[row] if row < len(whole) else None
            else:
                index = bisect_right(self._starts, row) - 1
                if 0 <= index < len(self._lines):
                    rows = self._line_rows(index)
                    at = row - self._starts[index]
                    strip = rows[at] if at < len(rows) else None
        if strip is None:
            return Strip.blank(width + 2 * self.pad, inner)
        pad = [Segment(" " * self.pad, inner)] if self.pad else []
        return Strip([*pad, *strip.adjust_cell_length(width, inner), *pad], width + 2 * self.pad)

    # -- Textual hooks ----------------------------------------------------------------
    def on_resize(self) -> None:
        self._count_rows()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._wrapped.clear()  # colours and text styles are in the drawn rows
        self._width = -1

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self._whole_content.plain), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._whole = None
        self.refresh()
