"""Modal screens: help (from the verb registry), human answer, approval, guard editor, log filter."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, TextArea

from tftui.tui.actions import VERBS, key_for
from tftui.tui.widgets.folded import Folded

MODAL_CSS = """
.modal-box {
    width: 90%; max-width: 110; height: auto; max-height: 90%;
    border: round $primary; background: $surface; padding: 0 1;
}
.modal-title { text-style: bold; color: $primary; height: auto; }
.modal-scroll { height: auto; max-height: 12; }
.modal-buttons { height: auto; align-horizontal: right; }
.modal-buttons Button { margin-left: 1; min-width: 10; }
.modal-hint { color: $text-muted; height: auto; }
HelpScreen, AnswerScreen, ApprovalScreen, LineInputScreen { align: center middle; }
/* every line reachable at 80x24: the box takes the screen's height, the table scrolls (focused) */
HelpScreen .modal-box { height: 100%; max-height: 100%; }
HelpScreen .modal-scroll { height: 1fr; max-height: 100%; }
"""


class HelpScreen(ModalScreen[None]):
    CSS = MODAL_CSS
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, keymap: dict[str, str], extra: list[tuple[str, str]] | None = None,
                 hidden: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.keymap = keymap
        self.extra = extra or []  # (key, help) rows listed first (the replay screen's keys)
        self.hidden = hidden  # verb actions left out (run controls in a replay)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column(ratio=1)
        for key, help_line in self.extra:
            table.add_row(key, help_line)
        for verb in VERBS:
            if verb.action in self.hidden:
                continue
            help_text = Text(verb.help)
            help_text.append(f"  ({verb.id})", style="dim")
            table.add_row(key_for(verb, self.keymap), help_text)
        table.add_row("ctrl+p", "Command palette: every verb, and the colour themes.")
        table.add_row("tab", "Move focus between tree, detail tabs and log.")
        table.add_row("ctrl+c", "Quit (as q).")
        with Vertical(classes="modal-box"):
            yield Folded("tftui keys", classes="modal-title")
            with VerticalScroll(classes="modal-scroll", id="help-scroll"):
                yield Folded(table, id="help-table")
            yield Folded("↑↓ PgUp PgDn End scroll · esc closes · remap keys: config.toml [keys]",
                         classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()  # the arrows and PgUp/PgDn scroll it

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)


class AnswerScreen(ModalScreen[str | None]):
    """The human runner's question: shows node path and prompt, takes the answer."""

    CSS = MODAL_CSS + """
    AnswerScreen TextArea { height: 8; }
    AnswerScreen.-short TextArea { height: 5; }
    /* the answer box and its key hint stay on screen at 80x24; a long prompt scrolls above */
    AnswerScreen #answer-foot { dock: bottom; height: auto; }
    AnswerScreen .modal-title { dock: top; }
    """
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, node_path: str, prompt: str, attempt: int = 0) -> None:
        super().__init__()
        self.node_path = node_path
        self.prompt_text = prompt
        self.attempt = attempt

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            title = f"Answer as the agent — {self.node_path}"
            if self.attempt:
                title += f" (attempt {self.attempt + 1})"
            yield Folded(title, classes="modal-title", markup=False)
            with VerticalScroll(classes="modal-scroll"):
                yield Folded(self.prompt_text, markup=False, id="answer-prompt")
            with Vertical(id="answer-foot"):
                yield TextArea(id="answer-text")
                yield Folded("ctrl+s submits · esc cancels (the call fails)", classes="modal-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_submit(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ApprovalScreen(ModalScreen[tuple[str, str | None] | None]):
    """Approve / reject / edit an approval phase. Result: (decision, note)."""

    CSS = MODAL_CSS + """
    ApprovalScreen TextArea { height: 4; }
    /* the note, hint and buttons stay on screen at 80x24; a long message/output scrolls above */
    ApprovalScreen #approval-foot { dock: bottom; height: auto; }
    ApprovalScreen .modal-box { overflow-y: auto; }
    ApprovalScreen .modal-title { dock: top; }
    ApprovalScreen.-short .modal-scroll { max-height: 6; }
    """
    BINDINGS = [
        Binding("ctrl+a", "decide('approve')", "Approve", priority=True),
        Binding("ctrl+r", "decide('reject')", "Reject", priority=True),
        Binding("ctrl+e", "decide('edit')", "Edit", priority=True),
        Binding("escape", "decide('reject')", "Reject"),
    ]

    def __init__(self, phase_id: str, message: str, previous_output: str | None) -> None:
        super().__init__()
        self.phase_id = phase_id
        self.message = message
        self.previous_output = previous_output

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(f"Approval — {self.phase_id}", classes="modal-title", markup=False)
            yield Folded(self.message, markup=False)
            # The message usually quotes the upstream output ({steps.x.output}): do not show it twice.
            if self.previous_output and self.previous_output.strip() not in self.message:
                yield Folded("Previous output:", classes="modal-hint", markup=False)
                with VerticalScroll(classes="modal-scroll", id="approval-previous"):
                    yield Folded(self.previous_output, markup=False)
            with Vertical(id="approval-foot"):
                yield TextArea(id="approval-note")
                yield Folded("note (optional) · ctrl+a approve · ctrl+r reject · ctrl+e edit", classes="modal-hint")
                with Horizontal(classes="modal-buttons"):
                    yield Button("Approve", id="approve", variant="success")
                    yield Button("Edit", id="edit")
                    yield Button("Reject", id="reject", variant="error")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_decide(event.button.id or "reject")

    def action_decide(self, decision: str) -> None:
        note = self.query_one(TextArea).text.strip() or None
        self.dismiss((decision, note))


class LineInputScreen(ModalScreen[str | None]):
    """One line of input (guard editor, log filter). Enter submits, esc cancels."""

    CSS = MODAL_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str, hint: str) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(self.title_text, classes="modal-title", markup=False)
            yield Input(value=self.value, id="line-input")
            yield Folded(self.hint, classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
