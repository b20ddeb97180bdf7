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

from rich._wrap import divide_line
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.content import Content, Span
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

_UNSEEN: list[Strip] = []  # a line not counted at this width yet
# A long line's rows, as Textual's wrap cuts it: where each row but the first starts. Only its
# rows on screen are drawn (a landed 30,000-character answer is one line of ~260 rows).
_Breaks = tuple[int, ...]
# the rows of a line at the current width: None fits one row; the breaks of a long line; every
# row drawn at once (a line with tabs, which Textual expands before it wraps)
_Wrapped = _Breaks | list[Strip] | None


def _on_line(strip: Strip, line: int, x: int = 0) -> Strip:
    """`strip` with its selection offsets on logical line `line` (a line wrapped alone has 0), `x`
    characters further along it (a row drawn alone starts at 0)."""
    segments = []
    for text, style, control in strip:
        meta = style.meta if style is not None else {}
        offset = meta.get("offset")
        if style is not None and offset is not None:
            style = style + RichStyle.from_meta({**meta, "offset": (offset[0] + x, line)})
        segments.append(Segment(text, style, control))
    return Strip(segments, strip.cell_length)


def _row_key(lines: list[Content], starts: list[int], total: int, row: int) -> tuple[object, ...] | None:
    """What row `row` of the text (`lines`, their first rows `starts`, `total` rows) shows; None: blank."""
    if row >= total or not starts:
        return None
    index = bisect_right(starts, row) - 1
    line = lines[index]
    return (index, row - starts[index], line.plain, tuple(line.spans))


def text_lines(text: Text, console: Console, ansi_theme: TerminalTheme | None) -> list[Content]:
    """`Content.from_rich_text(text).split(allow_blank=True)`: the same lines with the same spans,
    made without a Content of the whole text and converting each distinct style once (a tab's
    300 lines have hundreds of spans in a handful of styles; every redraw converted each)."""
    plain = text.plain
    if "\n" not in plain:
        return [Content.from_rich_text(text, console)]
    get_style = console.get_style
    pieces = plain.split("\n")
    starts: list[int] = []
    at = 0
    for piece in pieces:
        starts.append(at)
        at += len(piece) + 1
    spans: list[list[Span]] = [[] for _ in pieces]
    styles: dict[str | RichStyle, Style] = {}  # each distinct style, converted once

    def converted(style: str | RichStyle) -> Style:
        found = styles.get(style)
        if found is None:
            found = styles[style] = Style.from_rich_style(get_style(style) if isinstance(style, str) else style,
                                                          ansi_theme)
        return found

    size = len(plain)
    base = text.style  # first: under the spans (Content.stylize_before), kept a str as Content keeps it
    ranges: list[tuple[int, int, str | Style]] = [(0, size, base if isinstance(base, str) else converted(base))] if base else []
    ranges.extend((start, end, converted(style)) for start, end, style in text._spans)
    for start, end, textual in ranges:
        end = min(end, size)
        if start >= end:
            continue
        first = bisect_right(starts, start) - 1
        last = bisect_right(starts, end - 1) - 1
        for index in range(first, last + 1):
            line_start = starts[index]
            lo, hi = max(0, start - line_start), min(end - line_start, len(pieces[index]))
            if hi > lo:
                spans[index].append(Span(lo, hi, textual))
    return [Content(piece, line_spans) for piece, line_spans in zip(pieces, spans, strict=True)]


