"""A Footer that recomposes once per burst of binding changes, and only when what it shows changed.

Textual's Footer schedules a full recompose (a widget per key, each styled) on every
`bindings_updated` signal: at start-up that is four recomposes in a row (~65 ms cold, then
~25 ms each), and every focus change adds one more even when the keys shown are the same.
They land on the UI loop while a run may already be streaming events, and show up as
key presses waiting 100-200 ms (benchmarks/tui.py, first run). Here, signals arriving while
a recompose is pending ride along with it, and a recompose whose keys would be identical
to the ones on screen is skipped.

The keys are laid out in the verb registry's order, each shown with the key in effect. Textual
re-inserts a binding remapped through `App.set_keymap` at the end of its map (and drops its
`key_display`), so a remapped verb used to move past the right edge of an 80-column footer
and vanish (`step = "f10"`: `c Run/cont  p Pause …`).
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tftui.tui import actions

_VERB_ORDER = {v.binding_id: i for i, v in enumerate(actions.VERBS)}


class QuietFooter(Footer):
    _pending = False
    _shown: tuple[Any, ...] | None = None

    def compose(self) -> Any:
        # Compose the keys with the rest of the first screen (the app's bindings are known by
        # then) instead of after the first refresh: the FooterKey styles are then parsed with
        # everything else at start-up, not in a separate ~60 ms pass once the app is in use.
        self._bindings_ready = True
        self._shown = self._signature()
        # One key per action, as Footer does (our bindings use no groups), in registry order.
        for binding, enabled, tooltip in self._shown_bindings():
            yield FooterKey(binding.key, self._key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            active = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if active is not None:
                _, binding, enabled, _ = active
                yield FooterKey(binding.key, self._key_display(binding), binding.description, binding.action,
                                classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)

    def _shown_bindings(self) -> list[tuple[Binding, bool, str]]:
        """The first shown binding of each action; other namespaces' keys (a modal's) first, in
        their order, then the verbs in registry order."""
        first: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled, tooltip))
        return sorted(first.values(), key=lambda item: _VERB_ORDER.get(item[0].id or "", -1))

    def _key_display(self, binding: Binding) -> str:
        verb = actions.VERBS_BY_BINDING_ID.get(binding.id or "")
        if verb is None:
            return self.app.get_key_display(binding)
        return actions.key_for(verb, getattr(self.app, "keymap", None))

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
            (self._key_display(binding), binding.action, binding.description, enabled, tooltip)
            for binding, enabled, tooltip in self._shown_bindings()
        ) + (app.ENABLE_COMMAND_PALETTE and self.show_command_palette,)

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        signature = self._signature()
        if signature == self._shown:
            return
        self._shown = signature
        await self.recompose()
