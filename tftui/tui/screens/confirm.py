"""The question asked before a verb throws away a finished run's view (`c`, `n`/`s`, `R` once
the run has ended): a stray key must not wipe what is being read (README, "Debugging a flow").

`y` or enter starts the new run; any other key (`n`, esc, the `c`/`s`/`R` that opened the
question, pressed again) keeps the view: a stray key never confirms it. The first answer is the
answer (SingleAnswerModal): keys typed ahead of the question's going answer nothing again.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical

from tftui.tui.screens.modals import MODAL_CSS
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded

HINT = "y / enter: start it · n / esc: keep this view"


class ConfirmNewRunScreen(SingleAnswerModal[bool]):
    CSS = MODAL_CSS + """
    ConfirmNewRunScreen { align: center middle; }
    ConfirmNewRunScreen .modal-box { width: 70; max-width: 100%; }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Start", priority=True),
        Binding("n,escape", "answer(False)", "Keep", priority=True),
    ]

    def __init__(self, question: str, detail: str) -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(self.question, classes="modal-title", markup=False)
            yield Folded(self.detail, markup=False)
            yield Folded(HINT, classes="modal-hint", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_key(self, event: events.Key) -> None:
        if event.key not in ("y", "enter"):  # any other key keeps the view
            event.stop()
            self.dismiss(False)
