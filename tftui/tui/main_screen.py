"""The main screen: the DAG tree, the selected phase's detail, the event log and the verbs.

Data path: engine event -> `EventBatcher` (≤ ~10 flushes/s) -> one `EngineEvents`
message -> folded into the session's `state` -> the touched tree labels are set in place,
the header and (if the selected phase was touched) the detail are refreshed.

The screen owns its widgets (typed accessors below, no string ids outside `compose`) and
the views' own state: the gate history and timelines (`GateTools`), the Trace tab
(`TraceTab`) and hot reload (`Reloader`). The run itself, the flow and the folded state
are the session's (`TftuiApp`): the screen reads them and never edits `RunState` except
by folding events.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static, Tree
from textual.worker import Worker, WorkerState

from tftui.engine import events as ev
from tftui.engine.resume import with_downstream
from tftui.engine.state import RunState, apply
from tftui.flow import checks
from tftui.flow.model import Flow
from tftui.tui import actions, native_memory, verbs
from tftui.tui.gatetools import GateTools
from tftui.tui.journaling import Rerun, journaled_run
from tftui.tui.messages import EngineEvents, FlowChanged, FlowLinted, RunEnded
from tftui.tui.reload import WATCH_WORKERS, Reloader
from tftui.tui.subtree import detail_state
from tftui.tui.trace_tab import BUSY_SHARE, TraceTab
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.event_log import EventLog
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.phase_detail import PhaseDetail
from tftui.tui.widgets.quiet_footer import QuietFooter
from tftui.tui.widgets.run_header import RunHeader, header_parts
from tftui.verbs import run_keys

if TYPE_CHECKING:
    from tftui.admit import Admission
    from tftui.tui.app import TftuiApp

# One UI step folds engine events for about this long, then the loop runs. A key goes through
# ~5 message queues (the app, the focused widget, its ancestors, the app's bindings) and each hop
# waits behind a fold step already queued: 4 ms steps cost a key ~20 ms during a 10,000-item map
# (key wait p50 26-40 ms), 1 ms steps 17-24 ms, with no longer runs (benchmarks/tui.py --only tabs).
FOLD_STEP_S = 0.001
FOLD_CHUNK = 16  # events folded between two looks at the clock
SHOW_EVERY_S = 0.1  # while events queue up: what they changed is shown at most this often (~10 repaints/s)
IDLE_RETRY_S = 0.05  # the idle collection's timer fires this much after it is due (a key may come meanwhile)
TRIM_AFTER_S = 1.0  # after a run, the allocator's free pages are given back this much later
LIVE_TICK_S = 0.1  # streamed text is drawn at most this often (~10 repaints/s, however fast it arrives)
DETAIL_REFRESH_S = 0.2  # while a run goes: the selected phase's detail is redrawn at most this often
RUN_WORKERS = "run"  # the worker group of runs (see on_worker_state_changed)
BACKGROUND_WORKERS = "background"  # start-up warm-up, the Trace tab's recent runs


class MainScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*actions.bindings()]

    def __init__(self, session: TftuiApp) -> None:
        super().__init__()
        self.session = session
        self.gate_tools = GateTools(session.flow)
        self.trace_tab = TraceTab(flow_path=session.flow_path, flow_name=session.flow.name, runs_root=session.runs_root)
        self.trace_tab.background = True  # its journals are read in a worker (_trace_history_worker)
        self.trace_tab.on_history_wanted = self._want_trace_history
        self.reloader = Reloader(self)
        self._event_queue: deque[ev.Event] = deque()
        self._draining = False
        self._touched: set[str] = set()  # phases folded events touched, not shown yet (_show_folded)
        self._log_pending: list[ev.Event] = []  # folded events not in the log yet
        self._folded_shown_at = 0.0
        self._run_end: RunEnded | None = None
        self._restart_pending = False
        self._detail_timer: Timer | None = None
        self._idle_timer: Timer | None = None  # the idle garbage collection after a run (_collect_when_idle)
        self._detail_shown_at = 0.0
        self._detail_cost = 0.0  # how long the last detail redraw took
        self._trace_timer: Timer | None = None
        self._trace_back_to: str | None = None

    # The screen's own lines (its background, under the widgets) are drawn again by Textual's
    # styles pipeline whenever the whole screen repaints (a screen refresh): ~40% of such a frame
    # at 120x40. They depend only on what is asked and on the screen's style: kept until that changes.
    _own_lines: tuple[tuple[object, ...], list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        app = self.app
        key = (crop, self.size, self.rich_style, self.styles.background, app.theme, app.ansi_color,
               tuple((type(f), f.enabled) for f in app._filters))
        if self._own_lines is None or self._own_lines[0] != key:
            self._own_lines = (key, super().render_lines(crop))
        return self._own_lines[1]

    # -- composition and typed accessors -----------------------------------------------
    def compose(self) -> ComposeResult:
        glyphs, show_times = self.session.glyphs, self.session.show_times
        yield RunHeader(id="run-header")
        with Horizontal(id="main"):
            yield DagTree(glyphs=glyphs, show_times=show_times, id="tree")
            with Vertical(id="right"):
                yield Folded(id="diagnostics", markup=False)
                yield Folded(id="reload-note", markup=False)
                yield PhaseDetail(glyphs=glyphs, show_times=show_times, id="detail")
        yield EventLog(glyphs=glyphs, id="log")
        yield QuietFooter()  # the keys on one line, drawn by one widget

    @property
    def dag(self) -> DagTree:
        return self.query_one("#tree", DagTree)

    @property
    def detail(self) -> PhaseDetail:
        return self.query_one("#detail", PhaseDetail)

    @property
    def event_log(self) -> EventLog:
        return self.query_one("#log", EventLog)

    @property
    def run_header(self) -> RunHeader:
        return self.query_one("#run-header", RunHeader)

    @property
    def diagnostics_panel(self) -> Static:
        return self.query_one("#diagnostics", Static)

    @property
    def reload_note(self) -> Static:
        return self.query_one("#reload-note", Static)

    @property
    def right_pane(self) -> Vertical:
        return self.query_one("#right", Vertical)

    def on_mount(self) -> None:
        self.session.main_mounted()

    def start(self) -> None:
        """Set the widgets up for the session (the app calls it once its settings are read)."""
        session = self.session
        self.detail.keymap = session.keymap
        self.detail.sources = self
        tree = self.dag
        tree.state = session.state
        tree.stale = session.state.stale  # shared sets: the tree reads them when it draws a label
        tree.breakpoints = session.ctl.breakpoints
        tree.now = session.now
        tree.load(session.flow)
        tree.focus()
        self.refresh_header()
        if session.animations:
            self.set_interval(0.25, self._tick_spinner)
        if session.show_times:
            self.set_interval(1.0, self._tick_clock)
        if session.watch_enabled:
            self.reloader.start_watcher()
        self.set_interval(LIVE_TICK_S, self._tick_live)
        loop = asyncio.get_running_loop()
        ui_context = contextvars.copy_context()  # the app's context: widgets need the active app
        # a new answer is drawn at once, not at the next tick
        session.live_text.on_first = lambda: loop.call_soon_threadsafe(self._tick_live, context=ui_context)
        self.call_after_refresh(self._warm_up_worker)

    # -- background work ------------------------------------------------------------
    @work(thread=True, group=BACKGROUND_WORKERS, exit_on_error=False)
    def _warm_up_worker(self) -> None:
        """After first paint, in a thread: load what the first run, the first save and the Trace
        tab need (the engine, the run service, the rule engine; the flow's fingerprints), so
        first paint does not wait for them and the first `c` or save does not either."""
        import tftui.engine.gate_history  # noqa: F401
        import tftui.run_service  # noqa: F401
        import tftui.trace.record  # noqa: F401
        import tftui.tui.gate_text  # noqa: F401
        import tftui.tui.timeline_text  # noqa: F401
        import tftui.tui.trace_text  # noqa: F401
        from tftui.flow.graph import phase_prints

        phase_prints(self.session.flow)

    def lint_after_first_paint(self, admission: Admission) -> None:
        """The linter's pass over the flow opened, in a thread once the first frame is out (its
        warnings never refuse a flow; a 5,000-phase flow's lint is ~60 ms of first paint)."""
        self.call_after_refresh(self._lint_worker, admission)

    @work(thread=True, group=BACKGROUND_WORKERS, exit_on_error=False, description="the linter's pass")
    def _lint_worker(self, admission: Admission) -> None:
        linted = admission.linted()
        try:
            self.app.call_from_thread(self.session.lint_ready, linted)
        except RuntimeError:  # the app is closing
            pass

    def _want_trace_history(self, key: int) -> None:
        self._trace_history_worker(key, self.session.run_dir)

    @work(thread=True, group=BACKGROUND_WORKERS, exit_on_error=False, description="the Trace tab's recent runs")
    def _trace_history_worker(self, key: int, exclude: Path | None) -> None:
        """The Trace tab's recent runs, read from their journals off the UI thread (the run
        shown, `exclude`, is not one of them)."""
        recent = self.trace_tab.recent_runs(exclude)
        try:
            self.app.call_from_thread(self._trace_history_ready, key, recent)
        except RuntimeError:  # the app is closing
            pass

    def _trace_history_ready(self, key: int, recent: list[dict[str, float]]) -> None:
        # this run's metrics here, from the trace the UI thread feeds (for the run state at `key`)
        tab = self.trace_tab
        tab.set_history(key, tab.with_run(recent) if key == tab.history_key() else None)
        try:
            if self.detail.active == "trace":
                self.show_selected()
        except NoMatches:  # closing
            pass

    def note(self, text: str) -> None:
        """A line in the event log that is not an engine event (never raises while closing)."""
        try:
            self._flush_log()  # after the events folded before it
            self.event_log.add_note(text)
        except NoMatches:  # the screen is closing: the note has nowhere to go
            pass

    # -- engine events --------------------------------------------------------------
    # Batches go through one FIFO and are folded in steps of at most FOLD_STEP_S each; the loop
    # runs between steps (keys, frames, the engine's thread), so a 20,000-event burst never
    # holds a key press for its whole cost. What the folded events change on screen (tree
    # labels, the log, the header, the selected phase's detail) is shown once the queue is
    # empty, and at most every SHOW_EVERY_S while it is not: a burst costs a few repaints,
    # not one per step (README "Large flows").
    def on_engine_events(self, message: EngineEvents) -> None:
        self._event_queue.extend(message.events)
        self._drain_soon()

    def _drain_soon(self) -> None:
        if not self._draining:
            self._draining = True
            # through the asyncio loop, not this screen's own queue: Textual's message loop
            # takes a queued message without yielding, so a step queued here would run before
            # any key or frame waiting meanwhile
            asyncio.get_running_loop().call_soon(self._post_drain)

    def _post_drain(self) -> None:
        """The next fold step, run by the loop itself (in the context `_drain_soon` was called
        in: this screen's). Not posted to the screen as a message: each message then took the
        screen's message loop and its idle pass, ~0.4 ms a step, ~200 steps a 10,000-item map run
        (~15 % of the UI thread's time while it ran). An exception goes where one in a message
        handler goes (the app shows it and exits), not to the loop's log."""
        if not self.is_attached:
            self._draining = False
            return
        try:
            self._drain()
        except Exception as error:  # noqa: BLE001 - routed as Textual routes a handler's exception
            self.app._handle_exception(error)

    def _drain(self) -> None:
        self._draining = False
        queue = self._event_queue
        if queue:
            end = time.perf_counter() + FOLD_STEP_S
            while queue:
                self._fold([queue.popleft() for _ in range(min(FOLD_CHUNK, len(queue)))])
                if time.perf_counter() >= end:
                    break
        if queue:
            if time.monotonic() - self._folded_shown_at >= SHOW_EVERY_S:
                self._show_folded()
            self._drain_soon()
            return
        self._show_folded()
        if self._run_end is not None:
            ended, self._run_end = self._run_end, None
            self._finish_run(ended)

    def apply_events(self, events: list[ev.Event]) -> None:
        """Fold these events and show what they changed now (a replay's move; the live run's
        batches go through `_drain`)."""
        self._fold(events)
        self._show_folded()

    def _fold(self, events: list[ev.Event]) -> None:
        """The events into the run state and the views that keep more (gate history, timelines,
        trace); what they touched is shown by the next `_show_folded`."""
        state = self.session.state
        touched = self._touched
        live = self.session.live_text
        for event in events:
            apply(state, event)
            pid = getattr(event, "phase_id", None)
            if pid:
                touched.add(pid)
            if isinstance(event, (ev.AgentReturned, ev.AttemptFailed)):  # its answer (or failure) is in the state now
                live.clear_done(event.node_path)
            elif isinstance(event, (ev.PhaseFinished, ev.PhaseSkipped, ev.PhaseReset)):
                live.clear_phase(event.phase_id)  # nothing of it streams any more: its live sub-line goes
            if isinstance(event, (ev.RunStarted, ev.PhasesReset)):
                touched.update(event.phase_ids)
        self._log_pending.extend(events)
        self.record_view_events(events)

    def _show_folded(self) -> bool:
        """What the events folded since the last call changed: tree labels, log, header, detail,
        all in this one step and from this one state, so a frame never shows two counts of one
        phase (qa: the tree's 160/1000 beside the Info tab's 121/1000). While the selected phase's
        detail is not due again (`_detail_wait`), the whole step waits for it: the tree and the
        header are then shown as often as the detail, never more often than it. True when the
        detail was redrawn."""
        touched = self._touched
        tree = self.dag
        paused = self.session.state.paused
        new_paused = paused.phase_id if paused is not None else None
        if new_paused != tree.paused_at:
            touched.update(p for p in (tree.paused_at, new_paused) if p)
            tree.paused_at = new_paused
            if new_paused:
                tree.select_phase(new_paused)
        if not touched and not self._log_pending:
            return False
        selected = tree.selected_phase()
        detail_too = selected in touched or (selected is not None and selected.split("/")[0] in touched)  # nested: via its parent
        if detail_too:
            wait = self._detail_wait()
            if wait > 0:
                if self._detail_timer is None:
                    self._detail_timer = self.set_timer(wait, self._detail_due)
                return False
        self._folded_shown_at = time.monotonic()
        self._touched = set()
        tree.refresh_phases(touched)
        self._flush_log()
        self.refresh_header()
        if detail_too:
            self.show_selected()
        return detail_too

    def unshown(self) -> bool:
        """Whether events were folded that the screen does not show yet (the next `_show_folded`
        shows them): a timer that redraws from the state would show them ahead of the rest."""
        return bool(self._touched or self._log_pending)

    def _flush_log(self) -> None:
        if self._log_pending:
            pending, self._log_pending = self._log_pending, []
            self.event_log.add_events(pending)

    def record_view_events(self, events: list[ev.Event]) -> None:
        """Feed the views that keep more than the folded state (gate history, timelines, trace)."""
        self.gate_tools.flow = self.session.flow
        self.gate_tools.feed(events)
        self.trace_tab.feed(events)
        if self.detail.active == "trace" and self._trace_timer is None:
            self._trace_timer = self.set_timer(self.trace_tab.refresh_interval(), self._trace_refresh)

    def _trace_refresh(self) -> None:
        self._trace_timer = None
        try:
            active = self.detail.active
        except NoMatches:  # closing
            return
        if active == "trace":
            self.trace_tab.due()  # due now: the throttle must not skip it
            self.show_selected()

    def _detail_wait(self) -> float:
        """How long the selected phase's detail waits before it is redrawn again: 0 when paused
        or idle; while a run streams events (a 1,000-item map touches it with every batch) it is
        redrawn at most every DETAIL_REFRESH_S, and a tab whose text grows with the run (Calls,
        Raw of a 10,000-item map) waits as long as BUSY_SHARE redraws take (trace_tab.py)."""
        if self.session.state.paused is not None or not self.session.ctl.running:
            return 0.0
        every = max(DETAIL_REFRESH_S, BUSY_SHARE * self._detail_cost)
        return every - (time.monotonic() - self._detail_shown_at)

    def _show_selected_soon(self) -> None:
        """The selected phase's detail (the Output tab's streamed text), at most as often as
        `_detail_wait` allows; at once when paused or idle."""
        if self._detail_timer is not None:
            return  # a redraw is already due
        wait = self._detail_wait()
        if wait <= 0:
            self.show_selected()
        else:
            self._detail_timer = self.set_timer(wait, self._detail_due)

    def _detail_due(self) -> None:
        self._detail_timer = None
        try:
            if self.unshown():  # the detail with the tree and the header, from one state
                drawn = self._show_folded()
                if drawn or self._detail_timer is not None:  # drawn, or still not due (armed again)
                    return
            self.show_selected()
        except NoMatches:  # the app is closing: its widgets are already gone
            pass

    def on_run_ended(self, message: RunEnded) -> None:
        self._event_queue.extend(self.session.batcher.take())  # the run's last events, not yet flushed
        self._run_end = message  # finished once every queued event is applied (see _drain)
        self._drain_soon()

    def _finish_run(self, message: RunEnded) -> None:
        session = self.session
        session.ctl.run_ended()
        session.idle_collection.run_ended()
        self._show_folded()  # what still waited for the detail (_detail_wait is 0 once the run ended)
        if self._restart_pending:
            self._restart_pending = False
            self.start_run()
            return
        session.last_result = message.result
        if message.error:
            self.note(f"run crashed: {message.error}")
            self.app.notify(message.error, title="Run crashed", severity="error")
        self.reloader.mark_stale_after_run()  # edits saved while it ran
        self.refresh_header()
        self.dag.refresh_all()
        self.show_selected()
        # what the run freed goes back to the system (tui/native_memory.py), off the UI thread and
        # once the screen has settled: a trim of a large heap takes a while
        self.set_timer(TRIM_AFTER_S, lambda: self.run_worker(native_memory.trim, thread=True, exit_on_error=False,
                                                             group=BACKGROUND_WORKERS, description="malloc_trim"))
        if self._idle_timer is None:
            self._collect_when_idle()

    def _collect_when_idle(self) -> None:
        """The full garbage walk the run left, once input rests (tui/idle_collect.py); until
        then, back when it may be due."""
        self._idle_timer = None
        idle = self.session.idle_collection
        if idle.collect_if_idle():
            return
        wait = idle.due_in()
        if wait is not None:
            self._idle_timer = self.set_timer(wait + IDLE_RETRY_S, self._collect_when_idle)

    def on_flow_changed(self, message: FlowChanged) -> None:
        self.reloader.apply(message)

    def on_flow_linted(self, message: FlowLinted) -> None:
        self.reloader.apply_lint(message)

    # -- header / detail ------------------------------------------------------------
    def refresh_header(self) -> None:
        self.run_header.show(header_parts(self.session))  # fitted to the width (widgets/run_header)

    def show_selected(self) -> None:
        started = self._detail_shown_at = time.monotonic()
        self._show_selected()
        self._detail_cost = time.monotonic() - started

    def _show_selected(self) -> None:
        session = self.session
        pid = self.dag.selected_phase()
        spec = session.flow.phase(pid) if pid else None
        self.detail.show(
            pid,
            spec,
            detail_state(session.state, pid) if pid else None,  # nested sub-flow phases too (`a/b`)
            stale=pid in session.state.stale if pid else False,
            breakpoint=pid in session.ctl.breakpoints if pid else False,
            guard_override=session.ctl.guard_overrides.get(pid) if pid else None,
            file_warnings=session.file_warnings.get(pid) if pid else None,
        )

    # what the detail tabs show (PhaseDetail.sources)
    def gate_tab_panes(self, pid: str, width: int) -> tuple[Text, Text]:
        return self.gate_tools.gate_panes(pid, width, self.session.keymap)

    def calls_tab_text(self, pid: str) -> Text:
        return self.gate_tools.calls_text(pid)

    def trace_tab_text(self, selected: str | None, width: int | None) -> Text:
        return self.trace_tab.text(
            selected,
            width,
            running=self.session.ctl.running,
            paused=self.session.state.paused is not None,
            rules_path=self.session.rules_path,
            keymap=self.session.keymap,
        )

    @on(Tree.NodeHighlighted)
    def _highlighted(self, _event: Tree.NodeHighlighted[str]) -> None:
        self.show_selected()

    def _tick_spinner(self) -> None:
        # A timer may still fire while the screen is being taken down (quit, replay screen swap):
        # there is then no tree to spin, which is not an error.
        if not self.is_attached or not self.query(DagTree):
            return
        tree = self.dag
        running = [pid for pid, st in self.session.state.phases.items() if str(st.status) == "running"]
        if running:
            tree.spin += 1
            if self.unshown():  # drawn now, they would be ahead of the header and the detail
                self._touched.update(running)  # the next show step draws them, spun
                return
            tree.refresh_phases(running)
            if self.session.show_times:
                self.refresh_header()  # the run's clock moves with the rows' clocks: it never lags behind them

    def _tick_live(self) -> None:
        """Streamed text that arrived since the last tick: the tree's live sub-lines and, for the
        selected phase, the Output tab (README "Real agents")."""
        if not self.is_attached or not self.query(DagTree):
            return
        changed = self.session.live_text.take_changed()
        if not changed:
            return
        tree = self.dag
        for pid in changed:
            tree.set_live(pid, self.session.live_text.tail(pid))
        selected = tree.selected_phase()
        # the panel, at most every DETAIL_REFRESH_S; text that went (the answer is in) was
        # already redrawn by the event that dropped it: drawing the answer again would only
        # repeat that panel's layout (a 100 KB answer's costs tens of ms)
        if selected in changed and self.detail.active == "output" and self.session.live_text.node_paths(selected):
            self._show_selected_soon()

    def live_output(self, pid: str) -> str:
        return self.session.live_text.phase_text(pid)

    def _tick_clock(self) -> None:
        # with events folded but not shown yet the header would be ahead of the tree: the next
        # show step (at most _detail_wait away) refreshes both
        if self.session.state.status == "running" and not self.unshown():
            self.refresh_header()
            if not self.session.animations and self.is_attached and self.query(DagTree):
                # no spinner tick (--no-animations): the running phases' clocks still advance
                running = [pid for pid, st in self.session.state.phases.items() if str(st.status) == "running"]
                self.dag.refresh_phases(running)

    def set_state(self, state: RunState) -> None:
        """Show another run state (a fresh run; a replay going back in time)."""
        self.session.state = state
        tree = self.dag
        tree.state = state
        tree.stale = state.stale
        tree.paused_at = None

    # -- the run worker -------------------------------------------------------------
    def start_run(self, *, step_first: bool = False, rerun: Rerun | None = None) -> None:
        """A fresh run, or (`rerun`) a partial re-run that continues the current state."""
        session = self.session
        if session.ctl.running or self._refused_start():
            return
        session.live_text.reset()
        if rerun is None:
            self.set_state(RunState(flow_name=session.flow.name))
            self.event_log.reset()
            self.gate_tools.reset()
            self.dag.refresh_all()
        session.ctl.running = True
        session.idle_collection.run_starting()
        session.last_result = None
        self.reloader.run_flow_version = session.flow  # what this run executes, whatever is saved meanwhile
        self._run_worker(session.flow, step_first, rerun)

    def _refused_start(self) -> bool:
        """Opened without `--arg` (nothing checked the args then), a run that `tftui run` would
        refuse for its args is not started: the log and a message say which arg and how to give it."""
        session = self.session
        refusals = checks.invocation_refusals(session.flow, session.ctl.args)
        if not refusals:
            return False
        where = Path(session.flow_path).name if session.flow_path else "FLOW"
        for diag in refusals:
            self.note(f"not run: {diag.message}")
        self.app.notify(f"{refusals[0].message} when you open the flow (quit, then tftui {where} --arg …)",
                        title="Not run", severity="error")
        return True

    # `description` given: Textual's default is the repr of every argument, and a 2,000-phase
    # flow's repr (with the re-run's copy of the state) took ~100 ms of `u` on the UI thread
    @work(thread=True, group=RUN_WORKERS, exit_on_error=False, description="the run")
    async def _run_worker(self, flow: Flow, step_first: bool, rerun: Rerun | None) -> None:
        """The run, in a thread with its own event loop (see runctl). An exception (an engine
        bug) ends the worker in error: `on_worker_state_changed` routes it."""
        session = self.session
        try:
            result = await journaled_run(
                session.ctl,
                flow,
                self._engine_event,
                root=session.runs_root,
                flow_text=session.flow_text,
                previous_run_dir=session.run_dir,
                step_first=step_first,
                rerun=rerun,
                on_open=session.set_run_dir,
                note=self.note_from_thread,
                on_trace=self.trace_tab.use_run_trace,
            )
        except asyncio.CancelledError:  # stopped by quit/restart
            self.post_message(RunEnded(None))
            return
        self.post_message(RunEnded(result))

    def _engine_event(self, event: ev.Event) -> None:
        """The run's event sink (engine thread): the live text learns where attempts begin and
        end in the engine's order, then the event joins the next UI batch."""
        if isinstance(event, ev.AttemptStarted):
            self.session.live_text.begin(event.node_path)
        elif isinstance(event, ev.AgentReturned):
            self.session.live_text.end(event.node_path)
        self.session.batcher.add(event)

    # -- workers: the one place their errors go (every worker of the app runs on this screen)
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR:
            return
        error = worker.error
        text = f"{type(error).__name__}: {error}"
        if worker.group == RUN_WORKERS:  # an engine bug: show it, keep the UI alive
            self.post_message(RunEnded(None, text))
        elif worker.group == WATCH_WORKERS:  # the watcher is a convenience: report and keep going
            self.note(f"file watching stopped: {error}")
        else:
            self.note(f"{worker.name or 'a background task'} failed: {text}")
            self.app.notify(text, title="Error", severity="error")

    def note_from_thread(self, text: str) -> None:
        loop = self.session.batcher.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.note, text)

    # -- partial re-runs ------------------------------------------------------------
    def rerun_phases(self, phase_ids: list[str], *, reason: verbs.RerunReason, why: str) -> None:
        """Re-run just these phases (the engine resets them), keeping every other finished phase's output."""
        if self.session.ctl.running:
            self.app.notify("A run is in progress; pause/finish it first.")
            return
        self.reload_note.remove_class("-visible")
        self.note(f"{why}: {', '.join(sorted(phase_ids))}")
        self.start_run(rerun=verbs.rerun_of(self.session.state, phase_ids, reason))

    # -- verbs (named by the registry in actions.py) ---------------------------------
    async def action_quit(self) -> None:
        await self.session.action_quit()

    def action_run_continue(self) -> None:
        if self.session.ctl.running:
            self.session.ctl.resume()
            return
        verbs.confirm_new_run(self, "run", lambda: self.start_run())

    def action_step(self) -> None:
        if self.session.ctl.running:
            self.session.ctl.step()
        else:
            verbs.confirm_new_run(self, "step", lambda: self.start_run(step_first=True))

    def action_pause(self) -> None:
        if not self.session.ctl.running:
            self.app.notify(f"No run in progress ({run_keys(self.session.keymap)}).")
        else:
            self.session.ctl.pause()

    def action_restart(self) -> None:
        if self.session.ctl.running:
            self._restart_pending = True  # starts again when the cancelled run has ended
            self.session.ctl.stop()
        else:
            verbs.confirm_new_run(self, "restart", lambda: self.start_run())

    def action_rerun_stale(self) -> None:
        self.reloader.rerun_stale()

    def action_rerun_gate(self) -> None:
        pid = self.dag.selected_phase()
        spec = self.session.flow.phase(pid) if pid else None
        if pid and spec is None and "/" in pid:
            # The debugger re-runs top-level phases: a nested phase runs again with its parent.
            parent = pid.split("/")[0]
            self.app.notify(f"{pid} runs inside '{parent}' and re-runs only with it: "
                            f"an edit to '{parent}' marks it stale for u; R restarts the whole run.")
            return
        if pid is None or spec is None or spec.type != "gate":
            self.app.notify("Select a gate to re-run it.")
            return
        if self.session.ctl.running:
            self.app.notify("Wait for the run to finish or pause (the gate re-runs after it).")
            return
        self.rerun_phases(with_downstream(self.session.flow, pid), reason="rerun-gate", why=f"re-run gate {pid}")

    def action_toggle_breakpoint(self) -> None:
        tree = self.dag
        pid = tree.selected_phase()
        if pid is None:
            return
        on_now = self.session.ctl.toggle_breakpoint(pid)
        tree.breakpoints = self.session.ctl.breakpoints
        tree.refresh_phases([pid])
        self.show_selected()
        self.refresh_header()  # the header says what will stop the run
        self.app.notify(f"Breakpoint {'set on' if on_now else 'cleared from'} {pid}")

    def action_toggle_break_on_failure(self) -> None:
        ctl = self.session.ctl
        ctl.set_break_on_failure(not ctl.break_on_failure)
        self.refresh_header()
        self.app.notify(f"Break on failure/block: {'on' if ctl.break_on_failure else 'off'}")

    def action_fast_forward(self) -> None:
        ctl = self.session.ctl
        woken = ctl.fast_forward()
        self.refresh_header()
        if ctl.running:
            self.app.notify(f"Fast-forward: backoff waits skipped ({woken} cut short)")
        else:  # armed for the next run (the header's stop part shows it until that run ends)
            self.app.notify("Fast-forward: the next run skips its backoff waits")

    # Toggling `display` on one widget restyles only that widget (a screen class would
    # restyle the whole DOM on every press).
    def action_toggle_log(self) -> None:
        log = self.event_log
        log.display = not log.display

    def action_toggle_detail(self) -> None:
        right = self.right_pane
        right.display = not right.display
        self.dag.styles.width = "1fr" if not right.display else None

    # PgUp/PgDn scroll the detail from anywhere on the screen (a priority binding, so the tree,
    # which has the focus most of the time, does not take them); the log when it has the focus.
    def _page_target(self) -> Widget:
        focused = self.focused
        log = self.event_log
        if focused is not None and (focused is log or log in focused.ancestors):
            return log
        if not self.right_pane.display:
            return self.dag
        return self.detail.scroller

    def action_page_down(self) -> None:
        self._page_target().scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        self._page_target().scroll_page_up(animate=False)

    # Which pane has the keys, in words on the rule above the log (not only in a colour: it
    # shows under --ascii, NO_COLOR and on a monochrome terminal too).
    @on(events.DescendantFocus)
    def _focus_moved(self, event: events.DescendantFocus) -> None:
        self.show_focus(event.widget)

    def show_focus(self, widget: Widget | None) -> None:
        try:
            log, right = self.event_log, self.right_pane
        except NoMatches:  # composing or closing
            return
        if widget is None:
            log.show_focus(None)
        elif widget is log or log in widget.ancestors:
            log.show_focus("log")
        elif widget is right or right in widget.ancestors:
            log.show_focus("detail")
        else:
            log.show_focus("tree")

    def action_tree_down(self) -> None:
        self.dag.action_cursor_down()

    def action_tree_up(self) -> None:
        self.dag.action_cursor_up()

    def action_next_tab(self) -> None:
        self.detail.cycle(1)

    def action_prev_tab(self) -> None:
        self.detail.cycle(-1)

    def action_trace_tab(self) -> None:
        """`T`: jump to the Trace tab (it is the last tab, off-screen at 80 columns); again: back."""
        detail = self.detail
        if detail.active == "trace":
            detail.active = self._trace_back_to or "overview"
        else:
            self._trace_back_to = detail.active
            detail.active = "trace"

    def action_full_text(self) -> None:
        verbs.full_text(self)

    def action_cycle_theme(self) -> None:
        self.session.cycle_theme()

    def action_help(self) -> None:
        verbs.help_screen(self)

    def action_filter_log(self) -> None:
        verbs.filter_log(self)

    def action_edit_guard(self) -> None:
        verbs.edit_guard(self)

    def action_export_bundle(self) -> None:
        if self.session.ctl.running:
            self.app.notify("Export once the run has ended (the journal is complete then).")
            return
        verbs.export_run_dir(self, self.session.run_dir)

    # gate tools
    def _selected_gate(self) -> str | None:
        pid = self.dag.selected_phase()
        spec = self.session.flow.phase(pid) if pid else None
        if pid is None or spec is None or spec.type != "gate":
            self.app.notify("Select a gate first.")
            return None
        return pid

    def _flip(self, step: int) -> None:
        pid = self._selected_gate()
        if pid is None:
            return
        detail = self.detail
        if not self.gate_tools.flip(pid, step):
            detail.active = "gate"
            self.app.notify(f"{pid} has not been evaluated yet.")
            return
        if detail.active != "gate":
            detail.active = "gate"  # renders on the tab change
        else:
            self.show_selected()

    def action_gate_prev(self) -> None:
        self._flip(-1)

    def action_gate_next(self) -> None:
        self._flip(1)

    def action_toggle_diff(self) -> None:
        self.gate_tools.calls_diff = not self.gate_tools.calls_diff
        detail = self.detail
        if detail.active != "attempts":
            detail.active = "attempts"
        else:
            self.show_selected()

    def action_what_if(self) -> None:
        pid = self._selected_gate()
        if pid is not None:
            verbs.what_if(self, pid)

    def action_data_breakpoint(self) -> None:
        verbs.data_breakpoint(self)
