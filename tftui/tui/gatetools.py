"""Gate tools: the gate tab's evaluation history and the Calls tab's attempts timeline.

Every engine event the main screen applies is fed here (`feed`) to two incremental
builders: the gate history and the timelines are built from events, because the folded
RunState keeps only a phase's latest run while these views show every attempt, round and
re-run. Plain state, no widgets: the main screen owns one and the detail panel asks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tftui.engine import events as ev
from tftui.flow.model import Flow

if TYPE_CHECKING:  # the gate history (the scorers, the regex engine) loads after first paint
    from tftui.engine.gate_history import GateHistoryBuilder, GateRecord
    from tftui.engine.timeline import TimelineBuilder


class GateTools:
    def __init__(self, flow: Flow) -> None:
        self.flow = flow  # after a reload, new evaluations are explained with the new file
        self.calls_diff = False  # the Calls tab shows each attempt's prompt as a diff (`D`)
        self._start()

    def _start(self) -> None:
        self._built: tuple[GateHistoryBuilder, TimelineBuilder] | None = None  # made when first fed or asked
        self._index: dict[str, int] = {}  # gate -> the evaluation shown (`[` / `]`); latest when absent

    def _builders(self) -> tuple[GateHistoryBuilder, TimelineBuilder]:
        if self._built is None:
            from tftui.engine.gate_history import GateHistoryBuilder
            from tftui.engine.timeline import TimelineBuilder

            self._built = (GateHistoryBuilder(self.flow), TimelineBuilder())
        return self._built

    def reset(self) -> None:
        """A run from scratch: the history starts over (re-runs and resumes keep it)."""
        self._start()

    def feed(self, events: Iterable[ev.Event]) -> None:
        gates, timeline = self._builders()
        gates.flow = self.flow
        for event in events:
            if isinstance(event, ev.GateVerdict) or (isinstance(event, ev.PhaseFinished) and event.status == "failed"):
                self._index.pop(event.phase_id, None)  # a new evaluation: show the latest
            gates.feed(event)
            timeline.feed(event)

    def records(self, pid: str) -> list[GateRecord]:
        return self._builders()[0].records(pid)

    def shown_index(self, pid: str) -> int | None:
        return self._index.get(pid)

    def flip(self, pid: str, step: int) -> bool:
        """Show an earlier (-1) or later (+1) evaluation of a gate; False when it has none yet."""
        records = self.records(pid)
        if not records:
            return False
        current = self._index.get(pid, len(records) - 1)
        self._index[pid] = max(0, min(len(records) - 1, current + step))
        return True

    # -- what the detail tabs show --------------------------------------------------------
    def gate_panes(self, pid: str, width: int = 80, keymap: dict[str, str] | None = None) -> tuple[Text, Text]:
        spec = self.flow.phase(pid)
        kind = spec.type if spec is not None else None
        from tftui.tui import gate_text

        return gate_text.panes(pid, self.records(pid), self._index.get(pid), width, kind, keymap)

    def calls_text(self, pid: str) -> Text:
        from tftui.tui import timeline_text

        return timeline_text.calls(self._builders()[1].get(pid), diff=self.calls_diff)

