"""`w` on a gate: what-if. Change the threshold, a weight or a scorer's value/pattern/min/max
and see, as you type, whether the verdict would flip — no runner call, zero tokens
(`tftui.engine.whatif.what_if_gate`). ctrl+w writes the values into the flow file
(`apply_score_edit_to_source` + `save_edit`, which refuses when the file changed on disk).

Each answer is worked out in a worker thread, so a regex scorer's pattern typed into the form
never holds the keyboard: its match has the run's budget (docs/trust.md §3) and releases the
interpreter lock. The usual answer (well under a millisecond) is shown at once, as a run tries a
match in place first; one still going after that says "checking…" until it arrives, and an
answer for values since changed is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from tftui.engine.whatif import REMOVE, ScoreOverrides, WhatIfResult, apply_score_edit_to_source, what_if_gate
from tftui.flow.save import save_edit
from tftui.flow.score_shape import COMBINE_MODES
from tftui.lang.values import js_number_str, js_to_number
from tftui.present import whatif_text
from tftui.tui.screens.modals import MODAL_CSS, fit_to_terminal
from tftui.tui.screens.single_answer import SingleAnswerModal
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.ordered_input import OrderedInput
from tftui.verbs import key_said, reopen_hint

INLINE_WAIT_S = 0.01  # how long the form waits for an answer before it says "checking…" (as REGEX_INLINE_S)
CHECKING = "checking… (a regex scorer is still matching, within its budget)"

# The scorer fields the form offers, by scorer type (strings vs numbers).
TEXT_FIELDS = {"contains": ("value",), "exact-match": ("value",), "regex": ("pattern",)}
NUMBER_FIELDS = {"length-range": ("min", "max")}


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_str(value)
    return str(value)


def form_fields(score: Mapping) -> list[tuple[str, str, str]]:
    """(key, label, initial text) for every editable value of a score block."""
    scorers = [s for s in score.get("scorers") or [] if isinstance(s, Mapping)]
    names = [str(s.get("name") or s.get("type") or f"scorer {i}") for i, s in enumerate(scorers)]
    out = [
        ("combine", "combine (all/any/weighted)", _shown(score.get("combine") or "all")),
        ("threshold", "threshold", _shown(score.get("threshold"))),
    ]
    given = score.get("weights")
    weights = given if isinstance(given, list) else []
    for i, w in enumerate(weights):
        who = names[i] if i < len(names) else "judge" if score.get("judge") is not None else f"#{i}"
        out.append((f"weight-{i}", f"weight {who}", _shown(w)))
    for i, scorer in enumerate(scorers):
        kind = str(scorer.get("type"))
        for name in TEXT_FIELDS.get(kind, ()) + NUMBER_FIELDS.get(kind, ()):
            out.append((f"s{i}-{name}", f"{names[i]}.{name}", _shown(scorer.get(name))))
    return out


def overrides_from_form(score: Mapping, values: Mapping[str, str]) -> tuple[ScoreOverrides, list[str]]:
    """Only the values that differ from the file become overrides; bad numbers become errors."""
    ov = ScoreOverrides()
    errors: list[str] = []
    initial = {key: text for key, _label, text in form_fields(score)}
    labels = {key: label for key, label, _text in form_fields(score)}
    for key, text in values.items():
        if key not in initial or text == initial[key]:
            continue
        if key == "combine":
            mode = text.strip().lower()
            if mode not in COMBINE_MODES:
                errors.append(f"combine: {text!r} must be one of {'|'.join(COMBINE_MODES)}")
            elif mode != initial[key]:
                ov.combine = mode
            continue
        field = key.split("-", 1)[1] if key.startswith("s") and "-" in key else ""
        wants_number = key == "threshold" or key.startswith("weight-") or field in ("min", "max")
        if wants_number:
            if not text.strip():
                if field:  # an emptied min/max: remove the bound
                    ov.scorers.setdefault(int(key[1:].split("-")[0]), {})[field] = REMOVE
                    continue
                errors.append(f"{labels[key]}: enter a number")
                continue
            number = js_to_number(text)
            if number is None:
                errors.append(f"{labels[key]}: {text!r} is not a number")
                continue
            value: Any = int(number) if float(number).is_integer() and field else number
        else:
            value = text
        if key == "threshold":
            ov.threshold = value
        elif key.startswith("weight-"):
            ov.weights[int(key.split("-")[1])] = value
        else:
            ov.scorers.setdefault(int(key[1:].split("-")[0]), {})[field] = value
    if ov.combine is not None:
        _fit_to_mode(ov, score)
    return ov, errors


def _fit_to_mode(ov: ScoreOverrides, score: Mapping) -> None:
    """Keep the score block valid across a combine change (see ScoreOverrides.removed)."""
    if ov.combine != "weighted":
        ov.removed = tuple(k for k in ("weights", "threshold") if k in score)
        ov.threshold, ov.weights = None, {}
    elif not isinstance(score.get("weights"), list):
        listed = score.get("scorers")
        scorers = listed if isinstance(listed, list) else []
        ov.new_weights = [1] * (len(scorers) + (1 if score.get("judge") is not None else 0))


def result_text(result: WhatIfResult | None, errors: list[str]) -> Text:
    out = Text()
    if errors:
        for e in errors:
            out.append(f"✗ {e}\n", style="bold red")
        return out
    if result is None:
        return out
    out.append("before: ", style="bold")
    before = (result.before_verdict or "?").upper()
    out.append(f"{before} ({result.before_source}) — {whatif_text.before_line(result)}\n")
    summary = whatif_text.summary(result)
    if result.errors:
        out.append(f"✗ {summary}\n", style="bold red")
        return out
    after = (result.after_verdict or "?").upper() if result.after_verdict else "UNKNOWN"
    out.append("after:  ", style="bold")
    out.append(f"{after} ({result.after_source}) — {whatif_text.after_line(result)}\n")
    for line in whatif_text.budget_lines(result):
        out.append(f"✗ {line}\n", style="bold red")
    unknown = result.after_verdict is None
    style = "bold yellow" if unknown else "bold green" if not result.flips else "bold magenta"
    out.append(f"→ {summary}\n", style=style)
    out.append(whatif_text.asked_line(result) + "\n")
    estimate = whatif_text.estimate_line(result)
    if estimate:
        out.append(f"estimate {estimate}\n", style="italic")
    return out


class WhatIfScreen(SingleAnswerModal[None]):
    CSS = MODAL_CSS + """
    WhatIfScreen { align: center middle; }
    WhatIfScreen #whatif-form { height: auto; max-height: 9; }
    WhatIfScreen .whatif-row { height: 1; }
    WhatIfScreen .whatif-row Label { width: 30; }
    WhatIfScreen .whatif-row Input { width: 1fr; height: 1; border: none; padding: 0 1; }
    WhatIfScreen #whatif-result { height: auto; }
    WhatIfScreen #whatif-status { height: auto; }
    /* the buttons and the key hint stay on screen at 80x24; the result scrolls above them */
    WhatIfScreen #whatif-foot { dock: bottom; height: auto; }
    WhatIfScreen .modal-box { overflow-y: auto; }
    WhatIfScreen .modal-title { dock: top; }
    /* 80x24: the form scrolls in fewer rows and the buttons take one row, so the whole verdict
       (down to the estimate line the README's walkthrough reads) shows above them */
    WhatIfScreen.-short #whatif-form { max-height: 5; }
    WhatIfScreen.-short #whatif-foot .modal-buttons Button { height: 1; border: none; min-width: 8; }
    """
    BINDINGS = [
        Binding("ctrl+w", "write", "Write to file", priority=True),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, phase: Any, ctx: Any, previous: Any, *, flow_path: str | None, flow_text: str | None) -> None:
        super().__init__()
        self.phase = phase
        self.ctx = ctx
        self.previous = previous
        self.flow_path = flow_path
        self.flow_text = flow_text
        score = getattr(phase, "score", None)
        self.score: Mapping = score if isinstance(score, Mapping) else {}
        self.result: WhatIfResult | None = None
        self.errors: list[str] = []
        self.overrides = ScoreOverrides()
        self._asked = 0  # the form's values, numbered as they change (an older answer is dropped)
        self._answered_for = 0
        self._answer_in = asyncio.Event()  # set while the shown answer is for the current values

    @property
    def checking(self) -> bool:
        """The answer for the current values is still being worked out (in the worker thread)."""
        return self._answered_for != self._asked

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Folded(f"What-if — {self.phase.id} (no model call, zero tokens)", classes="modal-title", markup=False)
            with VerticalScroll(id="whatif-form"):
                if not self.score:
                    yield Folded("This gate has no score block: nothing to change here.", markup=False)
                for key, label, text in form_fields(self.score) if self.score else []:
                    with Horizontal(classes="whatif-row"):
                        yield Label(label, markup=False)
                        yield OrderedInput(value=text, id=f"wi-{key}")
            yield Folded(id="whatif-result", markup=False)
            yield Folded(id="whatif-status", markup=False)
            with Vertical(id="whatif-foot"):
                with Horizontal(classes="modal-buttons"):
                    if self.score:
                        yield Button("Write to file", id="write")
                    yield Button("Close", id="close")
                yield Folded("ctrl+w writes the changed values into the flow file · esc closes", classes="modal-hint")

    def on_mount(self) -> None:
        fit_to_terminal(self)
        threshold = self.query("#wi-threshold")
        inputs = threshold if threshold else self.query(Input)  # the value most what-ifs change
        if inputs:
            inputs.first().focus()
        self.recompute()

    def values(self) -> dict[str, str]:
        return {inp.id[3:]: inp.value for inp in self.query(Input) if inp.id and inp.id.startswith("wi-")}

    def recompute(self) -> None:
        self.overrides, self.errors = overrides_from_form(self.score, self.values())
        self._asked += 1
        asked = self._asked
        self._answer_in.clear()
        if self.errors:
            self._show(asked, None)
            return
        loop = asyncio.get_running_loop()
        box: list[WhatIfResult] = []
        phase, ctx, overrides, previous = self.phase, self.ctx, self.overrides, self.previous

        def work() -> None:
            try:
                box.append(what_if_gate(phase, ctx, overrides, previous=previous, in_worker=True))
            except Exception as exc:  # a bug must not leave the dialog "checking…" for ever
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._fail, asked, f"what-if failed: {type(exc).__name__}: {exc}")
                return
            with contextlib.suppress(RuntimeError):  # the app is gone: nobody waits any more
                loop.call_soon_threadsafe(self._show, asked, box[0])

        worker = threading.Thread(target=work, name="tftui-whatif", daemon=True)
        worker.start()
        worker.join(INLINE_WAIT_S)  # the usual answer: shown at once
        if box:
            self._show(asked, box[0])
        else:
            self.query_one("#whatif-result", Static).update(Text(CHECKING, style="italic"))

    def _show(self, asked: int, result: WhatIfResult | None) -> None:
        if asked != self._asked or self._answered_for == asked or not self.is_attached:
            return  # for values since changed, already shown, or the dialog is closed
        self._answered_for = asked
        self.result = result
        self.query_one("#whatif-result", Static).update(result_text(self.result, self.errors))
        self._answer_in.set()

    def _fail(self, asked: int, message: str) -> None:
        if asked != self._asked or self._answered_for == asked or not self.is_attached:
            return
        self._answered_for = asked
        self.result, self.errors = None, [message]  # and so nothing is written from it
        self.query_one("#whatif-result", Static).update(result_text(None, self.errors))
        self._answer_in.set()

    def on_input_changed(self, _event: Input.Changed) -> None:
        if self.is_mounted:
            self.recompute()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "write":
            await self.action_write()
        else:
            self.action_close()

    async def action_write(self) -> None:
        status = self.query_one("#whatif-status", Static)
        if self.checking:
            status.update("Checking the values before writing…")
            await self._answer_in.wait()  # bounded: every match has its budget
        if self.errors or (self.result is not None and self.result.errors):
            status.update("Not written: fix the values first.")
            return
        if self.overrides.empty:
            status.update("Nothing changed: no write.")
            return
        if self.flow_path is None or self.flow_text is None:
            status.update("Not written: this flow has no file.")
            return
        edit = apply_score_edit_to_source(self.flow_text, self.phase.id, self.overrides)
        saved = save_edit(self.flow_path, self.flow_text, edit.text, edit.error)
        if saved.ok:
            self.flow_text = edit.text
            status.update(f"Written to {self.flow_path} — the reload marks {self.phase.id} stale "
                          f"({self._key('rerun_gate')} re-runs it).")
        elif saved.changed:  # the debugger has reloaded the file: the what-if opens on it again
            status.update(f"Not written: {saved.error}. {reopen_hint('what_if', getattr(self.app, 'keymap', None), 'this')}")
        else:
            status.update(f"Not written: {saved.error}.")

    def _key(self, verb_id: str) -> str:
        return key_said(verb_id, getattr(self.app, "keymap", None))

    def action_close(self) -> None:
        self.dismiss(None)
