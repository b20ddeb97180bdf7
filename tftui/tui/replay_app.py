"""Time travel: the main screen over a recorded run (run directory or .tftui.zip), read-only.

`run_replay(source)` opens `ReplayApp`: the same tree, detail tabs and event log as a
live session, driven by `tftui.engine.replay.Replay` instead of the engine. Every view
shows the run as it was after event i of n: moving forward applies the next events
through the app's normal `apply_events` (so the gate/timeline/trace tabs are fed as in a
live run); moving back restores the replay's nearest checkpoint and rebuilds the views
from the events up to there. Run controls that would change the run are disabled.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import BindingType

from tftui.engine.replay import Replay
from tftui.engine.state import copy_state
from tftui.flow.model import Flow
from tftui.present import HeaderPart
from tftui.tui import actions, verbs
from tftui.tui.app import TftuiApp
from tftui.tui.journaling import Rerun
from tftui.tui.keymap import screen_keymap
from tftui.tui.main_screen import MainScreen
from tftui.tui.widgets.run_header import header_parts
from tftui.verbs import VERBS_BY_ID, bound_in, key_for, verbs_for

# The live verbs that would change the run: their keys stay bound, each says why it does nothing.
BLOCKED_ACTIONS = tuple(v.action for v in bound_in("replay") if not v.acts_in("replay"))


class ReplayScreen(MainScreen, inherit_bindings=False):
    """The main screen over a recording: moving in time instead of running."""

    BINDINGS: ClassVar[list[BindingType]] = [*actions.bindings("replay")]

    def __init__(self, session: ReplayApp) -> None:
        super().__init__(session)
        self.replay = session.replay
        self.source = session.source
        self.position = 0  # events applied to the views (the session's state is the app's own copy)
        self.last_seek = ""

    def start(self) -> None:
        super().start()
        recording = self.replay.recording
        for warning in recording.warnings if recording is not None else []:
            self.note(f"replay: {warning}")
        self.move_to(len(self.replay))  # open at the end: the finished run; step back from there
        self.note(f"replay of {self.source}: {len(self.replay)} events — {self.replay_keys()}")

    # -- moving -------------------------------------------------------------------------
    def move_to(self, target: int) -> None:
        target = max(0, min(target, len(self.replay)))
        if target >= self.position:
            chunk = self.replay.events[self.position : target]
            self.replay.state_at(target)  # keep the cursor in step (data-breakpoint seeks start here)
            self.position = target
            if chunk:
                self.apply_events(chunk)
            else:
                self.refresh_header()
            return
        self._rebuild_at(target)

    def _rebuild_at(self, target: int) -> None:
        """Back in time: the state from the replay's checkpoints, every view rebuilt up to `target`."""
        events = self.replay.events[:target]
        self.set_state(copy_state(self.replay.state_at(target)))
        self.position = target
        log = self.event_log
        log.reset()
        log.add_events(events)
        self.gate_tools.reset()
        self.gate_tools.feed(events)
        self.trace_tab.restart(events)  # the Trace tab restarts from the events up to here
        self.dag.refresh_all()
        self.refresh_header()
        self.show_selected()

    def refresh_header(self) -> None:
        where = HeaderPart.keep(f"REPLAY event {self.position}/{len(self.replay)}")  # never dropped at 80 columns
        self.run_header.show([where, *header_parts(self.session)])

    # -- keys ---------------------------------------------------------------------------
    def key(self, verb_id: str) -> str:
        """The key in effect for a verb (remaps included), for messages."""
        return key_for(VERBS_BY_ID[verb_id], self.session.keymap)

    def replay_keys(self) -> str:
        """`n/s next event · N previous · …`: the replay verbs that act here, with their keys."""
        return " · ".join(f"{self.key(v.id)} {v.label.lower()}" for v in verbs_for("replay") if v.group == "replay")

    def action_replay_next(self) -> None:
        if self.position >= len(self.replay):
            self.app.notify(f"At the end of the recording ({self.key('replay_back')} steps back, "
                            f"{self.key('replay_to_start')} goes to the start).")
            return
        self.move_to(self.position + 1)

    def action_replay_back(self) -> None:
        if self.position <= 0:
            self.app.notify("At the start of the recording.")
            return
        self.move_to(self.position - 1)

    def action_replay_to_start(self) -> None:
        self.move_to(0)

    def action_replay_to_end(self) -> None:
        self.move_to(len(self.replay))

    def _jump(self, end: bool) -> None:
        pid = self.dag.selected_phase()
        if pid is None:
            return
        self.replay.state_at(self.position)
        found = self.replay.jump_to_phase_end(pid) if end else self.replay.jump_to_phase_start(pid)
        if found is None:
            self.app.notify(f"{pid} never {'finished' if end else 'started'} in this recording.")
            return
        target = self.replay.position
        self.move_to(target)

    def action_replay_phase_start(self) -> None:
        self._jump(end=False)

    def action_replay_phase_end(self) -> None:
        self._jump(end=True)

    def action_help(self) -> None:
        from tftui.tui.screens.modals import HelpScreen

        # The replay's own verbs first, then the shared ones; run controls are left out.
        own = [(self.key(v.id), f"{v.help}  ({v.id})") for v in verbs_for("replay") if v.group == "replay"]
        hidden = tuple(v.action for v in actions.VERBS if not v.acts_in("replay"))
        self.app.push_screen(HelpScreen(self.session.keymap, own, hidden=hidden))

    def read_only(self) -> None:
        self.app.notify(f"Replay is read-only: run controls are off ({self.replay_keys()}). "
                        f"To re-run it: tftui FLOW --from {self.source}", title="Replay", severity="warning")

    def start_run(self, *, step_first: bool = False, rerun: Rerun | None = None) -> None:
        self.read_only()  # any path that would start the engine (re-runs included) stops here

    def action_replay_export(self) -> None:
        if not Path(self.source).is_dir():
            self.app.notify(f"{self.source} is already a bundle.")
            return
        verbs.export_run_dir(self, Path(self.source))

    def action_replay_seek(self) -> None:
        """In a replay a data breakpoint is a search: the next event where the condition turns true.
        The dialog is the debugger's `B`, checking names as you type and refusing what it cannot read."""
        from tftui.tui.screens.databreak import DataBreakpointScreen

        def done(expr: str | None) -> None:
            if not expr:
                return
            self.last_seek = expr
            self.replay.state_at(self.position)
            if self.replay.seek(expr) is None:
                self.app.notify(f"`{expr}` does not turn true after event {self.position}.")
                return
            self.move_to(self.replay.position)

        self.app.push_screen(DataBreakpointScreen([], seek=True, value=self.last_seek), done)


