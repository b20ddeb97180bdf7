"""`B`: a one-line condition for a data breakpoint, with syntax feedback while typing.

Enter adds the expression (or removes it when it is already set); esc cancels.
An expression with a syntax error is never accepted: the caret line says where.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tftui.engine import databreak
from tftui.lang.condition import syntax_error
from tftui.tui.screens.modals import MODAL_CSS
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput

KNOWN = " ".join(f"{{{head}.{name}}}" for head, names in databreak.NAMES.items() for name in names)
EXAMPLES = "{phase.attempt} >= 2 · {gate.verdict} == block · {run.costUSD} > 0.2 · {phase.id} == review"


def feedback(expr: str, current: list[str]) -> str:
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
    return "✓ syntax OK, names known — enter adds it"


class DataBreakpointScreen(ModalScreen[str | None]):
    CSS = MODAL_CSS + """
    DataBreakpointScreen { align: center middle; }
    DataBreakpointScreen #databreak-feedback { height: auto; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: list[str]) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded("Data breakpoint — stop when this becomes true", classes="modal-title")
            yield OrderedInput(id="databreak-input", placeholder="{phase.attempt} >= 2")
            yield Folded(feedback("", self.current), id="databreak-feedback", markup=False)
            listed = "\n".join(f"  • {e}" for e in self.current) if self.current else "  (none)"
            yield Folded(f"Set now (type one again to remove it):\n{listed}", id="databreak-list", markup=False)
            yield Folded(f"e.g. {EXAMPLES}\nenter adds · esc cancels", classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#databreak-feedback", Static).update(feedback(event.value, self.current))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        expr = event.value.strip()
        if not expr:
            self.dismiss(None)
        elif expr in self.current or not databreak.problems(expr):
            self.dismiss(expr)
        else:
            self.query_one("#databreak-feedback", Static).update(feedback(event.value, self.current))

    def action_cancel(self) -> None:
        self.dismiss(None)
