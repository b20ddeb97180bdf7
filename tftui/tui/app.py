"""TftuiApp: the main screen, the run worker, the file watcher and the verbs.

Data path: engine event -> `EventBatcher` (≤ ~10 flushes/s) -> one `EngineEvents`
message -> folded into `self.state` -> the touched tree labels are set in place, the
header and (if the selected phase was touched) the detail are refreshed.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Tree

from tftui import present
from tftui.engine import events as ev
from tftui.engine.clock import Clock
from tftui.engine.state import RunState, apply
from tftui.flow.model import Flow
from tftui.tui import actions, ascii_mode
from tftui.tui.commands import VerbCommands
from tftui.tui.gatetools import GateToolsMixin
from tftui.tui.journaling import Rerun, journaled_run
from tftui.tui.keymap import configured_theme, keymap_from_config, read_config, save_theme
from tftui.tui.messages import EngineEvents, EventBatcher, FlowChanged, RunEnded
from tftui.tui.reload import ReloadMixin
from tftui.tui.runctl import RunController
from tftui.tui.subtree import detail_state
from tftui.tui.themes import DEFAULT_THEME, load_builtin_themes, status_colours, status_variable_defaults
from tftui.tui.trace_tab import TraceTabMixin
from tftui.tui.verbs import VerbsMixin
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.event_log import EventLog
from tftui.tui.widgets.folded import Folded
from tftui.tui.widgets.phase_detail import PhaseDetail
from tftui.tui.widgets.quiet_footer import QuietFooter
from tftui.tui.widgets.run_header import RunHeader, header_parts

EVENT_CHUNK = 250  # engine events applied per UI step
TOAST_REPEAT_S = 2.0  # an identical toast within this many seconds of it is not shown again (< the toast's 5 s)
DETAIL_REFRESH_S = 0.2  # while a run goes: the selected phase's detail is redrawn at most this often


class TftuiApp(ascii_mode.AsciiModeMixin, VerbsMixin, ReloadMixin, GateToolsMixin, TraceTabMixin, App[int]):
    CSS_PATH = str(Path(__file__).parent / "styles" / "app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "tftui"
    BINDINGS = [*actions.bindings(), Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    COMMANDS = App.COMMANDS | {VerbCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    def __init__(
        self,
        flow: Flow,
        *,
        flow_path: str | None,
        flow_text: str | None = None,
        runner: Any,
        args: dict[str, Any] | None = None,
        ascii: bool = False,
        animations: bool = True,
        theme: str | None = None,
        show_times: bool = True,
        clock: Clock | None = None,
        watch: bool = True,
        config_path: Path | None = None,
        settings: dict[str, Any] | None = None,
        initial_diagnostics: list[Any] | None = None,
        runs_root: Path | None = None,
    ) -> None:
        super().__init__()
        self.flow = flow
        self.flow_path = flow_path
        self.flow_text = flow_text
        self.glyphs = present.ASCII if ascii else present.UNICODE
        if ascii:
            ascii_mode.enable(self)
        self.animations = animations
        self.show_times = show_times
        self.watch_enabled = watch and flow_path is not None
        self.config_path = config_path
        self.settings = settings  # merged settings from tftui.config; None: read config_path (tests)
        self.state = RunState(flow_name=flow.name)
        self.ctl = RunController(runner=runner, clock=clock, args=dict(args or {}), flow_path=flow_path)
        self.ctl.approver = self.ask_approval
        self.batcher = EventBatcher(lambda batch: self.post_message(EngineEvents(batch)))
        self.last_result: Any = None
        self.runs_root = runs_root  # where runs are journaled (None: not journaled; see journaling.py)
        self.run_dir: Path | None = None  # the current/last run's journal directory
        self._restart_pending = False
        self._event_queue: deque[ev.Event] = deque()
        self._draining = False
        self._run_end: RunEnded | None = None
        self.initial_diagnostics = initial_diagnostics or []
        self.file_warnings: dict[str, list[str]] = {}
        self.requested_theme = theme
        self.keymap: dict[str, str] = {}
        self._detail_timer: Any = None
        self._recent_toasts: dict[tuple[Any, ...], float] = {}  # toast -> when it was shown (see notify)
        self._detail_shown_at = 0.0
        self.config_problems: list[str] = []
        if not animations:
            self.animation_level = "none"

    # -- composition ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield RunHeader(id="run-header")
        with Horizontal(id="main"):
            yield DagTree(glyphs=self.glyphs, show_times=self.show_times, id="tree")
            with Vertical(id="right"):
                yield Folded(id="diagnostics", markup=False)
                yield Folded(id="reload-note", markup=False)
                yield PhaseDetail(glyphs=self.glyphs, show_times=self.show_times, id="detail")
        yield EventLog(glyphs=self.glyphs, id="log")
        yield QuietFooter()  # Textual's Footer, without its repeated start-up recomposes

    def on_mount(self) -> None:
        self.batcher.loop = asyncio.get_running_loop()
        self._ui_context = contextvars.copy_context()  # for modals requested by the engine thread
        themes, problems = load_builtin_themes()
        for theme in themes:
            self.register_theme(theme)
        if self.settings is not None:
            data, cfg_problems = self.settings, list(self.config_problems)
        else:
            data, cfg_problems = read_config(self.config_path)
        keymap, key_problems = keymap_from_config(data)
        self.keymap = keymap
        if keymap:
            self.set_keymap(keymap)
        self.query_one(PhaseDetail).open_key = actions.key_for(actions.VERBS_BY_ID["full_text"], keymap)
        wanted = configured_theme({"ui": {"theme": self.requested_theme}}) or configured_theme(data) or DEFAULT_THEME
        if wanted not in self.available_themes:
            problems.append(f"unknown theme '{wanted}' (available: {', '.join(sorted(self.available_themes))})")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_theme_colours())
        self._apply_theme_colours()
        tree = self.query_one(DagTree)
        tree.state = self.state
        tree.stale = self.state.stale  # shared sets: the tree reads them when it draws a label
        tree.breakpoints = self.ctl.breakpoints
        tree.now = self._now
        tree.load(self.flow)
        tree.focus()
        log = self.query_one(EventLog)
        for problem in [*problems, *cfg_problems, *key_problems]:
            log.add_note(problem)
        self.set_file_warnings(self.initial_diagnostics)
        for diag in self.initial_diagnostics:  # load warnings (errors never reach the app)
            log.add_note(diag.format(self.flow_path))
        self.refresh_header()
        self.show_selected()
        if self.animations:
            self.set_interval(0.25, self._tick_spinner)
        if self.show_times:
            self.set_interval(1.0, self._tick_clock)
        if self.watch_enabled:
            self.start_watcher()
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: self.exit(143))
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread (tests) or no signal support: Textual still restores on exit
        # Start-up objects (modules, widgets, styles) live as long as the app: out of the
        # collector's sight, a full collection no longer walks them (40-120 ms pauses, in
        # either thread, that held key presses during runs; benchmarks/tui.py).
        self.call_after_refresh(gc.freeze)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Built-in Textual themes lack our status colours; these keep `$status-*` defined.
        return status_variable_defaults()

    def _apply_theme_colours(self) -> None:
        tree = self.query_one(DagTree)
        colours = status_colours(self.get_css_variables())
        if colours != tree.colours:  # relabel only on a real change (500 labels are not free)
            tree.colours = colours
            tree.refresh_all()

    def notify(self, message: str, *, title: str = "", severity: Any = "information", **kwargs: Any) -> None:
        """A toast, unless the same one is already on screen (a key held or pressed again would
        stack copies over the whole screen)."""
        key = (message, title, severity)
        now = time.monotonic()
        recent = self._recent_toasts
        for old in [k for k, at in recent.items() if now - at >= TOAST_REPEAT_S]:
            del recent[old]
        if key in recent:
            return  # shown less than TOAST_REPEAT_S ago: still on screen
        recent[key] = now
        super().notify(message, title=title, severity=severity, **kwargs)

    def tftui_theme_names(self) -> list[str]:
        return list(self.available_themes)

    def set_theme(self, name: str) -> None:
        self.theme = name
        problem = save_theme(name, self.config_path)
        self.notify(problem or f"Theme {name} (saved)", severity="warning" if problem else "information")

    def _now(self) -> float | None:
        return self.ctl.clock.time() if self.show_times else None

    # -- engine events --------------------------------------------------------------
    # Batches go through one FIFO and are applied at most EVENT_CHUNK events per step, each
    # step a separate callback: a 2,000-event batch never holds a key press for its whole cost.
    def on_engine_events(self, message: EngineEvents) -> None:
        self._event_queue.extend(message.events)
        self._drain_soon()

    def _drain_soon(self) -> None:
        if not self._draining:
            self._draining = True
            self.call_later(self._drain)

    def _drain(self) -> None:
        self._draining = False
        queue = self._event_queue
        if queue:
            chunk = [queue.popleft() for _ in range(min(EVENT_CHUNK, len(queue)))]
            self.apply_events(chunk)
        if queue:
            self._drain_soon()
        elif self._run_end is not None:
            ended, self._run_end = self._run_end, None
            self._finish_run(ended)

    def apply_events(self, events: list[ev.Event]) -> None:
        touched: set[str] = set()
        tree = self.query_one(DagTree)
        for event in events:
            apply(self.state, event)
            pid = getattr(event, "phase_id", None)
            if pid:
                touched.add(pid)
            if isinstance(event, (ev.RunStarted, ev.PhasesReset)):
                touched.update(event.phase_ids)
        paused = self.state.paused
        new_paused = paused.phase_id if paused is not None else None
        if new_paused != tree.paused_at:
            touched.update(p for p in (tree.paused_at, new_paused) if p)
            tree.paused_at = new_paused
            if new_paused:
                tree.select_phase(new_paused)
        tree.refresh_phases(touched)
        self.query_one(EventLog).add_events(events)
        self.record_tool_events(events)  # gate history + attempts timeline (gatetools)
        self.record_trace_events(events)  # the Trace tab (trace_tab)
        self.refresh_header()
        selected = tree.selected_phase()
        if selected in touched or (selected and selected.split("/")[0] in touched):  # nested: via its parent
            self._show_selected_soon()

    def _show_selected_soon(self) -> None:
        """The selected phase's detail, redrawn at most every DETAIL_REFRESH_S while a run streams
        events (a 1,000-item map touches it with every batch); at once when paused or idle."""
        if self.state.paused is not None or not self.ctl.running:
            self.show_selected()
            return
        if self._detail_timer is not None:
            return  # a redraw is already due
        wait = DETAIL_REFRESH_S - (time.monotonic() - self._detail_shown_at)
        if wait <= 0:
            self.show_selected()
        else:
            self._detail_timer = self.set_timer(wait, self._detail_due)

    def _detail_due(self) -> None:
        self._detail_timer = None
        try:
            self.show_selected()
        except NoMatches:  # the app is closing: its widgets are already gone
            pass

    def on_run_ended(self, message: RunEnded) -> None:
        self._event_queue.extend(self.batcher.take())  # the run's last events, not yet flushed
        self._run_end = message  # finished once every queued event is applied (see _drain)
        self._drain_soon()

    def _finish_run(self, message: RunEnded) -> None:
        self.ctl.running = False
        if self._restart_pending:
            self._restart_pending = False
            self.start_run()
            return
        self.last_result = message.result
        if message.error:
            self.query_one(EventLog).add_note(f"run crashed: {message.error}")
            self.notify(message.error, title="Run crashed", severity="error")
        self.mark_stale_after_run()  # edits saved while it ran (reload mixin)
        self.refresh_header()
        self.query_one(DagTree).refresh_all()
        self.show_selected()

    # -- header / detail ------------------------------------------------------------
    def refresh_header(self) -> None:
        self.query_one(RunHeader).show(header_parts(self))  # fitted to the width (widgets/run_header)

    def show_selected(self) -> None:
        self._detail_shown_at = time.monotonic()
        tree = self.query_one(DagTree)
        pid = tree.selected_phase()
        spec = self.flow.phase(pid) if pid else None
        self.query_one(PhaseDetail).show(
            pid,
            spec,
            detail_state(self.state, pid) if pid else None,  # nested sub-flow phases too (`a/b`)
            stale=pid in self.stale if pid else False,
            breakpoint=pid in self.ctl.breakpoints if pid else False,
            guard_override=self.ctl.guard_overrides.get(pid) if pid else None,
            file_warnings=self.file_warnings.get(pid) if pid else None,
        )

    def set_file_warnings(self, diagnostics: list[Any]) -> None:
        """Per-phase warnings of the current flow file, shown in that phase's overview."""
        self.file_warnings = {}
        for diag in diagnostics:
            if getattr(diag, "phase_id", None) and not getattr(diag, "is_error", False):
                self.file_warnings.setdefault(diag.phase_id, []).append(diag.message)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, _event: Tree.NodeHighlighted) -> None:
        self.show_selected()

    def _tick_spinner(self) -> None:
        tree = self.query_one(DagTree)
        running = [pid for pid, st in self.state.phases.items() if str(st.status) == "running"]
        if running:
            tree.spin += 1
            tree.refresh_phases(running)

    def _tick_clock(self) -> None:
        if self.state.status == "running":
            self.refresh_header()

    # -- the run worker -------------------------------------------------------------
    @property
    def stale(self) -> set[str]:
        """Phases a saved edit made out of date (the engine's fold of PhasesStale; `u` re-runs them)."""
        return self.state.stale

    def start_run(self, *, step_first: bool = False, rerun: Rerun | None = None) -> None:
        """A fresh run, or (`rerun`) a partial re-run that continues the current state."""
        if self.ctl.running:
            return
        if rerun is None:
            self.state = RunState(flow_name=self.flow.name)
            self.query_one(EventLog).reset()
            self.reset_tool_events()
            tree = self.query_one(DagTree)
            tree.state = self.state
            tree.stale = self.state.stale
            tree.paused_at = None
            tree.refresh_all()
        self.ctl.clock.skip_all = False
        self.ctl.running = True
        self.last_result = None
        self.run_flow_version = self.flow  # what this run executes, whatever is saved meanwhile (reload)
        self._run_worker(self.flow, step_first, rerun)

    @work(thread=True, group="run", exit_on_error=False)
    async def _run_worker(self, flow: Flow, step_first: bool, rerun: Rerun | None) -> None:
        """The run, in a thread with its own event loop (see runctl)."""
        try:
            result = await journaled_run(
                self.ctl,
                flow,
                self.batcher.add,
                root=self.runs_root,
                flow_text=self.flow_text,
                previous_run_dir=self.run_dir,
                step_first=step_first,
                rerun=rerun,
                on_open=lambda run_dir: setattr(self, "run_dir", run_dir),
                note=self._note_from_thread,
            )
        except asyncio.CancelledError:  # stopped by quit/restart
            self.post_message(RunEnded(None))
            return
        except Exception as exc:  # an engine bug: show it, keep the UI alive
            self.post_message(RunEnded(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(RunEnded(result))

    async def action_quit(self) -> None:
        self.ctl.stop()
        self.exit(0)

    async def on_unmount(self) -> None:
        self.ctl.stop()  # a paused or busy run must not keep the process alive
        gc.unfreeze()  # see on_mount: what this app froze can be collected again (many apps in one test run)
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            watcher.stop()

    def on_flow_changed(self, message: FlowChanged) -> None:
        self.apply_reload(message)
