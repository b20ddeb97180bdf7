"""The status table: how each phase and run status reads, in every front end.

One row per display status: its word, its Unicode glyph, its ASCII glyph (`--ascii`, or a
terminal that cannot show Unicode) and its colour role (the rows are in `tftui.present.looks`,
which the ASCII fold reads too, re-exported here). The debugger's tree, detail panel and
event log, `tftui run`'s lines, `tftui runs`, `tftui replay --print` and the run reports all
read these rows, so a status never has two glyphs or two words.

The display statuses are the engine's phase statuses plus views of them: `blocked` (a gate
or approval `done` with verdict block, docs/scheduling.md §4.2) and `stale` (changed on disk since it ran).
`display_status` is the one place the BLOCKED rule is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tftui.lang.blocking import is_blocking
from tftui.present.asciifold import fold_text, to_ascii
from tftui.present.looks import DISPLAY_STATUSES as DISPLAY_STATUSES  # re-exported: the table's interface
from tftui.present.looks import ROLES, RUN_STATUSES, STATUSES, Look, Role
from tftui.present.terminal import term_line, term_rich, term_text

if TYPE_CHECKING:  # annotations only: the status table loads without the engine's state module
    from rich.text import Text

    from tftui.engine.state import PhaseState


# Pass/fail marks of single items (a scorer row, an attempt, an evaluation of a gate).
MARKS: dict[str, tuple[str, str]] = {
    "ok": (STATUSES["done"].unicode, STATUSES["done"].ascii),
    "no": (STATUSES["failed"].unicode, STATUSES["failed"].ascii),
    "open": ("…", "..."),  # still running
    "error": ("!", "!"),  # could not be decided (the gate's own call failed)
}

_UNKNOWN_ROLE = "muted"


def shown_status(status: str, gate: Mapping[str, object] | None) -> str:
    """The display status of an engine status and gate verdict (docs/scheduling.md §4: a gate or
    approval `done` with verdict block shows as `blocked`)."""
    return "blocked" if is_blocking(status, gate) else status


def display_status(phase: PhaseState | None, *, stale: bool = False) -> str:
    """The status a front end shows for a phase: `pending` before it exists, `blocked` per
    `shown_status`, `stale` when it changed on disk (unless it is running)."""
    if phase is None:
        return "stale" if stale else "pending"
    status = shown_status(str(phase.status), phase.gate)
    if stale and status != "running":
        return "stale"
    return status


def look(status: str) -> Look:
    """The row of a display status (or of a run status); an unknown one reads as itself."""
    found = STATUSES.get(status) or RUN_STATUSES.get(status)
    return found if found is not None else Look(status, "?", "?", _UNKNOWN_ROLE)


def status_word(status: str) -> str:
    return look(status).word


def glyph(status: str, *, ascii: bool = False) -> str:
    row = look(status)
    return row.ascii if ascii else row.unicode


def mark(kind: str, *, ascii: bool = False) -> str:
    """`ok`, `no`, `open` or `error` (see MARKS)."""
    unicode_mark, ascii_mark = MARKS.get(kind, ("?", "?"))
    return ascii_mark if ascii else unicode_mark


def colour_role(status: str) -> Role:
    return ROLES[look(status).role]


def ansi_code(status: str) -> str:
    """The SGR parameter `tftui run` paints a status with (`32` green for done)."""
    return colour_role(status).ansi


@dataclass(frozen=True)
class Glyphs:
    """The glyph set of one front end: Unicode or ASCII, the status glyphs from the table."""

    status: dict[str, str]
    breakpoint: str
    here: str  # the phase the run is paused at
    ref: str  # a phase reached a second time in the tree
    spinner: tuple[str, ...]
    # before a phase run inside its parent (a sub-flow's `a/b`, a grafted `x-b`), so it
    # cannot be taken for a dependent, which hangs from the same tree connector
    nested: str = "⤷"
    sep: str = "·"  # between the items of one line (run header, summaries)
    mark: str = "·"  # before a UI note in the event log
    live: str = "┆"  # before the tree's live sub-line (an answer streaming in)
    ascii: bool = False  # everything else shown is folded to ASCII too (asciifold)

    def fold(self, text: str) -> str:
        """Text as this glyph set shows it: unchanged, or folded to readable ASCII."""
        return to_ascii(text) if self.ascii else text

    def fold_text(self, text: Text) -> Text:
        return fold_text(text) if self.ascii else text

    def show(self, text: str) -> str:
        """User or model text as the debugger shows it: control characters escaped, then folded."""
        return self.fold(term_text(text))

    def show_line(self, text: str) -> str:
        """User text in a one-line cell (a tree label, a table cell, a header part, a log entry):
        newlines and tabs escaped too, so they cannot break the row; then folded."""
        return self.fold(term_line(text))

    def show_text(self, text: Text) -> Text:
        return self.fold_text(term_rich(text))

    def glyph(self, status: str) -> str:
        """A display or run status's glyph in this set."""
        return glyph(status, ascii=self.ascii)


UNICODE = Glyphs(
    status={name: row.unicode for name, row in STATUSES.items()},
    breakpoint="●",
    here="▶",
    ref="↪",
    spinner=("◐", "◓", "◑", "◒"),
)

# No `|/-\\` spinner: its frames would read as a tree guide or as skipped.
ASCII = Glyphs(
    status={name: row.ascii for name, row in STATUSES.items()},
    breakpoint="b",
    here=">",
    ref="->",
    spinner=("o", "O"),
    nested="\\_",
    sep="|",
    mark="*",
    live=":",
    ascii=True,
)


def glyphs_for_stream(stream: object) -> Glyphs:
    """The glyph set for text written to `stream`: Unicode when its encoding is UTF, else ASCII
    (a headless command's stdout or stderr)."""
    encoding = str(getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return UNICODE if encoding.startswith("utf") else ASCII


def glyphs_for(app: object) -> Glyphs:
    """The glyph set of a running app (screens pushed by any module ask the app)."""
    glyphs = getattr(app, "glyphs", None)
    return glyphs if isinstance(glyphs, Glyphs) else UNICODE
