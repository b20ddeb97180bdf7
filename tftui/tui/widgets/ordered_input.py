"""An Input and a TextArea that apply every key in the order it was typed.

Textual's Input and TextArea insert a printable key as soon as it arrives, but their editing
keys (backspace, delete, the arrows, home/end, ctrl+u …) are bindings, run only once the key
has bubbled up to the app. Keys that arrive in one burst (a fast typist, a paste of keys, tmux
send-keys) are then applied out of order: emptying the what-if threshold with backspace and
typing `0.55` at once left the field empty, the backspaces deleting the new digits (issue 15).
Here the widget's own bindings run when the key reaches it, before the next key. Every field
a person types into uses these: the what-if form, the guard editor, `B`, the log filter, the
answer and approval dialogs, the viewer's search.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea


async def _run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run the widget's own binding of the key now; False when it has none."""
    own = widget._bindings.key_to_bindings.get(event.key)
    if not own:
        return False
    event.stop()
    event.prevent_default()
    await widget.run_action(own[0].action)
    return True


class OrderedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        if not await _run_own_binding(self, event):
            await super()._on_key(event)


class OrderedTextArea(TextArea):
    async def _on_key(self, event: events.Key) -> None:
        if not await _run_own_binding(self, event):
            await super()._on_key(event)
