"""TftuiApp: the debugging session (flow, run state, run controller, settings) and what is
app-wide (themes, key map, toasts, ASCII mode, worker errors). The main screen
(`main_screen.MainScreen`) owns the widgets and the verbs.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import signal
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer

from tftui import present
from tftui.admit import Admission, AdmitRules
from tftui.agents.base import AgentRequest, AgentRunner
from tftui.engine.clock import Clock
from tftui.engine.events import Event
from tftui.engine.state import RunState
from tftui.flow.diagnostics import Diagnostic
from tftui.flow.model import Flow
from tftui.present.live import LiveText
from tftui.tui import ascii_mode, native_memory
from tftui.tui.commands import VerbCommands
from tftui.tui.idle_collect import IdleCollection
from tftui.tui.key_order import KeyOrder
from tftui.tui.keymap import configured_theme, keymap_from_config, read_config, save_theme
from tftui.tui.main_screen import MainScreen
from tftui.tui.messages import EngineEvents, EventBatcher
from tftui.tui.runctl import RunController
from tftui.tui.term_filter import ControlFilter
from tftui.tui.themes import DEFAULT_THEME, load_builtin_themes, status_colours, status_variable_defaults
from tftui.tui.verbs import ModalBridge

if TYPE_CHECKING:  # the engine's phases and run load after first paint (main_screen warms them up)
    from tftui.engine.phases.approval import Decision
    from tftui.engine.run import RunResult

THEME_SAVE_AFTER_S = 1.5  # `t` writes the user config once the presses have stopped this long
TOAST_REPEAT_S = 2.0  # an identical toast within this many seconds of it is not shown again (< the toast's 5 s)


class TftuiApp(App[int]):
    CSS_PATH = str(Path(__file__).parent / "styles" / "app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "tftui"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    COMMANDS = {VerbCommands}  # tftui's verbs first, then Textual's system commands (tui/commands.py)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    def __init__(
        self,
        flow: Flow,
        *,
        flow_path: str | None,
        flow_text: str | None = None,
        runner: AgentRunner | None,
        args: dict[str, Any] | None = None,
        ascii: bool = False,
        animations: bool = True,
        theme: str | None = None,
        show_times: bool = True,
        clock: Clock | None = None,
        watch: bool = True,
        config_path: Path | None = None,
        settings: dict[str, Any] | None = None,
        initial_diagnostics: list[Diagnostic] | None = None,
        runs_root: Path | None = None,
        live_text: LiveText | None = None,
        pending_lint: Admission | None = None,
    ) -> None:
        native_memory.one_arena()  # before Textual's and the runs' threads start (tui/native_memory.py)
        self.ascii_filter = ascii_mode.AsciiFilter(enabled=False)  # before Textual's constructor: it may draw
        self.control_filter = ControlFilter()  # no control character reaches the terminal (tui/term_filter.py)
        super().__init__()
        self.flow = flow
        self.flow_path = flow_path
        self.flow_text = flow_text
        self.glyphs = present.ASCII if ascii else present.UNICODE
        if ascii:
            ascii_mode.enable(self, self.ascii_filter)
        self.animations = animations
        self.show_times = show_times
        self.watch_enabled = watch and flow_path is not None
        self.config_path = config_path
        self.settings = settings  # merged settings from tftui.config; None: read config_path (tests)
        self.state = RunState(flow_name=flow.name)
        self.modals = ModalBridge(self)
        self.key_order = KeyOrder(self, super().on_event)  # see on_event
        # A replay has no runner: its run controls are off (see replay_app).
        self.ctl = RunController(runner=runner, clock=clock, args=dict(args or {}), flow_path=flow_path)
        self.ctl.approver = self.ask_approval
        self.batcher = EventBatcher(self._post_events)
        self.idle_collection = IdleCollection()  # a run's full garbage walk waits for idle input (tui/idle_collect.py)
        self.last_result: RunResult | None = None
        self.runs_root = runs_root  # where runs are journaled (None: not journaled; see journaling.py)
        self.run_dir: Path | None = None  # the current/last run's journal directory
        self.initial_diagnostics = initial_diagnostics or []
        # the flow's admission without the linter's warnings yet: they are added after first paint
        self.pending_lint = pending_lint if pending_lint is not None and not pending_lint.loaded.linted else None
        # the file as loaded at start: the hot reload's first save reuses its unchanged phases (watch.py)
        self.loaded_at_start = pending_lint.loaded if pending_lint is not None else None
        # streamed answers (the runner's live-text callback writes, the main screen reads ~10x/s)
        self.live_text = live_text if live_text is not None else LiveText()
        self.file_warnings: dict[str, list[str]] = {}
        self.requested_theme = theme
        self.keymap: dict[str, str] = {}
        self._recent_toasts: dict[tuple[str, str, str], float] = {}  # toast -> when it was shown (see notify)
        self.config_problems: list[str] = []
        self.rules_path: str | None = None  # --rules FILE: the Trace tab's rule set (open_flow sets it)
        self.admit_rules = AdmitRules()  # what a saved version is checked against on reload (open_flow sets it)
        self._main: MainScreen | None = None
        self._configured = self._main_mounted = self._started = False  # see _start_if_ready
        self._startup_notes: list[str] = []
        self._theme_to_save: str | None = None  # chosen with `t`, not written yet (cycle_theme)
        self._theme_timer: Timer | None = None
        if not animations:
            self.animation_level = "none"

    def _post_events(self, batch: list[Event]) -> None:
        self.main.post_message(EngineEvents(batch))

    # -- the main screen ----------------------------------------------------------------
    def get_default_screen(self) -> MainScreen:
        self._main = self.make_main_screen()
        return self._main

    def make_main_screen(self) -> MainScreen:
        return MainScreen(self)

    @property
    def main(self) -> MainScreen:
        if self._main is None:
            raise RuntimeError("the app has not started: its main screen does not exist yet")
        return self._main

    @property
    def stale(self) -> set[str]:
        """Phases a saved edit made out of date (the engine's fold of PhasesStale; `u` re-runs them)."""
        return self.state.stale

    def screen_keymap(self, keymap: dict[str, str]) -> dict[str, str]:
        """The configured key map (binding id -> key) as this app's screen uses it."""
        return keymap

    def set_run_dir(self, run_dir: Path) -> None:
        self.run_dir = run_dir

    def now(self) -> float | None:
        return self.ctl.clock.time() if self.show_times else None

    def set_file_warnings(self, diagnostics: list[Diagnostic]) -> None:
        """Per-phase warnings of the current flow file, shown in that phase's overview."""
        self.file_warnings = {}
        for diag in diagnostics:
            if diag.phase_id and not diag.is_error:
                self.file_warnings.setdefault(diag.phase_id, []).append(diag.message)

    def on_mount(self) -> None:
        self.batcher.loop = asyncio.get_running_loop()
        self.modals.ui_loop = asyncio.get_running_loop()
        self.modals.ui_context = contextvars.copy_context()  # for modals requested by the engine thread
        themes, problems = load_builtin_themes()
        for theme in themes:
            self.register_theme(theme)
        if self.settings is not None:
            data, cfg_problems = self.settings, list(self.config_problems)
        else:
            data, cfg_problems = read_config(self.config_path)
        keymap, key_problems = keymap_from_config(data)
        keymap = self.screen_keymap(keymap)
        self.keymap = keymap
        if keymap:
            self.set_keymap(keymap)
        wanted = configured_theme({"ui": {"theme": self.requested_theme}}) or configured_theme(data) or DEFAULT_THEME
        if wanted not in self.available_themes:
            problems.append(f"unknown theme '{wanted}' (available: {', '.join(sorted(self.available_themes))})")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_theme_colours())
        self._startup_notes = [*problems, *cfg_problems, *key_problems]
        self._configured = True
        self._start_if_ready()
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: self.exit(143))
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread (tests) or no signal support: Textual still restores on exit
        # Start-up objects (modules, widgets, styles) live as long as the app: out of the
        # collector's sight, a full collection no longer walks them (40-120 ms pauses, in
        # either thread, that held key presses during runs; benchmarks/tui.py).
        # `tftui FLOW` starts with the collector off (commands/open_flow.py: start-up makes ~1M
        # objects that all live on, and the collections it triggered cost ~0.3 s of a 5,000-phase
        # flow's first paint): it goes back on here, after they are frozen.
        self.call_after_refresh(_freeze_start_up)

    def main_mounted(self) -> None:
        """The main screen's widgets exist (its on_mount): start once the settings are read too."""
        self._main_mounted = True
        self._start_if_ready()

    def _start_if_ready(self) -> None:
        if not (self._configured and self._main_mounted) or self._started:
            return
        self._started = True
        main = self.main
        self._apply_theme_colours()
        main.start()
        for problem in self._startup_notes:
            main.note(problem)
        self.set_file_warnings(self.initial_diagnostics)
        for diag in self.initial_diagnostics:  # load warnings (errors never reach the app)
            main.note(diag.format(self.flow_path))
        main.show_selected()
        if self.pending_lint is not None:
            main.lint_after_first_paint(self.pending_lint)

    def lint_ready(self, linted: Admission) -> None:
        """The linter's warnings for the flow opened (`pending_lint`), as the load warnings are shown."""
        self.pending_lint = None
        if linted.flow is not self.flow:  # a save replaced it meanwhile: the reload's warnings stand
            return
        shown = {id(d) for d in self.initial_diagnostics}
        self.initial_diagnostics = linted.warnings
        self.set_file_warnings(linted.warnings)
        for diag in linted.warnings:
            if id(diag) not in shown:
                self.main.note(diag.format(self.flow_path))
        self.main.show_selected()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Built-in Textual themes lack our status colours; these keep `$status-*` defined.
        return status_variable_defaults()

    def _apply_theme_colours(self) -> None:
        if not self._started:
            return  # the start applies them
        tree = self.main.dag
        colours = status_colours(self.get_css_variables())
        if colours != tree.colours:  # relabel only on a real change (500 labels are not free)
            tree.colours = colours
            tree.refresh_all()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
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
        message, title = self.glyphs.show(message), self.glyphs.show(title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands but its Theme and Quit: tftui's verbs are those (`t`, `q`),
        and Textual's theme picker would not save the choice."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Quit"):
                yield command

    def tftui_theme_names(self) -> list[str]:
        return list(self.available_themes)

    def set_theme(self, name: str) -> None:
        """A theme picked by name (the palette): shown and saved at once."""
        self.theme = name
        self._theme_to_save = name
        problem = self.save_theme_choice()
        self.notify(problem or f"Theme {name} (saved)", severity="warning" if problem else "information")

    def cycle_theme(self) -> None:
        """`t`: the next theme, shown at once; the user config is written once the presses stop
        (THEME_SAVE_AFTER_S after the last one, or at exit), not on every press."""
        names = sorted(self.available_themes)
        ours = [n for n in names if n.startswith("tftui-")] or names
        nxt = ours[(ours.index(self.theme) + 1) % len(ours)] if self.theme in ours else ours[0]
        self.theme = nxt
        self._theme_to_save = nxt
        if self._theme_timer is not None:
            self._theme_timer.stop()
        self._theme_timer = self.set_timer(THEME_SAVE_AFTER_S, self._theme_timer_done)
        self.notify(f"Theme {nxt} (t: the next one; saved to config.toml when you stop)")

    def _theme_timer_done(self) -> None:
        self._theme_timer = None
        problem = self.save_theme_choice()
        if problem:
            self.notify(problem, severity="warning")

    def save_theme_choice(self) -> str | None:
        """Write the theme chosen since the last save, if any (`[ui] theme`); the problem, or None."""
        name, self._theme_to_save = self._theme_to_save, None
        if name is None:
            return None
        return save_theme(name, self.config_path)

    # -- ASCII mode: Textual's own strings (keys, the palette) the ASCII way --------------
    def get_line_filters(self) -> Sequence[LineFilter]:
        filters = [*super().get_line_filters(), self.control_filter]
        return [*filters, self.ascii_filter] if self.ascii_filter.enabled else filters

    def get_key_display(self, binding: Binding) -> str:
        shown = super().get_key_display(binding)
        return ascii_mode.key_display(shown) if self.glyphs.ascii else shown

    def action_command_palette(self) -> None:
        if not self.glyphs.ascii:
            super().action_command_palette()
        # is_open wants an App[object]; App is invariant in its return type, so say what this is
        elif self.use_command_palette and not CommandPalette.is_open(cast("App[object]", self)):
            self.push_screen(ascii_mode.ascii_palette())

    # -- human answers and approvals (the agents and the debugger call these) --------------
    async def ask_human(self, request: AgentRequest) -> str | None:
        return await self.modals.ask_human(request)

    async def ask_approval(self, request: Any) -> Decision:
        return await self.modals.ask_approval(request)

    # -- the end --------------------------------------------------------------------------
    async def action_quit(self) -> None:
        self.ctl.stop()
        self.exit(0)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self.idle_collection.input_seen()
        if isinstance(event, events.Key):  # keys typed ahead go where the keys before them led (tui/key_order.py)
            if not event.is_forwarded:  # from the terminal
                await self.key_order.take(event)
                return
            if await self.key_order.arrived(event):  # bubbled up from a screen no longer on top
                return
        await super().on_event(event)

    async def on_unmount(self) -> None:
        self.idle_collection.close()
        gc.enable()  # (closed before its first frame: the collector comes back all the same)
        self.ctl.stop()  # a paused or busy run must not keep the process alive
        self.save_theme_choice()  # the theme last chosen with `t`, if it is not written yet
        gc.unfreeze()  # see on_mount: what this app froze can be collected again (many apps in one test run)
        if self._main is not None:
            self._main.reloader.stop()


def _freeze_start_up() -> None:
    gc.freeze()
    gc.enable()