class TextLines(ScrollView):
    DEFAULT_CSS = """
    TextLines { overflow-x: hidden; overflow-y: auto; }
    """
    ALLOW_SELECT = True

    # Not Widget's layout reactive: a new height would lay the whole screen out again. The
    # scrollbars follow here; one that appears or goes asks for the layout it needs. No repaint
    # of its own: the count that sets it repaints the rows that changed (`_count_rows`).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), repaint=False)

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    def __init__(self, *, pad: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pad = pad
        self.content: Text | Content = Text("")  # what is shown, as given to `update`
        self._whole_content: Content | None = Content("")
        self._lines: list[Content] = []
        self._width = -1  # the content width the rows were counted at (-1: not counted)
        self._starts: list[int] = []  # the first row of each line
        # the rows drawn, by (line, row in the line), with the line's text and styles they were
        # drawn from: kept from one update to the next at the same width, so a tab updated while
        # a run goes draws again only the rows on screen whose line changed
        self._rows: dict[tuple[int, int], tuple[tuple[str, tuple[Span, ...]], Strip]] = {}
        self._rows_width = -1
        # A long line's rows at `_width` by its text and styles: kept from one update to the
        # next, so a tab that grows at its end (a map's calls) wraps only its new lines.
        self._wrapped: dict[tuple[str, tuple[Span, ...]], _Wrapped] = {}
        self._line_wraps: list[_Wrapped] = []  # each line's, at `_width`
        self._predicting = False  # a scrollbar is being shown before the rows are counted
        self._wrapped_width = -1
        self._whole: list[Strip] | None = None  # every row, drawn at once (while text is selected)
        self._inner: RichStyle | None = None  # a row's padding style, while `render_lines` draws
        # what the panel showed before `update` (its lines, their first rows, its rows, the width
        # they were counted at): the next count repaints only the rows on screen that differ
        self._shown: tuple[list[Content], list[int], int, int] | None = None
        self._total_rows = 0

    def update(self, text: Text | Content) -> None:
        """Show `text`; nothing is drawn when it is the text already shown."""
        shown = self.content
        if type(text) is type(shown) and text == shown:
            if not (isinstance(text, Text) and isinstance(shown, Text)) or text.style == shown.style:
                return
        self.content = text
        if self._shown is None:  # (a second update before the count keeps what is on screen)
            self._shown = (self._lines, self._starts, self._total_rows, self._width)
        if isinstance(text, Content):
            self._whole_content = text
            self._lines = text.split(allow_blank=True)
        else:
            self._whole_content = None  # made when asked for (render, a mouse selection)
            self._lines = text_lines(text, self.app.console, self.app.ansi_theme)
        self._width = -1  # count again (the wrapped lines are kept)
        self._count_rows()

    @property
    def whole_content(self) -> Content:
        """The text shown, as one Content."""
        if self._whole_content is None:
            shown = self.content
            self._whole_content = shown if isinstance(shown, Content) else Content.from_rich_text(shown, self.app.console)
        return self._whole_content

    def render(self) -> Content:  # what `str(widget.render())` reads: the text shown
        return self.whole_content

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
        if width and self._scrollbar_coming(width):
            return  # counted at the width the scrollbar leaves
        wrapped = self._wrapped if width == self._wrapped_width else {}
        self._wrapped, self._wrapped_width = {}, width
        self._width = width
        if width != self._rows_width:
            self._rows.clear()
            self._rows_width = width
        self._whole = None
        starts: list[int] = []
        line_wraps: list[_Wrapped] = []
        row = 0
        keep = self._wrapped
        for line in self._lines:
            starts.append(row)
            plain = line.plain
            key = (plain, tuple(line.spans))
            rows = wrapped.get(key, _UNSEEN)
            if rows is _UNSEEN:
                if not width or ("\t" not in plain and cell_len(plain) <= width):
                    rows = None  # fits: one row, as Textual's wrapping leaves it
                elif "\t" in plain:
                    rows = Visual.to_strips(self, line, width, None, self.visual_style)
                else:  # where Textual's wrap cuts it (Content._wrap_and_format), rows drawn when shown
                    rows = tuple(divide_line(plain, width, fold=True))
            keep[key] = rows  # only the lines shown now stay
            line_wraps.append(rows)
            row += 1 if rows is None else len(rows) + (1 if isinstance(rows, tuple) else 0)
        self._starts = starts
        self._line_wraps = line_wraps
        shown, self._shown = self._shown, None
        self._total_rows = row
        if shown is None or shown[3] != width or self.text_selection is not None:
            self.refresh()  # every row may have moved
        else:
            self._refresh_changed_rows(*shown[:3])
        # last: a scrollbar that appears or goes changes the width, and the rows are counted again
        self.virtual_size = Size(self.scrollable_content_region.width, row)

    def _refresh_changed_rows(self, lines: list[Content], starts: list[int], total: int) -> None:
        """Repaint the rows on screen that differ from what `lines` (first rows `starts`, `total`
        rows, counted at this width) showed there, not the whole panel: a tab updated while a run
        goes changes a line or two (a count), and a panel drawn again whole cost ~4 ms a frame
        (Textual keeps each row it drew until it is marked dirty). A row is what it shows: its
        line's text and styles, which row of the line, and the line's number (a row's selection
        offsets name it)."""
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height
        dirty: list[tuple[int, int]] = []  # runs of rows on screen: (first, how many)
        for y in range(height):
            if _row_key(self._lines, self._starts, self._total_rows, top + y) != _row_key(lines, starts, total, top + y):
                if dirty and dirty[-1][0] + dirty[-1][1] == y:
                    dirty[-1] = (dirty[-1][0], dirty[-1][1] + 1)
                else:
                    dirty.append((y, 1))
        if dirty:
            width = max(self.virtual_size.width, self.size.width)
            self.refresh(*(Region(0, y, width, count) for y, count in dirty))

    def _scrollbar_coming(self, width: int) -> bool:
        """With no scrollbar yet, whether the text has more rows than the panel at `width` (each
        line has at least its cells / width rows): then the scrollbar it brings is shown first
        (True: the rows are counted at the width it leaves) instead of after a count at this one."""
        if self._predicting or self.show_vertical_scrollbar or self.styles.overflow_y != "auto":
            return False
        height = self.container_size.height
        least = 0
        for line in self._lines:
            least += max(1, -(-cell_len(line.plain) // width))
            if least > height:
                break
        else:
            return False
        self._width = -1
        self._predicting = True
        try:
            # shows the scrollbar: its watcher counts the rows at the narrower width
            self.virtual_size = Size(self.scrollable_content_region.width, least)
            if self._width == -1:  # it did not (no scrollbar came, or it has no width): count here
                self._count_rows()
        finally:
            self._predicting = False
        return True

    def watch_show_vertical_scrollbar(self) -> None:
        self._count_rows()

    def _row(self, index: int, at: int) -> Strip | None:
        """Row `at` of line `index` (None past its last row)."""
        line = self._lines[index]
        drawn_from = (line.plain, tuple(line.spans))
        drawn = self._rows.get((index, at))
        if drawn is not None and drawn[0] == drawn_from:
            return drawn[1]
        wrap = self._line_wraps[index] if index < len(self._line_wraps) else None
        if wrap is None and at:  # a line that fits has one row: the rows below the text are blank
            # (not drawn from the last line and thrown away: a short text in a tall panel did
            # that for every blank row, ~0.25 ms each, at every redraw of the panel)
            return None
        x = 0
        if isinstance(wrap, tuple):  # a long line: this row alone, cut where the whole line is
            if at > len(wrap):
                return None
            bounds = (0, *wrap, len(line.plain))
            x = bounds[at]
            piece = line[x : bounds[at + 1]]
            rows = Visual.to_strips(self, piece if at == len(wrap) else piece.rstrip(), self._width, None,
                                    self.visual_style)
            if len(rows) != 1:  # not one row alone (should not happen): the whole line, as Textual draws it
                rows, x = Visual.to_strips(self, line, self._width, None, self.visual_style), 0
                if at >= len(rows):
                    return None
                rows = rows[at : at + 1]
        else:
            rows = wrap if wrap is not None else Visual.to_strips(self, line, self._width, None, self.visual_style)
            if at >= len(rows):
                return None
            rows = rows[at : at + 1]
        strip = rows[0]
        if index or x:
            strip = _on_line(strip, index, x)
        self._rows[(index, at)] = (drawn_from, strip)
        return strip

    def _whole_rows(self) -> list[Strip]:
        if self._whole is None:
            self._whole = Visual.to_strips(self, self.whole_content, self._width, None, self.visual_style)
        return self._whole

    def render_lines(self, crop: Region) -> list[Strip]:
        # once per redraw, not per row: the width (a walk up the styles) and the background
        # (a walk up the ancestors) are the same for every row drawn
        self._count_rows()
        base, background = self.background_colors
        self._inner = Style(background=base + background).rich_style  # what Textual pads a row with
        try:
            return super().render_lines(crop)
        finally:
            self._inner = None

    def render_line(self, y: int) -> Strip:
        inner = self._inner
        if inner is None:  # a row drawn alone
            self._count_rows()
            base, background = self.background_colors
            inner = Style(background=base + background).rich_style
        width = self._width
        row = self.scroll_offset.y + y
        strip: Strip | None = None
        if width > 0 and self._lines:
            if self.text_selection is not None:
                whole = self._whole_rows()
                strip = whole[row] if row < len(whole) else None
            else:
                index = bisect_right(self._starts, row) - 1
                if 0 <= index < len(self._lines):
                    strip = self._row(index, row - self._starts[index])
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
        self._rows.clear()
        self._width = -1

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.whole_content.plain), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._whole = None
        self.refresh()
