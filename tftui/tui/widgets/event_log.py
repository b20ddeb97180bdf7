"""The event log: one line per engine event, filterable with `/`.

Filter syntax (space-separated terms, all must match): `failed` (failures, blocks,
failed attempts), `phase:ID`, `kind:KIND` (a kind word, `kind:verdict`, or an engine kind,
`kind:attempt_failed`: tftui.present.events.KIND_WORDS), any other word matches the line
text. An empty filter shows everything.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Self, overload

from rich.cells import cell_len, chop_cells
from textual.geometry import Size
from textual.reactive import Reactive
from textual.selection import Selection
from textual.widgets import Log

from tftui import present
from tftui.engine import events as ev
from tftui.present.events import EventLine, describe, kind_matches

MAX_ENTRIES = 5000
FOCUS_UP, FOCUS_DOWN = "▲", "▼"  # pointing at the pane that has the keys (folded under --ascii: ^ v)


def matches(entry: EventLine, query: str) -> bool:
    for term in query.split():
        low = term.lower()
        if low == "failed":
            if not entry.failed:
                return False
        elif low.startswith("phase:"):
            if entry.phase_id != term[6:]:
                return False
        elif low.startswith("kind:"):
            if not kind_matches(low[5:], entry.kind):
                return False
        elif low not in entry.text.lower():
            return False
    return True


CONTINUATION = "  "  # a wrapped entry's further rows are indented: a new entry starts at column 0


def wrap_line(text: str, width: int) -> list[str]:
    """One log entry as rows of at most `width` cells: broken at a space when there is one in
    the last two thirds of a row, else cut (a long path, a CJK sentence); never loses text."""
    if width <= len(CONTINUATION) + 4 or cell_len(text) <= width:
        return [text]
    rows: list[str] = []
    rest = text
    while rest:
        lead = CONTINUATION if rows else ""
        room = width - len(lead)
        # each row measures a window of the rest, not all of it (a 10,000-character line was
        # measured a hundred times); the whole rest only when the window holds under a row
        # (zero-width characters)
        window = rest[: room + 64]
        if cell_len(window) <= room:
            window = rest
            if cell_len(rest) <= room:
                rows.append(lead + rest)
                break
        head = chop_cells(window, room)[0]
        cut = head.rfind(" ")
        if cut > room // 3:
            head = head[:cut]
        rows.append(lead + head)
        rest = rest[len(head):].lstrip(" ")
    return rows


class _Entry:
    """One kept event; its line and rows are made when first needed (drawn, filtered, read)."""

    __slots__ = ("event", "line", "shown", "rows", "width")

    def __init__(self, event: ev.Event | None, line: EventLine | None = None) -> None:
        self.event = event
        self.line = line
        self.shown: str | None = None  # the line as shown (glyphs folded)
        self.rows: list[str] = []
        self.width = -1  # the width `rows` were wrapped at

    def described(self) -> EventLine:
        if self.line is None:
            assert self.event is not None
            self.line = describe(self.event)
        return self.line


class _Rows(Sequence[str]):
    """The log's rows as Textual's Log reads them (`Log._lines`): made from the entries when a row
    is asked for (EventLog keeps which are counted exactly)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def __len__(self) -> int:
        return self.log._row_count()

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self.log._row(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self.log._row(index)

    def __iter__(self) -> Iterator[str]:
        self.log._count_all()
        return iter([self.log._row(i) for i in range(len(self))])


class EventLog(Log):
    """Entries are wrapped to the log's width (Log draws one row per line and cut them at 80
    columns), and again when the width changes.

    An event is described and wrapped only when it is needed: drawn, matched by a filter, read
    (`lines`, `entries`, a mouse selection). While the log follows its end, unfocused, without
    the mouse over it and unfiltered, only the entries of its last rows are counted exactly; each
    entry above them counts one row. The screen is the same as with every entry counted: the
    rows shown are the last ones, counted back from the end, and the scrollbar's thumb is at the
    bottom at its least size either way (the count is used only when a whole log counted so
    gives that thumb). Anything that may show another part of the log (focus, the mouse, a
    scroll, a filter) counts every entry first (a 10,000-item map's 20,000 events described as
    they arrived were ~17 % of the UI thread's time while it ran)."""

    DEFAULT_CSS = """
    EventLog { height: 6; border-top: solid $panel; background: $surface; overflow-x: hidden; }
    """

    # Each write changes the log's height; as Textual's Log has it (a layout reactive) that lays
    # the whole screen out again, ~10 times a second while a run goes. The log's own box never
    # changes size: only its scrollbar follows (one that appears or goes asks for the layout).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0))

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    def _update_size(self, updates: int, lines: list[str]) -> None:  # type: ignore[override]  # Log's is a worker
        """Textual's Log measures new lines in a thread worker, one per write, for its horizontal
        scrollbar; these rows are wrapped to the width (no horizontal scrolling): nothing to measure."""

    def __init__(self, *, glyphs: present.Glyphs = present.UNICODE, **kwargs) -> None:
        super().__init__(auto_scroll=True, **kwargs)
        self.glyphs = glyphs  # lines are folded to ASCII as they are shown under --ascii
        self.query_text = ""
        self.focus_pane: str | None = None  # tree, detail or log (show_focus)
        self._items: list[_Entry] = []  # the kept entries (at most MAX_ENTRIES)
        self._matching: list[_Entry] = self._items  # those the filter shows (the same list when there is none)
        # the first `_rough` shown entries count one row each; each one after them starts at
        # `_rough + _starts[i]` and has its rows at `_counted_at`
        self._rough = 0
        self._starts: list[int] = []
        self._counted_rows = 0
        self._counted_at = -1
        self._lines = _Rows(self)  # type: ignore[assignment]  # Log's rows, read lazily
        self._height_seen = 0  # the rows the log had at its last resize

    # -- what is read -------------------------------------------------------------------
    @property
    def entries(self) -> Sequence[EventLine]:
        """Every kept entry (matching the filter or not), oldest first."""
        return [item.described() for item in self._items]

    @property
    def lines(self) -> Sequence[str]:
        """The entries the log shows, one line each as written (the rows on screen wrap them)."""
        return [self._shown_text(item) for item in self._matching]

    def _shown_text(self, item: _Entry) -> str:
        if item.shown is None:
            item.shown = self.glyphs.show_line(item.described().text)  # one entry, one line: a newline cannot start a fake one
        return item.shown

    def _rows_of(self, item: _Entry, width: int) -> list[str]:
        if item.width != width:
            item.rows, item.width = wrap_line(self._shown_text(item), width), width
        return item.rows

    def _wrap_width(self) -> int:
        # room for the vertical scrollbar even before it shows: a row wrapped without it would be
        # cut by it once the log is full
        return self.size.width - self.styles.scrollbar_size_vertical

    # -- counting rows ------------------------------------------------------------------
    def _row_count(self) -> int:
        return self._rough + self._counted_rows

    def _count_from(self, first: int) -> None:
        """Count the rows of the shown entries from `first` on exactly; those before count one."""
        width = self._wrap_width()
        starts: list[int] = []
        row = 0
        for item in self._matching[first:]:
            starts.append(row)
            row += len(self._rows_of(item, width))
        self._rough, self._starts, self._counted_rows, self._counted_at = first, starts, row, width

    def _count_all(self) -> None:
        if self._rough or self._counted_at != self._wrap_width():
            self._count_from(0)

    def _count_tail(self) -> bool:
        """Count exactly only the entries of the last rows, when the screen cannot tell (see the
        class docstring); False (nothing counted) when it could."""
        width = self._wrap_width()
        height = self.scrollable_content_region.height
        shown = self._matching
        # the thumb is at its least size when a row count reaches height * height (the track is
        # the log's height): each entry has at least one row, so counting one is never too many
        if height < 1 or width < 1 or len(shown) < height * height or not self._may_count_roughly():
            return False
        first, rows = len(shown), 0
        while first > 0 and rows < height:
            first -= 1
            rows += len(self._rows_of(shown[first], width))
        self._count_from(first)
        return True

    def _may_count_roughly(self) -> bool:
        return (not self.query_text and self.auto_scroll and self.text_selection is None
                and not self.has_focus and not self.is_mouse_over and not self.is_vertical_scrollbar_grabbed
                and self.scroll_y >= self.max_scroll_y)

    def _row(self, row: int) -> str:
        if row < self._rough:  # above the rows counted exactly: count them all (nothing shows them while rough)
            self._count_all()
        at = bisect_right(self._starts, row - self._rough) - 1
        if at < 0:
            raise IndexError(row)
        item = self._matching[self._rough + at]
        rows = self._rows_of(item, self._counted_at)
        offset = row - self._rough - self._starts[at]
        if offset >= len(rows):
            raise IndexError(row)
        return rows[offset]

    def _show_rows(self, following: bool) -> None:
        self._render_line_cache.clear()
        self.virtual_size = Size(0, self._row_count())
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        self.refresh()

    # -- writing -------------------------------------------------------------------------
    def _add(self, items: list[_Entry]) -> None:
        if not items:
            return
        following = self.auto_scroll and not self.is_vertical_scrollbar_grabbed and self.is_vertical_scroll_end
        query = self.query_text
        self._items.extend(items)
        dropped = len(self._items) - MAX_ENTRIES
        if dropped > 0:
            del self._items[:dropped]
        if query:  # the lines shown are kept apart, MAX_ENTRIES of them (as many as the entries)
            shown = len(self._matching)
            self._matching.extend(item for item in items if matches(item.described(), query))
            dropped = len(self._matching) - MAX_ENTRIES
            if dropped > 0:
                del self._matching[:dropped]
            items = self._matching[shown - max(0, dropped):]
        if self._count_tail():
            pass
        elif dropped > 0 or self._rough or self._counted_at != self._wrap_width():
            self._count_from(0)
        else:  # every entry counted: count the new ones on
            width = self._counted_at
            row = self._counted_rows
            for item in items:
                self._starts.append(row)
                row += len(self._rows_of(item, width))
            self._counted_rows = row
        self._show_rows(following)

    def clear(self) -> Self:
        self._items.clear()
        self._matching = self._items if not self.query_text else []
        self._rough, self._starts, self._counted_rows = 0, [], 0
        self._render_line_cache.clear()
        self._clear_y = 0
        self.virtual_size = Size(0, 0)
        return self

    def add_events(self, events: Iterable[ev.Event]) -> None:
        self._add([_Entry(event) for event in events])

    def add_note(self, text: str) -> None:
        """A UI message (reload, diagnostics) that is not an engine event."""
        self._add([_Entry(None, EventLine(kind="note", phase_id=None, failed=False, text=f"{self.glyphs.mark} {text}"))])

    def _rewrite(self) -> None:
        query = self.query_text
        self._matching = [item for item in self._items if matches(item.described(), query)] if query else self._items
        self._count_from(0)
        self._show_rows(True)

    # -- showing another part of the log: every entry counted first -------------------------
    def _scroll_to(self, x: float | None = None, y: float | None = None, **kwargs: Any) -> bool:
        if self._rough and y is not None and y < self.max_scroll_y:  # not to the end: its rows are counted
            self._count_all()
            self.virtual_size = Size(0, self._row_count())
        return super()._scroll_to(x, y, **kwargs)

    def _count_exactly(self) -> None:
        if self._rough:
            following = self.is_vertical_scroll_end
            self._count_all()
            self._show_rows(following)

    def on_focus(self) -> None:
        self._count_exactly()

    def on_enter(self) -> None:
        self._count_exactly()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        self._count_exactly()
        return super().get_selection(selection)

    def on_resize(self) -> None:
        following = self.auto_scroll and self.scroll_y >= self.virtual_size.height - self._height_seen
        self._height_seen = self.scrollable_content_region.height
        if self._wrap_width() != self._counted_at and self._items:
            self._count_from(0)
            self._show_rows(True)
        elif following:  # fewer or more rows, the same width: the newest line stays in sight
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def set_filter(self, query: str) -> None:
        self.query_text = query.strip()
        self._rewrite()
        self._retitle()

    def show_focus(self, pane: str | None) -> None:
        """Say on the rule above the log which pane has the keys: under the tree (left), under the
        detail (right), or the log itself."""
        self.focus_pane = pane
        self.styles.border_title_align = "right" if pane == "detail" else "left"
        self._retitle()

    def _retitle(self) -> None:
        parts = []
        if self.focus_pane == "detail":
            parts.append(f"focus: detail {FOCUS_UP} · tab: next pane")
        elif self.focus_pane is not None:
            arrow = FOCUS_DOWN if self.focus_pane == "log" else FOCUS_UP
            parts.append(f"{arrow} focus: {self.focus_pane} · tab: next pane")
        if self.query_text:
            parts.append(f"filter: {self.query_text}")
        title = " · ".join(parts)
        self.border_title = self.glyphs.show_line(title) if title else None

    def reset(self) -> None:
        self.clear()
