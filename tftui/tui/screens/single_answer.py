"""The base of every dialog: it answers once.

Textual's `dismiss` pops whatever screen is on top. Keys typed faster than a dialog goes (Enter
pressed twice in an input, a burst of keys on the "start a new run?" question) reach the dialog
after its first answer; a second `dismiss` then ran its callback again and popped the debugger's
own screen, a crash (ScreenStackError). Here a dialog's first answer is its answer: a later
`dismiss`, or one of a dialog no longer on top, does nothing.
"""

from __future__ import annotations

from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen, ScreenResultType


class SingleAnswerModal(ModalScreen[ScreenResultType]):
    answered = False

    def dismiss(self, result: ScreenResultType | None = None) -> AwaitComplete:
        if self.answered or not self.is_current:
            return AwaitComplete()  # nothing to wait for: the answer was given
        self.answered = True
        return super().dismiss(result)
