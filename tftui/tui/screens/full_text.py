"""The whole text of a detail tab in a scrollable, read-only viewer (`o`).

The detail panel draws at most `phase_detail.BODY_MAX_LINES` lines of a tab, because a
Static re-lays-out every line on each update and a 1,000-item map's output or raw state
(thousands of lines) would stall the keyboard while the run streams in. This viewer is
for reading all of it: a TextArea draws only the visible lines, so a 500 KB output scrolls
smoothly, and text can be selected and copied. Opened on demand, never refreshed live.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import TextArea

from tftui.tui.widgets.folded import Folded

FULL_TEXT_CSS = """
FullTextScreen { align: center middle; }
FullTextScreen > Vertical {
    width: 100%; height: 100%;
    border: round $primary; background: $surface; padding: 0 1;
}
FullTextScreen .modal-title { text-style: bold; color: $primary; height: 1; }
FullTextScreen TextArea { height: 1fr; border: none; padding: 0; }
FullTextScreen .modal-hint { color: $text-muted; height: 1; }
"""


class FullTextScreen(ModalScreen[None]):
    CSS = FULL_TEXT_CSS
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        # ctrl+c is the app's quit (priority), so copying gets a key of its own.
        Binding("y", "copy", "Copy"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        # A TextArea shows a text's final newline as one more, empty, numbered line: the
        # tabs' texts end with one, which is not a line of the content.
        for end in ("\r\n", "\n", "\r"):
            if text.endswith(end):
                text = text[: -len(end)]
                break
        self.text = text

    def compose(self) -> ComposeResult:
        # soft_wrap off: wrapping a long text is laid out up front; left/right scroll instead.
        area = TextArea(self.text, read_only=True, soft_wrap=False, show_line_numbers=True, id="full-text")
        lines = area.document.line_count  # counted as the TextArea numbers them (\r\n, \r too)
        with Vertical():
            yield Folded(f"{self.title_text} — {lines:,} line{'s' if lines != 1 else ''}", classes="modal-title")
            yield area
            # Fits 80 columns: the viewer is for SSH sessions too.
            yield Folded("arrows/PgUp/PgDn move · shift+arrows select · y copy · esc/q close", classes="modal-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_copy(self) -> None:
        """To the terminal's clipboard (OSC 52: works over SSH where the terminal allows it)."""
        area = self.query_one(TextArea)
        chosen = area.selected_text or area.text
        self.app.copy_to_clipboard(chosen)
        what = "selection" if area.selected_text else "whole text"
        self.app.notify(f"Copied the {what} ({len(chosen):,} characters) to the clipboard")
