"""The footer: the keys in effect on one line, drawn by one widget.

Textual's Footer is a container of one widget per key (each styled and composited on every
frame: with the pinned group, 14 of the screen's widgets); it recomposes on every
`bindings_updated` signal. This footer draws the same line itself, as Textual's Footer and
FooterKey draw it (` key ` then `description `, the palette key compact), re-laid out only
when the keys it shows change, and answers the mouse as they do: a press on a key sends that
key (a bell if the key is disabled), the key under the pointer is highlighted and gives its
tooltip.

The keys are laid out in the verb registry's order, each shown with the key in effect. Textual
re-inserts a binding remapped through `App.set_keymap` at the end of its map (and drops its
`key_display`), so a remapped verb used to move past the right edge of an 80-column footer
and vanish (`step = "f10"`: `c Run/cont  p Pause …`).

What fits: at 80 columns the keys do not all fit, and the ones past the right edge were cut
(issue 15: `?` and `q` were never visible at 80x24). Help and quit (`PINNED`) and the palette
key are pinned to the right edge, after a thin rule; the other keys are laid out from the left
as long as each fits whole, and the rest are left to `?` and the palette. The layout is redone
on resize.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tftui.tui import actions

_VERB_ORDER = {v.binding_id: i for i, v in enumerate(actions.VERBS)}
PINNED = ("help", "quit")  # verb ids always shown, at the right edge beside the palette key
_PINNED_IDS = {actions.VERBS_BY_ID[v].binding_id for v in PINNED}
RULE, ASCII_RULE = "▏", "|"  # the rule before the pinned keys (Textual's `vkey` and `ascii` left borders)

_Shown = tuple[Binding, bool, str]  # binding, enabled, tooltip


def key_width(key: str, description: str) -> int:
    """Cells a key takes: ` key ` then `description `."""
    return cell_len(key) + 2 + (cell_len(description) + 1 if description else 0)


@dataclass(frozen=True)
class _Key:
    """One key on the line: where it starts, what it shows, what a press sends."""

    x: int
    width: int
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    compact: bool = False  # the palette key: `key description`, no padding around the key


class QuietFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",
        "footer-key--item",
        "footer-key--hover",
        "footer--rule",
    }
    # the colours of Textual's Footer and FooterKey, one layer each (see _style)
    DEFAULT_CSS = """
    QuietFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .footer-key--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .footer-key--description {
            color: $footer-description-foreground; background: $footer-description-background;
        }
        & > .footer-key--item { background: $footer-item-background; }
        & > .footer-key--hover { background: $block-hover-background; }
        & > .footer--rule { color: $foreground 20%; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._keys: list[_Key] = []
        self._rule_x: int | None = None
        self._shown: tuple[Any, ...] | None = None
        self._pending = False
        self._hover: int | None = None  # index in _keys of the key under the pointer

    # -- which keys, where ----------------------------------------------------------------
    def _layout(self) -> tuple[list[_Shown], list[_Shown], _Shown | None]:
        """(keys from the left that fit whole, pinned keys, the palette key)."""
        shown = self._shown_bindings()
        pinned = [item for item in shown if item[0].id in _PINNED_IDS]
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE:
            active = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if active is not None:
                _, binding, enabled, tooltip = active
                palette = (binding, enabled, binding.tooltip or binding.description)
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

    def _place(self) -> tuple[Any, ...]:
        """Lay the keys out for the current width and bindings; returns what they show."""
        left, pinned, palette = self._layout()
        width = self.app.size.width
        keys: list[_Key] = []
        x = 0
        for binding, enabled, tooltip in left:
            display = self._key_display(binding)
            w = key_width(display, binding.description)
            keys.append(_Key(x, w, binding.key, display, binding.description, enabled, tooltip))
            x += w
        # the pinned group, docked right: rule, pinned keys, margin, palette key, padding
        pinned_keys = [(b, e, t, self._key_display(b)) for b, e, t in pinned]
        group = 1 + sum(key_width(d, b.description) for b, _, _, d in pinned_keys)
        if palette is not None:
            display = self._key_display(palette[0])
            group += 1 + cell_len(display) + (1 + cell_len(palette[0].description) if palette[0].description else 0) + 1
        x = self._rule_x = width - group
        x += 1
        for binding, enabled, tooltip, display in pinned_keys:
            w = key_width(display, binding.description)
            keys.append(_Key(x, w, binding.key, display, binding.description, enabled, tooltip))
            x += w
        if palette is not None:
            binding, enabled, tooltip = palette
            display = self._key_display(binding)
            w = cell_len(display) + (1 + cell_len(binding.description) if binding.description else 0) + 1
            keys.append(_Key(x + 1, w, binding.key, display, binding.description, enabled, tooltip, compact=True))
        self._keys = keys
        return (width, *((k.x, k.display, k.description, k.enabled, k.tooltip) for k in keys))

    # -- keeping it current ---------------------------------------------------------------
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self._shown = self._place()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._relayout_soon()

    def on_resize(self) -> None:
        self._relayout_soon()

    def _relayout_soon(self) -> None:
        # signals arriving while a re-layout is pending ride along with it
        if self.is_attached and not self._pending:
            self._pending = True
            self.call_after_refresh(self._relayout_if_changed)

    def _relayout_if_changed(self) -> None:
        self._pending = False
        shown = self._place()
        if shown != self._shown:
            self._shown = shown
            self._hover = None
            self.refresh()

    # -- drawing ----------------------------------------------------------------------------
    def _style(self, component: str, hover: bool, enabled: bool = True) -> Style:
        """A component's style on a key, composited as Textual composites FooterKey's: the
        footer's background, the key's (the hover one under the pointer), the component's."""
        background = self.background_colors[1]
        layer = self.get_component_styles("footer-key--hover" if hover else "footer-key--item")
        if layer.has_rule("background"):
            background = background + layer.background
        styles = self.get_component_styles(component)
        if styles.has_rule("background"):
            background = background + styles.background
        color = styles.color if styles.has_rule("color") else self.styles.color
        style = styles.text_style + Style.from_color((background + color).rich_color, background.rich_color)
        return style if enabled else Style(dim=True) + style

    def _blank(self, hover: bool = False) -> Style:
        background = self.background_colors[1]
        if hover:
            layer = self.get_component_styles("footer-key--hover")
            if layer.has_rule("background"):
                background = background + layer.background
        return Style.from_color(None, background.rich_color)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y != 0 or width <= 0:
            return Strip.blank(width, self._blank())
        segments: list[Segment] = []
        x = 0

        def fill(to: int) -> None:
            nonlocal x
            if to > x:
                segments.append(Segment(" " * (to - x), self._blank()))
                x = to

        rule_drawn = self._rule_x is None

        def rule() -> None:
            nonlocal x, rule_drawn
            assert self._rule_x is not None
            fill(self._rule_x)
            background = self.background_colors[1]
            color = background + self.get_component_styles("footer--rule").color
            segments.append(Segment(ASCII_RULE if self.app.has_class("-ascii") else RULE,
                                    Style.from_color(color.rich_color, background.rich_color)))
            x += 1
            rule_drawn = True

        for index, key in enumerate(self._keys):
            if not rule_drawn and key.x > (self._rule_x or 0):
                rule()
            fill(key.x)
            hover = index == self._hover
            key_style = self._style("footer-key--key", hover, key.enabled)
            description_style = self._style("footer-key--description", hover, key.enabled)
            if key.compact:
                segments.append(Segment(key.display, key_style))
                if key.description:
                    segments.append(Segment(f" {key.description}", description_style))
                segments.append(Segment(" ", self._blank(hover)))  # its padding
            else:
                segments.append(Segment(f" {key.display} ", key_style))
                if key.description:
                    segments.append(Segment(f"{key.description} ", description_style))
            x = key.x + key.width
        if not rule_drawn:
            rule()
        fill(width)
        return Strip(segments).crop(0, width)

    # -- the mouse ------------------------------------------------------------------------
    def _key_at(self, x: int) -> int | None:
        for index, key in enumerate(self._keys):
            if key.x <= x < key.x + key.width:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_at(self._key_at(event.x))

    def on_leave(self, _event: events.Leave) -> None:
        self._hover_at(None)

    def _hover_at(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        self.tooltip = self._keys[index].tooltip or None if index is not None else None
        self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._key_at(event.x)
        if index is None:
            return
        key = self._keys[index]
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()
