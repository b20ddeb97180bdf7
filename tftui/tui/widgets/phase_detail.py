"""The selected phase's detail: tabs for overview, prompt, output, gate, attempts, raw.

One tab strip and one scrolling body: only the active tab's text is built and drawn
(a widget per tab would cost start-up time and a re-render of hidden text on every
event). The body draws only the rows on screen (widgets/text_lines.py) and nothing when the
text did not change. The gate tab shows the scorer report and the judge prompt side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tftui import present
from tftui.engine.state import PhaseState
from tftui.flow.model import PhaseBase
from tftui.tui import detail_text
from tftui.tui.widgets import live_panel
from tftui.tui.widgets.tab_strip import TabStrip
from tftui.tui.widgets.text_lines import TextLines
from tftui.verbs import key_said

TABS = ("overview", "prompt", "output", "gate", "attempts", "raw", "trace")
# Short labels so all six tabs fit at 80 columns.
LABELS = {"overview": "Info", "prompt": "Prompt", "output": "Output", "gate": "Gate", "attempts": "Calls", "raw": "Raw",
          "trace": "Trace"}

# A tab draws at most this much: a Static lays out every line on each update, and a 1,000-item
# map's output or raw state (thousands of lines) re-drawn ~10 times a second would stall the
# keyboard. `o` (full_text) shows all of it in a viewer that draws only what is visible.
BODY_MAX_LINES = 300
BODY_MAX_CHARS = 30_000  # also one huge line (minified JSON) wraps into thousands of rows
PANEL_MAX_CALLS = 100  # the Prompt tab stops building there for the panel (each call is 2+ lines)

GATE_SIDE_BY_SIDE = 110  # detail width from which the gate tab shows scorers and judge side by side


def capped(text: Text, open_key: str = "o") -> Text:
    """`text` cut to its first BODY_MAX_LINES lines, or fewer whole lines when those pass
    BODY_MAX_CHARS characters, with a note saying exactly which lines are drawn, why, and which
    key shows it all; unchanged when it fits."""
    plain = text.plain
    end = min(len(plain), BODY_MAX_CHARS)
    newline = -1
    for _ in range(BODY_MAX_LINES):
        found = plain.find("\n", newline + 1, end)
        if found < 0:
            break
        newline = found
    else:
        end = newline + 1
    if end >= len(plain):
        return text
    if newline >= 0:
        end = newline + 1  # whole lines: a line cut by the character budget is left out whole
    total = plain.count("\n") + (0 if plain.endswith("\n") else 1)
    drawn = plain.count("\n", 0, end)
    head = text[:end]
    if not head.plain.endswith("\n"):
        head.append("\n")
    rest = total - drawn
    if drawn:
        left, shown = f"{rest:,} more line{'s' if rest != 1 else ''}", f"lines 1–{drawn:,} of {total:,}"
    else:  # one huge line (minified JSON)
        left, shown = f"{len(plain) - end:,} more characters", f"the start of line 1 of {total:,}"
    why = f"{BODY_MAX_LINES} lines" if drawn == BODY_MAX_LINES else f"{BODY_MAX_CHARS:,} characters"
    head.append(f"… {left} not drawn here: the panel shows {shown} (it draws at most {why})"
                f" — {open_key} shows the whole text\n", style="dim italic")
    return head


def unwrapped_rows(plain: str, width: int) -> int | None:
    """The rows `plain` takes at `width` cells when no line of it wraps, else None."""
    if width <= 0 or "\t" in plain:
        return None
    lines = plain.split("\n")
    if any(cell_len(line) > width for line in lines):
        return None
    return len(lines)


@dataclass
class _Shown:
    pid: str | None = None
    spec: PhaseBase | None = None
    state: PhaseState | None = None
    stale: bool = False
    breakpoint: bool = False
    guard_override: str | None = None
    file_warnings: list[str] | None = None


class DetailSources(Protocol):
    """Where the tabs that show more than the folded state get their text (gate history,
    attempts timeline, the run's trace)."""

    def gate_tab_panes(self, pid: str, width: int) -> tuple[Text, Text]: ...

    def calls_tab_text(self, pid: str) -> Text: ...

    def trace_tab_text(self, selected: str | None, width: int | None) -> Text: ...

    def live_output(self, pid: str) -> str:
        """The answer streaming in for the phase's call in flight ('' when none)."""
        ...


class PhaseDetail(Vertical):
    DEFAULT_CSS = """
    PhaseDetail { height: 1fr; }
    PhaseDetail #detail-scroll { height: 1fr; }
    PhaseDetail #gate-scroll { height: 1fr; display: none; }
    PhaseDetail #gate-row { height: auto; display: none; }
    PhaseDetail #gate-row.-visible { display: block; }
    PhaseDetail #gate-report, PhaseDetail #gate-judge { width: 1fr; padding: 0 1; }
    """

    sources: DetailSources | None = None  # what the history tabs show (the main screen sets it)
    keymap: dict[str, str] | None = None  # the remapped keys, for the keys the texts name (the app sets it)

    @property
    def open_key(self) -> str:
        """The key of the full_text verb, named in the note under a cut tab."""
        return key_said("full_text", self.keymap)

    def __init__(self, *, glyphs: present.Glyphs = present.UNICODE, show_times: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs  # what a tab shows is folded to ASCII under --ascii (`text()` stays as built)
        self.show_times = show_times
        self.shown = _Shown()
        self._live_shape: tuple[int, int] | None = None  # (rows, width) of the live Output panel shown
        # each gate pane's text shown and its rows (None: some line wraps, or not laid out yet)
        self._pane_shown: dict[str, tuple[Text, int | None]] = {}

    def compose(self) -> ComposeResult:
        yield TabStrip([(t, LABELS[t]) for t in TABS], active="overview", id="detail-tabs")
        yield TextLines(id="detail-scroll")  # every tab but the gate's
        with VerticalScroll(id="gate-scroll"):
            with Horizontal(id="gate-row"):
                yield Static(id="gate-report", markup=False)
                yield Static(id="gate-judge", markup=False)

    @property
    def phase_id(self) -> str | None:
        return self.shown.pid

    @property
    def body(self) -> TextLines:
        """What a tab but the gate's shows its text in."""
        return self.query_one("#detail-scroll", TextLines)

    @property
    def scroller(self) -> Widget:
        """The widget the active tab's text scrolls in (the gate tab's panes have their own)."""
        gate = self.query_one("#gate-scroll")
        return gate if gate.display else self.body

    @property
    def active(self) -> str:
        return self.query_one(TabStrip).active

    @active.setter
    def active(self, tab: str) -> None:
        self.query_one(TabStrip).active = tab

    def cycle(self, step: int) -> None:
        current = self.active
        index = TABS.index(current) if current in TABS else 0
        self.active = TABS[(index + step) % len(TABS)]

    @on(TabStrip.TabActivated)
    def _tab_changed(self, _event: TabStrip.TabActivated) -> None:
        self._render_active()

    def show(
        self,
        pid: str | None,
        spec: PhaseBase | None,
        state: PhaseState | None,
        *,
        stale: bool = False,
        breakpoint: bool = False,
        guard_override: str | None = None,
        file_warnings: list[str] | None = None,
    ) -> None:
        self.shown = _Shown(pid, spec, state, stale, breakpoint, guard_override, file_warnings)
        self._render_active()

    def text(self, tab: str) -> str:
        """The plain text a tab shows for the current phase (gate: report, then judge)."""
        if tab == "gate":
            report, judge = self._gate_panes()
            return f"{report.plain}\n{judge.plain}"
        return self._tab_text(tab, full=True).plain

    def _tab_text(self, tab: str, *, full: bool = False) -> Text:
        """A tab's text; `full=False` (the panel) may stop early where it is cut anyway."""
        s = self.shown
        if tab == "trace":  # the whole run's trace and rule results (the main screen's trace tab)
            sources = self.sources
            return sources.trace_tab_text(s.pid, (self.size.width or 80) - 2) if sources is not None else Text("")
        if s.pid is None:
            return Text("Select a phase in the tree.")
        if tab == "overview":
            return detail_text.overview(
                s.pid,
                s.spec,
                s.state,
                stale=s.stale,
                breakpoint=s.breakpoint,
                guard_override=s.guard_override,
                show_times=self.show_times,
                file_warnings=s.file_warnings,
                keymap=self.keymap,
            )
        if tab == "prompt":
            return detail_text.prompt(s.spec, s.state, max_calls=None if full else PANEL_MAX_CALLS)
        if tab == "output":
            sources = self.sources  # the text streaming in, while the call runs (main screen)
            live = sources.live_output(s.pid) if sources is not None else ""
            return detail_text.output(s.spec, s.state, live)
        if tab == "attempts":
            sources = self.sources  # the attempts timeline (gatetools)
            return sources.calls_tab_text(s.pid) if sources is not None else detail_text.attempts(s.state)
        return detail_text.raw(s.state, max_items=None if full else PANEL_MAX_CALLS)

    def _gate_panes(self) -> tuple[Text, Text]:
        """The app's evaluation history (gatetools) when it has one, else the folded state."""
        sources = self.sources
        if sources is not None and self.shown.pid is not None:
            width = self.size.width or 80
            # Side by side only when each pane gets a readable width; else the judge goes below.
            side_by_side = width >= GATE_SIDE_BY_SIDE
            self.query_one("#gate-row").styles.layout = "horizontal" if side_by_side else "vertical"
            return sources.gate_tab_panes(self.shown.pid, (width // 2 if side_by_side else width) - 2)
        return detail_text.gate(self.shown.state)

    def on_resize(self, _event: object) -> None:
        if self.active == "gate":  # the scorer table's columns depend on the pane width
            self._render_active()

    def _render_active(self) -> None:
        tab = self.active
        body = self.body
        gate_row = self.query_one("#gate-row")
        gate_scroll = self.query_one("#gate-scroll")
        if tab == "gate" and self.shown.pid is not None:
            report, judge = self._gate_panes()
            self._set_pane(self.query_one("#gate-report", Static), report)
            self._set_pane(self.query_one("#gate-judge", Static), judge)
            if body.display:  # a display change lays the screen out again: only on a real change
                body.display, gate_scroll.display = False, True
            self._live_shape = None
            gate_row.add_class("-visible")
        else:
            if not (tab == "output" and self._render_live(body)):
                self._live_shape = None
                body.update(self.glyphs.show_text(capped(self._tab_text(tab), self.open_key)))
            if not body.display:
                body.display, gate_scroll.display = True, False
            gate_row.remove_class("-visible")

    def _set_pane(self, pane: Static, text: Text) -> None:
        """A gate pane's text; the screen is laid out again only when its height may change (a
        gate evaluated again while a run goes redraws the pane in place)."""
        shown = self.glyphs.show_text(text)
        key = pane.id or ""
        before = self._pane_shown.get(key)
        if before is not None and before[0] == shown and shown.style == before[0].style:
            return
        rows = unwrapped_rows(shown.plain, pane.content_size.width)
        pane.update(shown, layout=rows is None or before is None or before[1] != rows)
        self._pane_shown[key] = (shown, rows)

    def _render_live(self, body: TextLines) -> bool:
        """The Output tab while the selected phase's answer streams in: the newest rows, exactly
        as many as the panel has (widgets/live_panel.py), so a new piece repaints the panel alone;
        the first live frame, and one after a resize, lay out. False when nothing streams."""
        s = self.shown
        sources = self.sources
        if s.pid is None or sources is None or not detail_text.streaming(s.state):
            return False
        live = sources.live_output(s.pid)
        rows = body.scrollable_content_region.height
        width = body.text_width
        if not live or rows < 1 or width < 1:  # nothing yet, or not laid out yet: the usual text
            return False
        tail = detail_text.live_tail(live)
        prefix = len(self.glyphs.show("…")) if tail is not live else 0  # the mark of a cut tail
        shown_tail = self.glyphs.show_text(Text(tail))
        whole = len(shown_tail.plain) - prefix  # the tail's characters of the answer

        def note(shown: int) -> Text:
            count = len(tail) - (prefix > 0) if shown >= whole else min(shown, len(live))
            return self.glyphs.show_text(Text(detail_text.streaming_note(len(live), count), style="italic dim"))

        shaped = live_panel.live_rows(note, shown_tail, width, rows)
        shape = (rows, width)
        body.update(shaped.content)  # the same rows: drawn again in place, no layout (text_lines.py)
        self._live_shape = shape
        return True