def _blocked(screen: ReplayScreen) -> None:
    screen.read_only()


for _name in BLOCKED_ACTIONS:
    setattr(ReplayScreen, f"action_{_name}", _blocked)


class ReplayApp(TftuiApp):
    TITLE = "tftui replay"
    VERB_SCREEN = "replay"  # which verbs of tftui.verbs act here (bindings, palette, help)

    def __init__(self, replay: Replay, flow: Flow, *, source: str, **kwargs: Any) -> None:
        super().__init__(flow, flow_path=None, runner=None, watch=False, **kwargs)
        self.replay = replay
        self.source = source

    def now(self) -> float | None:
        # A recording has no clock: its phases show the durations they recorded, and a phase
        # still running at the replay's position none (a wall-clock time would mix in).
        return None

    def make_main_screen(self) -> ReplayScreen:
        return ReplayScreen(self)

    def screen_keymap(self, keymap: dict[str, str]) -> dict[str, str]:
        # A read-only run control never takes a key from a verb that acts here (tftui.verbs).
        return screen_keymap(keymap, "replay")

    @property
    def replay_screen(self) -> ReplayScreen:
        screen = self.main
        assert isinstance(screen, ReplayScreen)
        return screen

    @property
    def position(self) -> int:
        """Events of the recording the views show (0: before the first)."""
        return self.replay_screen.position


def open_replay_app(source: Path, **app_options: Any) -> tuple[ReplayApp | None, str | None]:
    """The replay app for a recording, or an error message (unreadable source, no flow).
    `app_options`: TftuiApp display options (`ascii`, `animations`)."""
    from tftui.bundle import open_replay
    from tftui.engine.replay import ReplayError
    from tftui.flow.load import load_flow_text

    try:
        replay = open_replay(source)
    except ReplayError as exc:
        return None, str(exc)
    text = replay.recording.flow_text if replay.recording is not None else None
    if text is None:
        return None, f"{source}: the recording does not include its flow (use --print)"
    loaded = load_flow_text(text)
    if loaded.flow is None:
        return None, f"{source}: the recorded flow does not load (use --print)"
    return ReplayApp(replay, loaded.flow, source=str(source), **app_options), None


def run_replay(source: Path, **app_options: Any) -> int:
    app, problem = open_replay_app(source, **app_options)
    if app is None:
        print(f"tftui replay: {problem}", file=sys.stderr)
        return 2
    return int(app.run() or 0)
