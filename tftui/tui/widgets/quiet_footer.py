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

What fits: at 80 columns the keys do not all fit, and the ones past the right edge were cut
(issue 15: `?` and `q` were never visible at 80x24). Help and quit (`PINNED`) and the palette
key are pinned to the right edge; the other keys are laid out from the left as long as each
fits whole, and the rest are left to `?` and the palette. The layout is redone on resize.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.binding import Binding
from textual.containers import HorizontalGroup
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tftui.tui import actions

_VERB_ORDER = {v.binding_id: i for i, v in enumerate(actions.VERBS)}
PINNED = ("help", "quit")  # verb ids always shown, at the right edge beside the palette key
_PINNED_IDS = {actions.VERBS_BY_ID[v].binding_id for v in PINNED}

_Shown = tuple[Binding, bool, str]  # binding, enabled, tooltip


def key_width(key: str, description: str) -> int:
    """Cells a FooterKey takes: ` key ` then `description ` (Footer's non-compact padding)."""
    return cell_len(key) + 2 + (cell_len(description) + 1 if description else 0)


class QuietFooter(Footer):
    DEFAULT_CSS = """
    QuietFooter #footer-pinned { dock: right; width: auto; height: 1; border-left: vkey $foreground 20%; }
    QuietFooter #footer-pinned FooterKey.-command-palette { dock: none; border-left: none; padding-right: 1; margin-left: 1; }
    """

    _pending = False
    _shown: tuple[Any, ...] | None = None

    def compose(self) -> Any:
        # Compose the keys with the rest of the first screen (the app's bindings are known by
        # then) instead of after the first refresh: the FooterKey styles are then parsed with
        # everything else at start-up, not in a separate ~60 ms pass once the app is in use.
        self._bindings_ready = True
        self._shown = self._signature()
        left, pinned, palette = self._layout()
        for binding, enabled, tooltip in left:
            yield self._key(binding, enabled, tooltip)
        with HorizontalGroup(id="footer-pinned"):
            for binding, enabled, tooltip in pinned:
                yield self._key(binding, enabled, tooltip)
            if palette is not None:
                binding, enabled, _tooltip = palette
                yield FooterKey(binding.key, self._key_display(binding), binding.description, binding.action,
                                classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)

    def _key(self, binding: Binding, enabled: bool, tooltip: str) -> FooterKey:
        return FooterKey(binding.key, self._key_display(binding), binding.description, binding.action,
                         disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)

    def _layout(self) -> tuple[list[_Shown], list[_Shown], _Shown | None]:
        """(keys from the left that fit whole, pinned keys, the palette key)."""
        shown = self._shown_bindings()
        pinned = [item for item in shown if item[0].id in _PINNED_IDS]
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            active = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if active is not None:
                _, binding, enabled, tooltip = active
                palette = (binding, enabled, tooltip)
        width = self.app.size.width  # the footer spans the screen
        room = width - 1 - sum(key_width(self._key_display(b), b.description) for b, _, _ in pinned)
        if palette is not None:
            room -= key_width(self._key_display(palette[0]), palette[0].description) + 1  # its margin
        left: list[_Shown] = []
        for item in shown:
            if item[0].id in _PINNED_IDS:
                continue
            need = key_width(self._key_display(item[0]), item[0].description)
            if need > room:
                break  # the registry's order is the priority: nothing later jumps the queue
            left.append(item)
            room -= need
        return left, pinned, palette

    def _shown_bindings(self) -> list[_Shown]:
        """The first shown binding of each action; other namespaces' keys (a modal's) first, in
        their order, then the verbs in registry order."""
        first: dict[str, _Shown] = {}
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

    def on_resize(self) -> None:
        if self.is_attached and not self._pending:
            self._pending = True
            self.call_after_refresh(self._recompose_if_changed)

    def _signature(self) -> tuple[Any, ...]:
        left, pinned, palette = self._layout()
        return tuple(
            (self._key_display(binding), binding.action, binding.description, enabled, tooltip)
            for binding, enabled, tooltip in [*left, *pinned]
        ) + (palette is not None,)

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        signature = self._signature()
        if signature == self._shown:
            return
        self._shown = signature
        await self.recompose()
