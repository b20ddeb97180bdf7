"""The event log: one line per engine event, filterable with `/`.

Filter syntax (space-separated terms, all must match): `failed` (failures, blocks,
failed attempts), `phase:ID`, `kind:KIND` (a kind word, `kind:verdict`, or an engine kind,
`kind:attempt_failed`: tftui.present.events.KIND_WORDS), any other word matches the line
text. An empty filter shows everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Self

from rich.cells import cell_len, chop_cells
from textual.geometry import Size
from textual.reactive import Reactive
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


class EventLog(Log):
    """Entries are wrapped to the log's width as they are written (Log draws one row per line
    and cut them at 80 columns), and again when the width changes."""

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
        super().__init__(max_lines=MAX_ENTRIES * 4, auto_scroll=True, **kwargs)  # rows: an entry may wrap
        self.glyphs = glyphs  # lines are folded to ASCII as they are written under --ascii
        self.entries: list[EventLine] = []
        self.query_text = ""
        self.focus_pane: str | None = None  # tree, detail or log (show_focus)
        self._wrapped_at = 0  # the width the lines on screen were wrapped to
        self._shown: list[str] = []  # the entries on screen as shown, one string each (before wrapping)
        self._height_seen = 0  # the rows the log had at its last resize

    @property
    def lines(self) -> Sequence[str]:
        """The entries the log shows, one line each as written (the rows on screen wrap them)."""
        return self._shown

    def _wrap_width(self) -> int:
        # room for the vertical scrollbar even before it shows: a row wrapped without it would be
        # cut by it once the log is full
        return self.size.width - self.styles.scrollbar_size_vertical

    def _write(self, texts: Iterable[str]) -> None:
        width = self._wrap_width()
        self._wrapped_at = width
        shown = [self.glyphs.show_line(text) for text in texts]  # one entry, one line: a newline cannot start a fake one
        if not shown:
            return
        self._shown.extend(shown)
        if len(self._shown) > MAX_ENTRIES:
            del self._shown[: len(self._shown) - MAX_ENTRIES]
        self.write_lines([row for line in shown for row in wrap_line(line, width)])

    def clear(self) -> Self:
        self._shown.clear()
        super().clear()
        return self

    def add_events(self, events: Iterable[ev.Event]) -> None:
        new = [describe(e) for e in events]
        self.entries.extend(new)
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[: len(self.entries) - MAX_ENTRIES]
        self._write(e.text for e in new if matches(e, self.query_text))

    def add_note(self, text: str) -> None:
        """A UI message (reload, diagnostics) that is not an engine event."""
        entry = EventLine(kind="note", phase_id=None, failed=False, text=f"{self.glyphs.mark} {text}")
        self.entries.append(entry)
        if matches(entry, self.query_text):
            self._write([entry.text])

    def _rewrite(self) -> None:
        self.clear()
        self._write(e.text for e in self.entries if matches(e, self.query_text))

    def on_resize(self) -> None:
        following = self.auto_scroll and self.scroll_y >= self.virtual_size.height - self._height_seen
        self._height_seen = self.scrollable_content_region.height
        if self._wrap_width() != self._wrapped_at and self.entries:
            self._rewrite()
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
        self.entries.clear()
        self.clear()
