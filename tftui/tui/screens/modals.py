"""Modal screens: help (from the verb registry), human answer, approval, guard editor, log filter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, TextArea

from tftui.tui.actions import VERBS, VERBS_BY_ID, key_for
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput, OrderedTextArea
from tftui.verbs import verbs_for

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


def fit_to_terminal(screen: Screen[Any]) -> None:
    """Give a dialog the app's size classes (`-short` at 80x24, `-narrow`: tui/app.py's
    breakpoints) when it opens. Textual sets them on a Resize, which a screen pushed in a real
    terminal gets only once the terminal is resized, so the what-if dialog opened at 80x24 drew
    its tall layout (the verdict under its buttons) until then."""
    size = screen.app.size
    screen.post_message(events.Resize(size, size))


class HelpScreen(SingleAnswerModal[None]):
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
        for verb in verbs_for("approval"):
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


class AnswerScreen(SingleAnswerModal[str | None]):
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
                yield OrderedTextArea(id="answer-text")
                yield Folded("ctrl+s submits · esc cancels (the call fails)", classes="modal-hint")

    def on_mount(self) -> None:
        fit_to_terminal(self)
        self.query_one(TextArea).focus()

    def action_submit(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _verb_binding(verb_id: str, action: str) -> Binding:
    """A dialog key from the verb registry (its id, so `[keys]` remaps it like any verb)."""
    verb = VERBS_BY_ID[verb_id]
    return Binding(verb.key, action, verb.label, id=verb.binding_id, priority=verb.priority)


class ApprovalScreen(SingleAnswerModal[tuple[str, str | None] | None]):
    """Approve / reject / edit an approval phase. Result: (decision, note).

    Edit opens the text the phase passes on (the upstream output, else the note typed so far)
    in the box for editing; only the approve key (or Save edit) completes the approval, with
    the edited text as the note (docs/language.md §6.6: an edit's output is its note); esc goes
    back to the decision without deciding."""

    CSS = MODAL_CSS + """
    ApprovalScreen TextArea { height: 4; }
    ApprovalScreen.-editing TextArea { height: 1fr; min-height: 4; }
    ApprovalScreen.-editing .modal-box { height: 90%; }
    ApprovalScreen.-editing #approval-previous, ApprovalScreen.-editing #approval-previous-label,
    ApprovalScreen.-editing #approval-message { display: none; }
    ApprovalScreen #approval-edit-buttons { display: none; }
    ApprovalScreen.-editing #approval-edit-buttons { display: block; }
    ApprovalScreen.-editing #approval-buttons { display: none; }
    /* the note, hint and buttons stay on screen at 80x24; a long message/output scrolls above */
    ApprovalScreen #approval-foot { dock: bottom; height: auto; }
    ApprovalScreen .modal-box { overflow-y: auto; }
    ApprovalScreen .modal-title { dock: top; }
    ApprovalScreen.-short .modal-scroll { max-height: 6; }
    ApprovalScreen.-editing #approval-foot { dock: none; height: 1fr; }
    """
    BINDINGS = [
        _verb_binding("approve", "approve"),
        _verb_binding("reject", "decide('reject')"),
        _verb_binding("edit_approval", "edit"),
        Binding("escape", "escape", "Reject / back"),
    ]

    def __init__(self, phase_id: str, message: str, previous_output: str | None) -> None:
        super().__init__()
        self.phase_id = phase_id
        self.message = message
        self.previous_output = previous_output
        self.editing = False
        self._note = ""  # the note typed before an edit, back when the edit is left

    def _key(self, verb_id: str) -> str:
        return key_for(VERBS_BY_ID[verb_id], getattr(self.app, "keymap", None))

    def _hint(self) -> str:
        if self.editing:
            return f"{self._key('approve')} saves the edit and continues · esc back (nothing decided)"
        return (f"note (optional) · {self._key('approve')} approve · {self._key('reject')} reject"
                f" · {self._key('edit_approval')} edit")

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(f"Approval — {self.phase_id}", classes="modal-title", markup=False, id="approval-title")
            yield Folded(self.message, markup=False, id="approval-message")
            # The message usually quotes the upstream output ({steps.x.output}): do not show it twice.
            if self.previous_output and self.previous_output.strip() not in self.message:
                yield Folded("Previous output:", classes="modal-hint", markup=False, id="approval-previous-label")
                with VerticalScroll(classes="modal-scroll", id="approval-previous"):
                    yield Folded(self.previous_output, markup=False)
            with Vertical(id="approval-foot"):
                yield OrderedTextArea(id="approval-note")
                yield Folded("", classes="modal-hint", id="approval-hint")
                with Horizontal(classes="modal-buttons", id="approval-buttons"):
                    yield Button("Approve", id="approve", variant="success")
                    yield Button("Edit", id="edit")
                    yield Button("Reject", id="reject", variant="error")
                with Horizontal(classes="modal-buttons", id="approval-edit-buttons"):
                    yield Button("Save edit", id="save-edit", variant="success")
                    yield Button("Back", id="back")

    def on_mount(self) -> None:
        fit_to_terminal(self)
        self.query_one("#approval-hint", Folded).update(self._hint())
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {"approve": self.action_approve, "edit": self.action_edit, "save-edit": self.action_approve,
                   "back": self.action_escape, "reject": lambda: self.action_decide("reject")}
        actions.get(event.button.id or "reject", lambda: self.action_decide("reject"))()

    def _set_editing(self, editing: bool) -> None:
        self.editing = editing
        self.set_class(editing, "-editing")
        title = f"Edit the output {self.phase_id} passes on" if editing else f"Approval — {self.phase_id}"
        self.query_one("#approval-title", Folded).update(title)
        self.query_one("#approval-hint", Folded).update(self._hint())

    def action_edit(self) -> None:
        if self.editing:
            return
        area = self.query_one(TextArea)
        self._note = area.text
        area.text = self.previous_output or area.text or ""
        area.move_cursor(area.document.end)  # what is typed goes on the text, not before it
        self._set_editing(True)
        area.focus()

    def action_approve(self) -> None:
        if self.editing:
            self.dismiss(("edit", self.query_one(TextArea).text))  # the edited text, as written
            return
        self.action_decide("approve")

    def action_escape(self) -> None:
        if self.editing:  # back to the decision: nothing is decided by leaving the editor
            self.query_one(TextArea).text = self._note
            self._set_editing(False)
            return
        self.action_decide("reject")

    def action_decide(self, decision: str) -> None:
        text = self._note if self.editing else self.query_one(TextArea).text  # a reject while editing: the note
        self.dismiss((decision, text.strip() or None))


class LineInputScreen(SingleAnswerModal[str | None]):
    """One line of input (log filter, export path, replay seek). Enter submits, esc cancels.
    With `check`, a value it finds a problem with is not submitted: the problem shows under it."""

    CSS = MODAL_CSS + """
    LineInputScreen #line-problem { color: $error; height: auto; display: none; }
    LineInputScreen #line-problem.-visible { display: block; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str, hint: str, check: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.hint = hint
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(self.title_text, classes="modal-title", markup=False)
            yield OrderedInput(value=self.value, id="line-input")
            yield Folded("", id="line-problem", markup=False)
            yield Folded(self.hint, classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = self.check(event.value) if self.check is not None else None
        if problem:
            shown = self.query_one("#line-problem", Folded)
            shown.update(problem)
            shown.add_class("-visible")
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
