"""The status rows: each phase and run status's word, Unicode glyph, ASCII glyph and colour role.

`tftui.present.status` is the status table's interface (it re-exports these names, with the
BLOCKED rule and the glyph sets); the rows live here, with no imports, so the ASCII fold
(`tftui.present.asciifold`) can read them too: a Unicode status glyph that reaches a fold (a
glyph inside a text, the debugger's --ascii line filter) becomes the same row's ASCII glyph.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    """A colour role: the Textual theme variable that colours it, a default for themes that
    do not define it, and the ANSI SGR code `tftui run` paints it with on a terminal."""

    theme: str
    default: str
    ansi: str


ROLES: dict[str, Role] = {
    "muted": Role("$text-muted", "#8a8a8a", "2"),
    "primary": Role("$primary", "#4aa3df", "36"),
    "success": Role("$success", "#4ebf71", "32"),
    "error": Role("$error", "#e06c75", "31"),
    "warning": Role("$warning", "#e0a458", "33"),
    "accent": Role("$accent", "#c678dd", "35"),
}


@dataclass(frozen=True)
class Look:
    word: str
    unicode: str
    ascii: str
    role: str  # a key of ROLES
    loud: bool = False  # written in capitals after the phase id (tree, event log): BLOCKED

    @property
    def headline(self) -> str:
        """The word as a headline (detail panel, run header): `BLOCKED`."""
        return self.word.upper()


# Every ASCII glyph differs from every tree guide (`|`, `+`, `` ` ``: dag_tree's ASCII lines),
# expand icon (`>`, `v`) and marker: `+` is the guides' branch, so done is `*`.
STATUSES: dict[str, Look] = {
    "pending": Look("pending", "○", ".", "muted"),
    "running": Look("running", "◐", "o", "primary"),
    "done": Look("done", "✓", "*", "success"),
    "failed": Look("failed", "✗", "x", "error"),
    "skipped": Look("skipped", "⊘", "-", "muted"),
    "blocked": Look("blocked", "■", "!", "warning", loud=True),
    "stale": Look("stale", "~", "~", "accent"),
}

# Display statuses, in the table's order (themes define a colour for each).
DISPLAY_STATUSES = tuple(STATUSES)

# How a whole run ended (RunFinished.status, and `tftui runs`' paused/interrupted). A run
# status that means what a phase status means reads the same way.
RUN_STATUSES: dict[str, Look] = {
    "pending": STATUSES["pending"],
    "running": STATUSES["running"],
    "completed": Look("completed", STATUSES["done"].unicode, STATUSES["done"].ascii, "success"),
    "failed": STATUSES["failed"],
    "blocked": STATUSES["blocked"],
    "paused": Look("paused", "‖", "=", "accent"),
    "interrupted": Look("interrupted", "↯", "?", "warning"),
}
