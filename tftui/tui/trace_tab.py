"""The Trace tab, as a mixin of TftuiApp: keeps the run's events, builds the trace and the
rule results on demand (see trace_text.py), and notes from the run worker's thread.

Events are kept from the first `RunStarted` of a fresh run (not `resumed`) on, so after a
partial re-run (`u`, `r`) the tab shows the whole run like the journal that run writes
(which starts with the previous run's events; see journaling.py).

Cost: the trace is rebuilt only when the tab is shown and the event count changed since
the last build, and refreshed at most every `REFRESH_S` while the run goes.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from tftui.engine import events as ev
from tftui.tui import trace_text

REFRESH_S = 0.5


class TraceTabMixin:
    # provided by TftuiApp
    flow: Any
    flow_path: str | None
    ctl: Any
    batcher: Any
    rules_path: str | None = None  # --rules FILE (open_flow sets it)

    _trace_events: list[ev.Event]
    _trace_cache: tuple[tuple[Any, ...], tuple[Any, Any], dict[tuple[str | None, bool], Text]] | None
    _trace_built_at: float
    _trace_rules: trace_text.RulesCache | None
    _trace_timer: Any

    def _trace_state(self) -> None:
        if not hasattr(self, "_trace_events"):
            self._trace_events = []
            self._trace_cache = None
            self._trace_built_at = 0.0
            self._trace_rules = None
            self._trace_timer = None

    def record_trace_events(self, events: list[ev.Event]) -> None:
        self._trace_state()
        for event in events:
            if isinstance(event, ev.RunStarted) and not event.resumed:
                self._trace_events = []  # a fresh run (a sub-flow's RunStarted arrives wrapped)
            self._trace_events.append(event)
        detail = self.query_one("#detail")  # type: ignore[attr-defined]
        if detail.active == "trace" and self._trace_timer is None:
            self._trace_timer = self.set_timer(REFRESH_S, self._trace_refresh)  # type: ignore[attr-defined]

    def _trace_refresh(self) -> None:
        self._trace_timer = None
        if self.query_one("#detail").active == "trace":  # type: ignore[attr-defined]
            self._trace_built_at = 0.0  # due now: the throttle in trace_tab_text must not skip it
            self.show_selected()  # type: ignore[attr-defined]

    def trace_rules(self) -> trace_text.RulesCache:
        self._trace_state()
        path = trace_text.find_rules(self.flow_path, self.rules_path)
        if self._trace_rules is None or self._trace_rules.path != path:
            self._trace_rules = trace_text.RulesCache(path)
        return self._trace_rules

    def trace_tab_text(self, selected: str | None, width: int | None = None) -> Text:
        """The Trace tab (PhaseDetail asks the app): rule results, then the trace's steps.

        The trace and the rule results are rebuilt only when events arrived (or the run
        ended, or the rule file changed); moving the cursor only re-renders the text."""
        self._trace_state()
        events = self._trace_events
        if not events:
            return trace_text.trace_tab(None, None, None, None)
        running = bool(self.ctl.running)
        rules_cache = self.trace_rules()
        rules = rules_cache.get()
        key = (len(events), running, rules_cache.path, rules_cache.stamp)
        cache = self._trace_cache
        now = time.monotonic()
        # While the run goes, every batch touching the selected phase asks for this tab again:
        # rebuild at most every REFRESH_S (the timer in record_trace_events shows the rest).
        # Paused (stepping): always current.
        paused = getattr(getattr(self, "state", None), "paused", None) is not None
        fresh_enough = (
            cache is not None and running and not paused and cache[0][1] and cache[0][2:] == key[2:]
            and now - self._trace_built_at < REFRESH_S
        )
        if cache is None or (cache[0] != key and not fresh_enough):
            self._trace_built_at = now
            from tftui.trace.record import trace_from_events

            trace = trace_from_events(events, trace_text.fixture_name(self.flow_path, self.flow.name))
            cache = self._trace_cache = (key, (trace, trace_text.evaluate(trace, rules)), {})
        trace, report = cache[1]
        bodies = cache[2]
        narrow = width is not None and width < trace_text.NARROW
        if (selected, narrow) not in bodies:
            bodies[(selected, narrow)] = trace_text.trace_tab(
                trace, report, rules, rules_cache.path, selected=selected, running=running, width=width
            )
        return bodies[(selected, narrow)]

    # -- notes from the run worker's thread ---------------------------------------------
    def _note_from_thread(self, text: str) -> None:
        loop = self.batcher.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._add_note, text)

    def _add_note(self, text: str) -> None:
        try:
            self.query_one("#log").add_note(text)  # type: ignore[attr-defined]
        except Exception:  # the app is closing: the note has nowhere to go
            pass

    # -- verb -----------------------------------------------------------------------------
    def action_trace_tab(self) -> None:
        """`T`: jump to the Trace tab (it is the last tab, off-screen at 80 columns); again: back."""
        detail = self.query_one("#detail")  # type: ignore[attr-defined]
        if detail.active == "trace":
            detail.active = getattr(self, "_trace_back_to", None) or "overview"
        else:
            self._trace_back_to = detail.active
            detail.active = "trace"
