"""The guard editor (`e` on a phase): edit a `when` with live feedback, then apply or save.

On every keystroke: the parse error with a caret under its position, each placeholder
with the value it resolves to in the current run state, the result, and which of the
phase and its downstream phases would run or be skipped (the engine's admission rule,
tftui.engine.admission.reachability_preview). On a skipped phase the current skip is
explained first.

Results (the app acts on them): ("apply", expr) sets the guard for this run and re-runs
the phase and its downstream; saving writes the file here (surgical `set_when` +
`save_edit`, refused when the file changed on disk since it was loaded) and stays open
on a refusal so the message can be read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Static

from tftui.engine.state import RunState
from tftui.flow.lint import Shape, phase_scope
from tftui.flow.model import Flow
from tftui.tui.screens.modals import MODAL_CSS
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput
from tftui.verbs import reopen_hint

RUN_MARK = {"run": "✓ run ", "skip": "✗ skip", "wait": "… wait"}
RUN_MARK_ASCII = {"run": "+ run ", "skip": "- skip", "wait": "? wait"}
MARK_STYLE = {"run": "green", "skip": "red", "wait": "yellow"}


@dataclass(frozen=True)
class GuardEdit:
    action: str  # "apply" | "saved"
    expr: str
    new_text: str | None = None  # the saved file content ("saved")


class GuardEditorScreen(SingleAnswerModal[GuardEdit | None]):
    CSS = MODAL_CSS + """
    GuardEditorScreen { align: center middle; }
    GuardEditorScreen .modal-box { max-height: 100%; }
    GuardEditorScreen #guard-explain { color: $warning; height: auto; }
    GuardEditorScreen #guard-feedback { height: auto; max-height: 6; }
    GuardEditorScreen #guard-reach-box { height: auto; max-height: 6; }
    GuardEditorScreen #guard-status { height: auto; color: $error; }
    GuardEditorScreen #guard-status.-ok { color: $success; }
    GuardEditorScreen .modal-buttons Button { height: 1; border: none; min-width: 8; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save to file", priority=True),
    ]

    def __init__(
        self,
        flow: Flow,
        state: RunState,
        phase_id: str,
        value: str,
        *,
        flow_path: str | None,
        loaded_text: str | None,
        args: dict[str, Any] | None = None,
        ascii: bool = False,
    ) -> None:
        super().__init__()
        self.flow = flow
        self.state = state
        self.phase_id = phase_id
        self.value = value
        self.flow_path = flow_path
        self.loaded_text = loaded_text
        self.args = args  # the session's --arg values (a run that has not started has no state.args)
        self.marks = RUN_MARK_ASCII if ascii else RUN_MARK
        self._ctx: Any = None
        self._scope: Shape | None = None  # what the guard's placeholders may name (tftui.flow.lint.phase_scope)

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(f"Guard of {self.phase_id} — when", classes="modal-title", markup=False)
            yield Folded(id="guard-explain", markup=False)
            yield OrderedInput(value=self.value, placeholder="empty = always run", id="guard-input")
            yield Folded(id="guard-feedback", markup=False)
            with VerticalScroll(id="guard-reach-box"):
                yield Folded(id="guard-reach", markup=False)
            yield Folded(id="guard-status", markup=False)
            yield Folded("enter apply to this run · ctrl+s save to file · esc cancel", classes="modal-hint")
            with Horizontal(classes="modal-buttons"):
                yield Button("Apply", id="guard-apply", variant="primary")
                yield Button("Save", id="guard-save")
                yield Button("Cancel", id="guard-cancel")

    def on_mount(self) -> None:
        from tftui.engine.state import PhaseStatus
        from tftui.engine.statectx import context_from_state
        from tftui.present.whatif_text import explain_skip

        self._ctx = context_from_state(self.flow, self.state, self.phase_id, args=self.args)
        self._scope = phase_scope(self.flow, self.phase_id, "when")
        explain = self.query_one("#guard-explain", Static)
        st = self.state.phases.get(self.phase_id)
        if st is not None and st.status == PhaseStatus.SKIPPED:
            explain.update(explain_skip(self.flow, self.state, self.phase_id))
        else:
            explain.display = False
        self.query_one("#guard-status", Static).display = False
        self.refresh_feedback(self.value)
        self.query_one(Input).focus()

    # -- live feedback ----------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        self.refresh_feedback(event.value)

    def refresh_feedback(self, expr: str) -> None:
        from tftui.engine.admission import reachability_preview
        from tftui.flow.reach import guard_feedback
        from tftui.present.whatif_text import reach_why

        fb = guard_feedback(expr, self._ctx, self._scope)
        text = Text()
        if fb.error is not None:
            text.append(f"syntax error at column {(fb.caret_col or 0) + 1}: {fb.error}\n", style="bold red")
            text.append(fb.caret_text + "\n")
        for found in fb.lint:  # the same findings `tftui check` reports (docs/linter.md)
            text.append(f"column {found.start + 1}: {found.message}\n", style="bold yellow")
        for ph in fb.placeholders:
            text.append(f"  {ph.ref} = ", style="dim")
            text.append(ph.shown + "\n", style="yellow" if ph.shown == "unresolved" else "")
        text.append("→ " + fb.result_text, style="bold")
        self.query_one("#guard-feedback", Static).update(text)
        reach = Text()
        preview = reachability_preview(
            self.flow, self.state, self.phase_id, expr if expr.strip() else None, args=self.args
        )
        for i, row in enumerate(preview):
            if i:
                reach.append("\n")
            reach.append(self.marks.get(row.outcome, row.outcome), style=MARK_STYLE.get(row.outcome, "red"))
            reach.append(f" {row.phase_id}", style="bold")
            # a false guard's expression is already on screen: only its values are shown
            reach.append(f" — {reach_why(row, with_expr=False)}", style="dim")
        self.query_one("#guard-reach", Static).update(reach)

    def feedback_text(self) -> str:
        """What the editor shows now, as plain text (tests, screen readers)."""
        parts = [
            str(self.query_one(f"#{name}", Static).render())
            for name in ("guard-explain", "guard-feedback", "guard-reach", "guard-status")
            if self.query_one(f"#{name}", Static).display
        ]
        return "\n".join(parts)

    # -- actions ----------------------------------------------------------------------
    @property
    def expr(self) -> str:
        return self.query_one(Input).value

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self.action_apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"guard-apply": self.action_apply, "guard-save": self.action_save}.get(
            event.button.id or "", self.action_cancel
        )()

    def action_apply(self) -> None:
        self.dismiss(GuardEdit("apply", self.expr))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_save(self) -> None:
        from tftui.flow.edit import set_when
        from tftui.flow.save import save_edit

        if self.flow_path is None or self.loaded_text is None:
            self._status("This flow was not loaded from a file: nothing to save to.")
            return
        expr = self.expr
        edit = set_when(self.loaded_text, self.phase_id, expr if expr.strip() else None)
        result = save_edit(self.flow_path, self.loaded_text, edit.text, edit.error)
        if not result.ok:
            hint = f" {reopen_hint('edit_guard', getattr(self.app, 'keymap', None), 'the editor')}" if result.changed else ""
            self._status(f"Not saved: {result.error}.{hint}")
            return
        self.dismiss(GuardEdit("saved", expr, edit.text))

    def _status(self, message: str) -> None:
        status = self.query_one("#guard-status", Static)
        status.update(message)
        status.display = True
