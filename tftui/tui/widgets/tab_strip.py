"""The detail's tab strip: the tab labels and the bar under the active one, drawn by one widget.

Textual's Tabs is a tree of twelve widgets (containers, a Tab per label, the underline bar),
each styled and composited on every frame. This strip draws the same two lines itself, as
Tabs draws them: ` Label ` per tab (the active one in the foreground colour, in the block
cursor's colours while the strip has the focus), the bar under it (Textual's `Bar`); when the
labels are wider than the strip they scroll, the active tab centred as Tabs centres it. It
answers the keys and the mouse as Tabs does: left/right move to the previous/next tab (round),
a click on a label or on the bar under it activates that tab and gives the strip the focus,
the label under the pointer is highlighted. Under `--ascii` the strip is one line (no bar)
and the active tab is in reverse (styles/app.tcss). What changed: the bar moves to the new
tab at once (Tabs animated it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.renderables.bar import Bar
from textual.strip import Strip
from textual.widget import Widget


class TabStrip(Widget, can_focus=True):
    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tab-strip--tab",
        "tab-strip--hover",
        "tab-strip--active",
        "tab-strip--focused-active",
        "tab-strip--bar",
        "tab-strip--focused-bar",
    }
    # the rules of Textual's Tab, Tabs and Underline, one component each (Tab: `padding: 0 1`)
    DEFAULT_CSS = """
    TabStrip {
        width: 100%;
        height: 2;
        & > .tab-strip--tab { color: $foreground 50%; }
        & > .tab-strip--hover { color: $foreground; }
        & > .tab-strip--active { color: $foreground; }
        & > .tab-strip--focused-active {
            text-style: $block-cursor-text-style;
            color: $block-cursor-foreground;
            background: $block-cursor-background;
        }
        & > .tab-strip--bar { color: $block-cursor-background; background: $foreground 10%; }
        & > .tab-strip--focused-bar { color: $block-cursor-background; background: $foreground 30%; }
        &:ansi {
            & > .tab-strip--tab, & > .tab-strip--hover { text-style: dim; }
            & > .tab-strip--active, & > .tab-strip--focused-active { text-style: not dim bold; }
            & > .tab-strip--bar, & > .tab-strip--focused-bar { background: $border-blurred; }
        }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "previous_tab", "Previous tab", show=False),
        Binding("right", "next_tab", "Next tab", show=False),
    ]

    class TabActivated(Message):
        """A tab became the active one (also the first one, once mounted)."""

        def __init__(self, strip: TabStrip, tab: str) -> None:
            super().__init__()
            self.strip = strip
            self.tab = tab

        @property
        def control(self) -> TabStrip:
            return self.strip

    def __init__(self, tabs: list[tuple[str, str]], *, active: str, **kwargs: Any) -> None:
        """`tabs`: (id, label) in order."""
        super().__init__(**kwargs)
        self._ids = [tab_id for tab_id, _ in tabs]
        self._labels = [label for _, label in tabs]
        self._active = active
        self._hover: int | None = None
        self._scroll_x = 0
        # where each tab starts on the (unscrolled) line; each is ` label `
        self._starts: list[int] = []
        x = 0
        for label in self._labels:
            self._starts.append(x)
            x += cell_len(label) + 2
        self._line_width = x

    # -- the active tab -----------------------------------------------------------------
    @property
    def active(self) -> str:
        return self._active

    @active.setter
    def active(self, tab: str) -> None:
        if tab not in self._ids:
            raise ValueError(f"No tab with id {tab!r}")
        if tab == self._active:
            return
        self._active = tab
        self._scroll_to_active()
        self.refresh()
        self.post_message(self.TabActivated(self, tab))

    def on_mount(self) -> None:
        self.post_message(self.TabActivated(self, self._active))

    def action_next_tab(self) -> None:
        self._move(1)

    def action_previous_tab(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        index = self._ids.index(self._active)
        self.active = self._ids[(index + step) % len(self._ids)]

    # -- scrolling: the active tab centred, as Widget.scroll_to_center does it -------------
    def on_resize(self, _event: events.Resize) -> None:
        self._scroll_to_active()
        self.refresh()

    def _scroll_to_active(self) -> None:
        window = self.size.width
        if window <= 0:
            return
        index = self._ids.index(self._active)
        start, width = self._starts[index], cell_len(self._labels[index]) + 2
        most = max(0, self._line_width - window)
        scroll = self._scroll_x
        delta = int(start + width / 2 - (scroll + window / 2) + 0.5)
        scroll = min(max(scroll + delta, 0), most)
        if not scroll <= start < scroll + window:  # its start stays in view
            scroll = min(max(start, 0), most)
        self._scroll_x = scroll

    # -- drawing ------------------------------------------------------------------------
    def _tab_style(self, index: int) -> Style:
        if self._ids[index] == self._active:
            return self.get_component_rich_style("tab-strip--focused-active" if self.has_focus else "tab-strip--active")
        return self.get_component_rich_style("tab-strip--hover" if index == self._hover else "tab-strip--tab")

    def _padding_style(self, index: int) -> Style:
        """A tab's padding: its background alone (a Tab's padding is drawn so)."""
        style = self._tab_style(index)
        return Style(bgcolor=style.bgcolor)

    def _labels_line(self, width: int) -> Strip:
        blank = Style(bgcolor=self.rich_style.bgcolor)
        segments: list[Segment] = []
        for index, label in enumerate(self._labels):
            padding = self._padding_style(index)
            segments += [Segment(" ", padding), Segment(label, self._tab_style(index)), Segment(" ", padding)]
        line_width = max(self._line_width, width)
        if line_width > self._line_width:
            segments.append(Segment(" " * (line_width - self._line_width), blank))
        return Strip(segments, line_width).crop(self._scroll_x, self._scroll_x + width)

    def _bar_line(self, width: int) -> Strip:
        bar_style = self.get_component_rich_style("tab-strip--focused-bar" if self.has_focus else "tab-strip--bar")
        index = self._ids.index(self._active)
        start = self._starts[index] + 1
        end = start + cell_len(self._labels[index])
        line_width = max(self._line_width, width)
        bar = Bar(highlight_range=(start, end), highlight_style=Style.from_color(bar_style.color),
                  background_style=Style.from_color(bar_style.bgcolor), width=line_width)
        console = self.app.console
        segments = list(console.render(bar, console.options.update(width=line_width, height=1)))
        base = Style(bgcolor=self.rich_style.bgcolor)
        line = [Segment(s.text, base + s.style if s.style else base) for s in segments if s.text != "\n"]
        return Strip(line, line_width).crop(self._scroll_x, self._scroll_x + width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            return self._labels_line(width)
        if y == 1:
            return self._bar_line(width)
        return Strip.blank(width, Style(bgcolor=self.rich_style.bgcolor))

    def on_focus(self, _event: events.Focus) -> None:
        self.refresh()

    def on_blur(self, _event: events.Blur) -> None:
        self.refresh()

    # -- the mouse ----------------------------------------------------------------------
    def _tab_at(self, x: int) -> int | None:
        x += self._scroll_x
        for index, start in enumerate(self._starts):
            if start <= x < start + cell_len(self._labels[index]) + 2:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._tab_at(event.x))

    def on_leave(self, _event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover:
            self._hover = index
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        index = self._tab_at(event.x)
        if index is None:
            return
        event.stop()
        self.focus()
        self.active = self._ids[index]
