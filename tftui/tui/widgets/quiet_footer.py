"""A Footer that recomposes once per burst of binding changes, and only when what it shows changed.

Textual's Footer schedules a full recompose (a widget per key, each styled) on every
`bindings_updated` signal: at start-up that is four recomposes in a row (~65 ms cold, then
~25 ms each), and every focus change adds one more even when the keys shown are the same.
They land on the UI loop while a run may already be streaming events, and show up as
key presses waiting 100-200 ms (benchmarks/tui.py, first run). Here, signals arriving while
a recompose is pending ride along with it, and a recompose whose keys would be identical
to the ones on screen is skipped.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class QuietFooter(Footer):
    _pending = False
    _shown: tuple[Any, ...] | None = None

    def compose(self) -> Any:
        # Compose the keys with the rest of the first screen (the app's bindings are known by
        # then) instead of after the first refresh: the FooterKey styles are then parsed with
        # everything else at start-up, not in a separate ~60 ms pass once the app is in use.
        self._bindings_ready = True
        self._shown = self._signature()
        return super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._pending:
            self._pending = True
            self.call_after_refresh(self._recompose_if_changed)

    def _signature(self) -> tuple[Any, ...]:
        app = self.app
        return tuple(
            (app.get_key_display(binding), binding.action, binding.description, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        signature = self._signature()
        if signature == self._shown:
            return
        self._shown = signature
        await self.recompose()
