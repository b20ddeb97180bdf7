"""The Trace tab's state: folds the run's events into its trace, builds the rule results on
demand (see trace_text.py). Plain state, no widgets: the main screen owns one.

The trace starts at the first `RunStarted` of a fresh run (not `resumed`), so after a
partial re-run (`u`, `r`) the tab shows the whole run like the journal that run writes
(which starts with the previous run's events; see tftui.run_service).

Cost: a journaled run's trace is the one its journal builds as it writes each event
(tftui.trace.record.LiveTrace, what trace.json is written from; `use_run_trace` hands it over
before the run's first event), so the tab shows what the file will hold, redaction included,
and folds no event itself. A run without a journal (and a replay) is folded here as its events
arrive, by the same recorder. Events are not kept (a 10,000-item map's 20,000 events held here
made every full collection of the garbage collector walk them again); showing the tab takes the
trace so far from the recorder, which makes again only the steps that changed since the last
time; that happens only when the tab is shown and the event count changed since the last
build, and at most every `REFRESH_S` while the run goes.

The recent runs' sparklines read up to 30 journals: the debugger reads them in a worker
(`background`: `text` asks for them through `on_history_wanted` and shows them once
`set_history` has them), never the current run's own journal, and each run once (`_samples`,
by run id: a finished run never changes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from tftui.engine import events as ev

if TYPE_CHECKING:  # the trace and the rule engine load after first paint (main_screen warms them up)
    from tftui.trace.columns import TraceColumns
    from tftui.trace.record import LiveTrace
    from tftui.trace.report import GateReport
    from tftui.tui import trace_text

REFRESH_S = 0.5
# While a run goes, a rebuild waits at least this many times as long as the last one took, so
# rebuilding a 10,000-item map's trace (which grows with the run) takes at most ~1/10 of the UI
# thread and keys stay answered; paused or idle, the tab is always current.
BUSY_SHARE = 10

_Key = tuple[int, bool, object, object]
History = tuple[list[dict[str, float]], dict[str, float]]  # recent runs' metrics, this run's


@dataclass
class _Built:
    key: _Key
    trace: TraceColumns  # the normalized trace as columns: the tab never builds a model object per step
    report: GateReport | None
    bodies: dict[tuple[str | None, bool, bool], Text]  # (selected, narrow, with the recent runs)


class TraceTab:
    def __init__(self, *, flow_path: str | None, flow_name: str, runs_root: Path | None = None) -> None:
        self.flow_path = flow_path
        self.flow_name = flow_name
        self.runs_root = runs_root  # where this flow's runs are journaled: the sparklines read them
        self.event_count = 0  # events fed since the fresh run began
        self._live: LiveTrace | None = None  # the trace of those events (_new_live, or the journal's)
        self._fed_elsewhere = False  # `_live` is the run's journal's, fed on the engine's thread
        self._handed: tuple[LiveTrace | None] | None = None  # the next run's trace (`use_run_trace`)
        self._built: _Built | None = None
        self._built_at = 0.0
        self._build_s = 0.0  # how long the last rebuild took (see refresh_interval)
        self._rules: trace_text.RulesCache | None = None
        self._samples: dict[str, dict[str, float]] = {}  # run id -> its metrics (a finished run never changes)
        self.exclude_run: Path | None = None  # the journal of the run these events are (not a "recent run")
        # the debugger: journals are read in a worker (on_history_wanted), text() never reads them
        self.background = False
        self.on_history_wanted: Callable[[int], None] | None = None
        self._history: tuple[int, History | None] | None = None  # (for which events, the sparklines' data)
        self._history_asked: int | None = None

    def history_key(self) -> int:
        """Which run state a history is for: the events so far (a fresh run starts them over)."""
        return self.event_count

    def run_metrics(self) -> dict[str, float]:
        """This run's metrics so far, as the recent runs' are read from their journals
        (tftui.trace.distribution: the trace with its durations)."""
        from tftui.trace.distribution import sample_metrics

        return sample_metrics((self._live or self._new_live()).timed_columns("current"))

    def recent_runs(self, exclude: Path | None = None) -> list[dict[str, float]]:
        """The metrics of the flow's recent runs, read from their journals (not `exclude`, the
        run shown). Reads files: the debugger calls it in a worker."""
        if self.runs_root is None:
            return []
        from tftui.trace.distribution import recent_samples

        return recent_samples(self.runs_root, self.flow_path, cache=self._samples, exclude=exclude)

    def with_run(self, recent: list[dict[str, float]]) -> History | None:
        """The recent runs' metrics and this run's; None with fewer than two recent runs (no
        distribution to place it in: its metrics are not worked out)."""
        return (recent, self.run_metrics()) if len(recent) >= 2 else None

    def load_history(self, exclude: Path | None = None) -> History | None:
        """`recent_runs`, then `with_run`."""
        return self.with_run(self.recent_runs(exclude))

    def set_history(self, key: int, history: History | None) -> None:
        """A worker's `load_history` for the events as they were at `key`."""
        self._history = (key, history)
        self._history_asked = None
        if self._built is not None:
            self._built.bodies.clear()  # drawn again, with the sparklines

    def _current_history(self, running: bool) -> History | None:
        if running or self.runs_root is None:
            return None
        key = self.history_key()
        if self._history is not None and self._history[0] == key:
            return self._history[1]
        if not self.background:
            self.set_history(key, self.load_history(self.exclude_run))
            return self._history[1] if self._history is not None else None
        if self._history_asked != key and self.on_history_wanted is not None:
            self._history_asked = key
            self.on_history_wanted(key)
        return None

    def use_run_trace(self, live: LiveTrace | None) -> None:
        """The trace the next run's journal builds (None: that run has none, the tab folds its
        events itself). Called from the run's thread before the run's first event; the tab
        takes it with that event (`feed`): every event of the runs before was folded by then,
        since a run starts only once the last one's events are all shown."""
        self._handed = (live,)

    def feed(self, events: Iterable[ev.Event]) -> None:
        handed = self._handed
        if handed is not None:
            self._handed = None
            live = handed[0]
            self._fed_elsewhere = live is not None
            if live is not None:
                self._live = live
        for event in events:
            if isinstance(event, ev.RunStarted) and not event.resumed:
                self.event_count = 0  # a fresh run (a sub-flow's RunStarted arrives wrapped)
                if not self._fed_elsewhere:
                    self._live = None
            self.event_count += 1
            if not self._fed_elsewhere:
                (self._live or self._new_live()).feed(event)

    def _new_live(self) -> LiveTrace:
        from tftui.trace.record import LiveTrace

        live = self._live = LiveTrace()
        return live

    def restart(self, events: Iterable[ev.Event]) -> None:
        """Start over from these events (time travel back in a replay)."""
        self.event_count = 0
        self._live = None
        self._fed_elsewhere = False
        self._handed = None
        self.feed(events)

    def refresh_interval(self) -> float:
        """How long a running trace waits between rebuilds: REFRESH_S, longer as it grows."""
        return max(REFRESH_S, BUSY_SHARE * self._build_s)

    def due(self) -> None:
        """The next `text` rebuilds whatever the throttle says (its refresh timer fired)."""
        self._built_at = 0.0

    def rules(self, rules_path: str | None) -> trace_text.RulesCache:
        """The rule set: `rules_path` (--rules FILE), else the one beside the flow."""
        from tftui.tui import trace_text

        path = trace_text.find_rules(self.flow_path, rules_path)
        if self._rules is None or self._rules.path != path:
            self._rules = trace_text.RulesCache(path)
        return self._rules

    def text(
        self, selected: str | None, width: int | None, *, running: bool, paused: bool, rules_path: str | None,
        keymap: dict[str, str] | None = None,
    ) -> Text:
        """Rule results, then the trace's steps. The trace and the rule results are rebuilt only
        when events arrived (or the run ended, or the rule file changed); moving the cursor
        only re-renders the text."""
        from tftui.tui import trace_text

        if not self.event_count:
            return trace_text.trace_tab(None, None, None, None, keymap=keymap)
        rules_cache = self.rules(rules_path)
        rules = rules_cache.get()
        key: _Key = (self.event_count, running, rules_cache.path, rules_cache.stamp)
        built = self._built
        now = time.monotonic()
        # While the run goes, every batch touching the selected phase asks for this tab again:
        # rebuild at most every REFRESH_S (the screen's timer shows the rest). Paused: always current.
        fresh_enough = (
            built is not None and running and not paused and built.key[1] and built.key[2:] == key[2:]
            and now - self._built_at < self.refresh_interval()
        )
        if built is None or (built.key != key and not fresh_enough):
            self._built_at = now
            from tftui.trace.record import fixture_name  # (loaded after first paint, as above)

            fixture = fixture_name(self.flow_path, self.flow_name)
            trace = (self._live or self._new_live()).columns({}, fixture=fixture)
            built = self._built = _Built(key, trace, trace_text.evaluate(trace, rules), {})
            self._build_s = time.monotonic() - now
        history = self._current_history(running)
        narrow = width is not None and width < trace_text.NARROW
        body = built.bodies.get((selected, narrow, history is not None))
        if body is None:
            body = built.bodies[(selected, narrow, history is not None)] = trace_text.trace_tab(
                built.trace, built.report, rules, rules_cache.path, selected=selected, running=running, width=width,
                history=trace_text.history_text(*history, width=width) if history else None,
            )
        return body
