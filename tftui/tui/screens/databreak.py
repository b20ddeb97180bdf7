"""`B`: a one-line condition for a data breakpoint, with syntax feedback while typing.

Enter adds the expression (or removes it when it is already set); esc cancels.
An expression with a syntax error is never accepted: the caret line says where.
The replay's `B` (seek to where a condition turns true) is the same dialog with `seek=True`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from tftui.engine import databreak
from tftui.lang.condition import syntax_error
from tftui.tui.screens.modals import MODAL_CSS
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput

KNOWN = " ".join(f"{{{head}.{name}}}" for head, names in databreak.NAMES.items() for name in names)
EXAMPLES = "{phase.attempt} >= 2 · {gate.verdict} == block · {run.costUSD} > 0.2 · {phase.id} == review"


def feedback(expr: str, current: list[str], *, enter: str = "enter adds it") -> str:
    """One or two lines: OK / the syntax error with a caret under the input / each name a data
    breakpoint cannot read, with a did-you-mean (the flow linter's checks, tftui.engine.databreak)."""
    if not expr.strip():
        return "type a condition (the flow's `when` language)"
    if expr in current:
        return "already set — enter removes it"
    problems = databreak.problems(expr)  # the words the refusal uses too
    error = syntax_error(expr)  # only for where the caret goes
    if error is not None and problems:
        caret = " " * max(0, min(error.position, len(expr))) + "^"
        return f"{expr}\n{caret}\n✗ {problems[0]}"
    if problems:
        return "\n".join(f"✗ {p}" for p in problems) + f"\n  known: {KNOWN}"
    return f"✓ syntax OK, names known — {enter}"


class DataBreakpointScreen(SingleAnswerModal[str | None]):
    CSS = MODAL_CSS + """
    DataBreakpointScreen { align: center middle; }
    DataBreakpointScreen #databreak-feedback { height: auto; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: list[str], *, seek: bool = False, value: str = "") -> None:
        super().__init__()
        self.current = [] if seek else current  # a seek sets nothing: nothing to list or remove
        self.seek = seek
        self.value = value
        self.enter = "enter seeks" if seek else "enter adds it"

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            title = ("Seek forward to where a condition turns true" if self.seek
                     else "Data breakpoint — stop when this becomes true")
            yield Folded(title, classes="modal-title")
            yield OrderedInput(self.value, id="databreak-input", placeholder="{phase.attempt} >= 2")
            yield Folded(self._feedback(self.value), id="databreak-feedback", markup=False)
            if not self.seek:
                listed = "\n".join(f"  • {e}" for e in self.current) if self.current else "  (none)"
                yield Folded(f"Set now (type one again to remove it):\n{listed}", id="databreak-list", markup=False)
            enter = "enter seeks" if self.seek else "enter adds"
            yield Folded(f"e.g. {EXAMPLES}\n{enter} · esc cancels", classes="modal-hint", markup=False)

    def _feedback(self, expr: str) -> str:
        return feedback(expr, self.current, enter=self.enter)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#databreak-feedback", Static).update(self._feedback(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        expr = event.value.strip()
        if not expr:
            self.dismiss(None)
        elif expr in self.current or not databreak.problems(expr):
            self.dismiss(expr)
        else:
            self.query_one("#databreak-feedback", Static).update(self._feedback(event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
