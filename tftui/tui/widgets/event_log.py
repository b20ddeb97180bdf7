"""The event log: one line per engine event, filterable with `/`.

Filter syntax (space-separated terms, all must match): `failed` (failures, blocks,
failed attempts), `phase:ID`, `kind:KIND` (e.g. `kind:attempt_failed`), any other
word matches the line text. An empty filter shows everything.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Log

from tftui import present
from tftui.engine import events as ev
from tftui.present.events import EventLine, describe

MAX_ENTRIES = 5000


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
            if entry.kind != low[5:]:
                return False
        elif low not in entry.text.lower():
            return False
    return True


class EventLog(Log):
    DEFAULT_CSS = """
    EventLog { height: 6; border-top: solid $panel; background: $surface; }
    """

    def __init__(self, *, glyphs: present.Glyphs = present.UNICODE, **kwargs) -> None:
        super().__init__(max_lines=MAX_ENTRIES, auto_scroll=True, **kwargs)
        self.glyphs = glyphs  # lines are folded to ASCII as they are written under --ascii
        self.entries: list[EventLine] = []
        self.query_text = ""

    def add_events(self, events: Iterable[ev.Event]) -> None:
        new = [describe(e) for e in events]
        self.entries.extend(new)
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[: len(self.entries) - MAX_ENTRIES]
        lines = [self.glyphs.show(e.text) for e in new if matches(e, self.query_text)]
        if lines:
            self.write_lines(lines)

    def add_note(self, text: str) -> None:
        """A UI message (reload, diagnostics) that is not an engine event."""
        entry = EventLine(kind="note", phase_id=None, failed=False, text=f"{self.glyphs.mark} {text}")
        self.entries.append(entry)
        if matches(entry, self.query_text):
            self.write_line(self.glyphs.show(entry.text))

    def set_filter(self, query: str) -> None:
        self.query_text = query.strip()
        self.clear()
        lines = [self.glyphs.show(e.text) for e in self.entries if matches(e, self.query_text)]
        if lines:
            self.write_lines(lines)
        self.border_title = self.glyphs.show(f"filter: {self.query_text}") if self.query_text else None

    def reset(self) -> None:
        self.entries.clear()
        self.clear()
