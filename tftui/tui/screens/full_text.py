"""The whole text of a detail tab in a scrollable, read-only viewer (`o`).

The detail panel draws at most `phase_detail.BODY_MAX_LINES` lines of a tab, because a
Static re-lays-out every line on each update and a 1,000-item map's output or raw state
(thousands of lines) would stall the keyboard while the run streams in. This viewer is
for reading all of it: a TextArea draws only the visible lines, so a 500 KB output scrolls
smoothly, and text can be selected and copied. Opened on demand, never refreshed live.

Reading a long text: `/` searches (case-insensitive; `n`/`N` the next/previous match, the match
selected), `g`/`G` (and ctrl+home/ctrl+end) go to the start/end, `w` wraps long lines (off at
first: wrapping a 500 KB text is laid out up front), PgUp/PgDn page. `y` copies through
`tui.clipboard`, which says whether the copy was confirmed or saved to a file.
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, TextArea
from textual.widgets.text_area import Selection

from tftui.tui.clipboard import copy_text, copyable, raw_selection
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput


def _without_final_newline(text: str) -> str:
    # A TextArea shows a text's final newline as one more, empty, numbered line: the tabs'
    # texts end with one, which is not a line of the content.
    for end in ("\r\n", "\n", "\r"):
        if text.endswith(end):
            return text[: -len(end)]
    return text


FULL_TEXT_CSS = """
FullTextScreen { align: center middle; }
FullTextScreen > Vertical {
    width: 100%; height: 100%;
    border: round $primary; background: $surface; padding: 0 1;
}
FullTextScreen .modal-title { text-style: bold; color: $primary; height: 1; }
FullTextScreen TextArea { height: 1fr; border: none; padding: 0; }
FullTextScreen #full-text-search { display: none; height: 1; border: none; padding: 0; }
FullTextScreen #full-text-search.-visible { display: block; }
FullTextScreen .modal-hint { color: $text-muted; height: auto; }  /* wraps: a state before the keys must not cut them */
"""
# Fits 80 columns: the viewer is for SSH sessions too.
HINT = "/ find · n/N next/prev · g/G start/end · w wrap · y copy · esc/q close"


class FullTextScreen(SingleAnswerModal[None]):
    CSS = FULL_TEXT_CSS
    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        # ctrl+c is the app's quit (priority), so copying gets a key of its own.
        Binding("y", "copy", "Copy"),
        # priority: run as the key arrives, before the keys after it are handed to the focused
        # widget (else `/abc` typed fast went to the viewer's own keys, `n` among them)
        Binding("slash", "find", "Find", priority=True),
        Binding("n", "next_match(1)", "Next match"),
        Binding("N", "next_match(-1)", "Previous match"),
        Binding("g,ctrl+home", "to_start", "Start"),
        Binding("G,ctrl+end", "to_end", "End"),
        Binding("w", "toggle_wrap", "Wrap"),
    ]

    def __init__(self, title: str, text: str, *, copy_folder: Path | None = None, raw: str | None = None) -> None:
        """`text` as shown (folded, escaped); `raw`, the text itself, is what `y` copies."""
        super().__init__()
        self.title_text = title
        self.text = _without_final_newline(text)
        self.raw = copyable(_without_final_newline(raw if raw is not None else text))
        self.copy_folder = copy_folder or Path(".tftui")  # where `y` saves when no clipboard confirms
        self.query_text = ""
        self._matches: list[tuple[int, int]] | None = None  # (row, column) of each match

    def compose(self) -> ComposeResult:
        # soft_wrap off at first: wrapping a long text is laid out up front (`w` turns it on).
        area = TextArea(self.text, read_only=True, soft_wrap=False, show_line_numbers=True, id="full-text")
        lines = area.document.line_count  # counted as the TextArea numbers them (\r\n, \r too)
        with Vertical():
            yield Folded(f"{self.title_text} — {lines:,} line{'s' if lines != 1 else ''}", classes="modal-title")
            yield area
            yield OrderedInput(placeholder="find (enter: first match after the cursor · esc: back)", id="full-text-search")
            yield Folded(HINT, classes="modal-hint", id="full-text-hint")

    @property
    def area(self) -> TextArea:
        return self.query_one("#full-text", TextArea)

    @property
    def search_box(self) -> Input:
        return self.query_one("#full-text-search", Input)

    def on_mount(self) -> None:
        self.area.focus()

    def _say(self, text: str) -> None:
        self.query_one("#full-text-hint", Folded).update(text)

    # -- moving ------------------------------------------------------------------------
    def action_to_start(self) -> None:
        self.area.move_cursor((0, 0), center=False)
        self.area.scroll_home(animate=False)

    def action_to_end(self) -> None:
        last = self.area.document.line_count - 1
        self.area.move_cursor((last, 0))
        self.area.scroll_end(animate=False, x_axis=False)

    def action_toggle_wrap(self) -> None:
        area = self.area
        area.soft_wrap = not area.soft_wrap
        self._say(f"wrap {'on' if area.soft_wrap else 'off'} · {HINT}")

    # -- finding -----------------------------------------------------------------------
    def action_find(self) -> None:
        box = self.search_box
        if self.focused is box:  # a `/` in what is being searched for: behind the keys already queued for the box
            box.post_message(events.Key("slash", "/"))
            return
        box.add_class("-visible")
        box.value = self.query_text
        # Focus now, not after the next refresh (Widget.focus): the keys typed right after `/`
        # (a paste, a fast typist, tmux send-keys) must reach the box, not the viewer's n/g/q.
        self.set_focus(box)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_text = event.value
        self._matches = None
        self._hide_search()
        self.action_next_match(1, from_cursor=True)

    def _hide_search(self) -> None:
        self.search_box.remove_class("-visible")
        self.set_focus(self.area)

    def matches(self) -> list[tuple[int, int]]:
        """Where the query occurs, line by line (case-insensitive), as (row, column)."""
        if self._matches is None:
            needle = self.query_text.casefold()
            found: list[tuple[int, int]] = []
            if needle:
                for row, line in enumerate(self.area.document.lines):
                    folded = line.casefold()
                    if len(folded) != len(line):  # casefold changed the length (ß): search as typed
                        folded, wanted = line, self.query_text
                    else:
                        wanted = needle
                    col = folded.find(wanted)
                    while col >= 0:
                        found.append((row, col))
                        col = folded.find(wanted, col + 1)
            self._matches = found
        return self._matches

    def action_next_match(self, step: int = 1, *, from_cursor: bool = False) -> None:
        if not self.query_text:
            self._say(f"/ first: nothing to find yet · {HINT}")
            return
        found = self.matches()
        if not found:
            self._say(f"{self.query_text!r}: no match · {HINT}")
            return
        area = self.area
        here = area.selection.start if from_cursor else area.cursor_location
        if step > 0:
            after = [i for i, at in enumerate(found) if (at >= here if from_cursor else at > here)]
            index = after[0] if after else 0
        else:
            before = [i for i, at in enumerate(found) if at < area.selection.start]
            index = before[-1] if before else len(found) - 1
        row, col = found[index]
        area.selection = Selection((row, col), (row, col + len(self.query_text)))
        area.scroll_cursor_visible(center=True, animate=False)
        self._say(f"{self.query_text!r}: match {index + 1:,} of {len(found):,} · n/N next/prev · esc/q close")

    # -- closing and copying -----------------------------------------------------------
    def action_close(self) -> None:
        if self.search_box.has_class("-visible"):
            self._hide_search()
            return
        self.dismiss(None)

    def action_copy(self) -> None:
        """The text itself (not as drawn: `raw_selection`), to a clipboard program that confirms
        it, else to a file (and OSC 52), in a worker thread (a program may take up to its timeout);
        the toast says which it did."""
        area = self.area
        selection = area.selection
        if area.selected_text:
            chosen = copyable(raw_selection(self.text, self.raw, selection.start, selection.end, area.selected_text))
            what = "selection"
        else:
            chosen, what = self.raw, "whole text"
        app = self.app

        def copy() -> None:  # a worker thread: what touches the app goes through call_from_thread
            copied = copy_text(chosen, self.copy_folder, osc52=lambda text: app.call_from_thread(app.copy_to_clipboard, text))
            # a path to read off the screen: shown twice as long as a toast's 5 s
            app.call_from_thread(app.notify, copied.message(f"{what} ({len(chosen):,} characters)"),
                                 severity="information" if copied.tool or copied.path else "error",
                                 timeout=None if copied.tool else 10)

        app.run_worker(copy, name="copy", group="clipboard", thread=True, exit_on_error=False)
