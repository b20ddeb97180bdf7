"""The Output tab while an answer streams in (README "Streaming").

The panel shows the newest text at its bottom, cut to exactly the rows the panel has and padded
to them, so its size never changes while the text grows: each new piece repaints the panel
alone (`Static.update(layout=False)`), not a layout of the whole screen, which costs several
times a repaint and would hold the keys about five times a second while 100 KB stream in.
Lines are wrapped here the way the panel's Static wraps them (Textual's Content), so the
panel draws them unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.content import Content

TAB_SIZE = 8  # the Static's tab stops: tabs are expanded before wrapping, so each row is what it draws


@dataclass(frozen=True)
class LiveRows:
    content: Content  # exactly `rows` lines of at most `width` cells
    shown: int  # characters of the answer's tail that the rows show


def tail_rows(tail: Text, width: int, rows: int) -> tuple[list[Content], int]:
    """The last `rows` rows of `tail` wrapped at `width`, and how many of its characters they
    show (from the first kept row's start to the end)."""
    plain = tail.plain
    if "\t" in plain:
        tail = Text(plain.expandtabs(TAB_SIZE), style=tail.style)
        plain = tail.plain
    lines = Content.from_rich_text(tail).wrap(width)
    if len(lines) <= rows:
        return lines, len(plain)
    kept = lines[-rows:]
    # each wrapped row is a piece of the text, in order (a row loses only the spaces it was cut at)
    position = 0
    start = 0
    first = len(lines) - rows
    for index, line in enumerate(lines[: first + 1]):
        found = plain.find(line.plain, position)
        if found < 0:  # not a plain piece (should not happen): count the kept rows' text
            return kept, sum(len(row.plain) for row in kept)
        if index == first:
            start = found
        position = found + len(line.plain)
    return kept, len(plain) - start


def live_rows(note: Callable[[int], Text], tail: Text, width: int, rows: int) -> LiveRows:
    """`note(shown)` (the streaming note, wrapped whole) over the newest rows of `tail`, padded
    with blank rows to exactly `rows` (when the note alone fills them, its first rows). The note's
    rows are counted for its longest wording (`shown` one short of the whole tail)."""
    length = len(tail.plain)
    head_rows = len(_wrap(note(max(0, length - 1)), width))
    room = max(0, rows - head_rows)
    body, shown = tail_rows(tail, width, room) if room else ([], 0)
    lines = [*_wrap(note(shown), width), *body][:rows]
    lines += [Content("")] * (rows - len(lines))
    return LiveRows(Content("\n").join(lines), shown)


def _wrap(text: Text, width: int) -> list[Content]:
    return Content.from_rich_text(text).wrap(width) if text.plain else []
