"""An Input that applies every key in the order it was typed.

Textual's Input inserts a printable key as soon as it arrives, but its editing keys
(backspace, delete, the arrows, home/end, ctrl+u …) are bindings, run only once the key has
bubbled up to the app. Keys that arrive in one burst (a fast typist, a paste of keys, tmux
send-keys) are then applied out of order: emptying the what-if threshold with backspace and
typing `0.55` at once left the field empty, the backspaces deleting the new digits (issue 15).
Here the Input's own bindings run when the key reaches it, before the next key.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        own = self._bindings.key_to_bindings.get(event.key)
        if own:
            event.stop()
            event.prevent_default()
            await self.run_action(own[0].action)
            return
        await super()._on_key(event)
