"""The verbs: every key-driven command of the debugger and of the replay screen, in ONE registry.

A verb is an id (what users remap in config.toml `[keys]`), a default key, a label (footer,
palette), a help sentence (the `?` screen, palette), a group, and whether the footer shows it.
Everything that needs the verbs reads them here: the TUI's bindings, footer, help screen and
command palette (`tftui.tui.actions`, `tftui.tui.commands`), the replay screen
(`tftui.tui.replay_app`), and `tftui config`'s checks (verb ids, "did you mean", key clashes,
in `tftui.config_schema`). This module imports nothing: `tftui config`, `tftui run` and the
engine never load Textual.

Screens: a verb acts on the screens in `screens`. On the screens in `read_only_in` its key
stays bound only to say that the screen cannot do it (the replay is read-only), so it never
takes a key from a verb that acts there. Key clashes are checked per screen
(`tftui.config_schema.key_clashes`).

A verb's `action` names an `action_<name>` method of the app of each screen it acts on; its
Textual binding id is `tftui.<id>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Screen = Literal["debugger", "replay", "approval"]
SCREENS: tuple[Screen, ...] = ("debugger", "replay", "approval")  # approval: the approval dialog
BOTH: tuple[Screen, ...] = ("debugger", "replay")
DEBUGGER_ONLY: tuple[Screen, ...] = ("debugger",)
REPLAY_ONLY: tuple[Screen, ...] = ("replay",)
APPROVAL_ONLY: tuple[Screen, ...] = ("approval",)

# Groups, in the order the help screen and the palette list them.
GROUPS: dict[str, str] = {
    "run": "Run control",
    "inspect": "Inspect",
    "view": "View",
    "replay": "Replay",
    "approval": "Approval dialog",
    "app": "App",
}


@dataclass(frozen=True)
class Verb:
    id: str
    key: str  # default key(s), Textual key names; a comma separates alternatives
    label: str  # short (footer, palette title)
    help: str  # one sentence (help screen, palette)
    action: str  # the app's action name (without `action_`)
    group: str  # a key of GROUPS
    footer: bool = True
    priority: bool = False
    screens: tuple[Screen, ...] = BOTH  # where the verb acts
    read_only_in: tuple[Screen, ...] = ()  # where its key only says "not here" (replay: read-only)

    @property
    def binding_id(self) -> str:
        return f"tftui.{self.id}"

    def acts_in(self, screen: Screen) -> bool:
        return screen in self.screens

    def bound_in(self, screen: Screen) -> bool:
        return screen in self.screens or screen in self.read_only_in


def _run_control(id_: str, key: str, label: str, help_: str, action: str, *, footer: bool = True) -> Verb:
    """A verb that changes the run: the replay screen keeps its key only to say it is read-only."""
    return Verb(id_, key, label, help_, action, "run", footer=footer, screens=DEBUGGER_ONLY, read_only_in=REPLAY_ONLY)


VERBS: tuple[Verb, ...] = (
    _run_control("run", "c", "Run/cont", "Run the flow, or continue a paused run to the next breakpoint.", "run_continue"),
    Verb("step", "n,s", "Step", "Step: release one pause point (before a phase, attempt or onBlock round).", "step",
         "run", screens=DEBUGGER_ONLY),
    _run_control("pause", "p", "Pause", "Pause the running flow at its next pause point.", "pause"),
    _run_control("breakpoint", "b", "Break", "Toggle a breakpoint on the selected phase.", "toggle_breakpoint"),
    _run_control("break_on_failure", "f", "Brk-fail", "Toggle breaking when a phase fails or a gate blocks.",
                 "toggle_break_on_failure", footer=False),
    _run_control("rerun_gate", "r", "Re-run", "Re-run the selected gate against the current upstream state.", "rerun_gate"),
    _run_control("edit_guard", "e", "Guard", "Edit the selected phase's `when` guard for this session.", "edit_guard"),
    Verb("what_if", "w", "What-if", "What-if on the selected gate: change threshold/weights/scorers, see the verdict (no model call).",
         "what_if", "inspect", footer=False),
    Verb("gate_prev", "comma", "Prev eval", "Gate tab: show the selected gate's previous evaluation (attempt, onBlock round, re-run).",
         "gate_prev", "inspect", footer=False),
    Verb("gate_next", "full_stop", "Next eval", "Gate tab: show the selected gate's next evaluation.", "gate_next",
         "inspect", footer=False),
    Verb("toggle_diff", "D", "Diff", "Calls tab: toggle a diff of each output against the previous attempt/round.",
         "toggle_diff", "inspect", footer=False),
    Verb("data_breakpoint", "B", "Data brk", "Add or remove a data breakpoint: stop when a condition ({phase.attempt} >= 2) turns true.",
         "data_breakpoint", "run", footer=False, screens=DEBUGGER_ONLY),
    _run_control("rerun_stale", "u", "Update", "Re-run only the phases a reload marked stale (unchanged outputs are kept).",
                 "rerun_stale"),
    _run_control("fast_forward", "F", "Skip wait",
                 "Fast-forward: skip the run's current and later retry backoff waits (between runs: the next run's).",
                 "fast_forward", footer=False),
    _run_control("restart", "R", "Restart", "Restart the run from scratch (clears all phase states).", "restart"),
    Verb("filter_log", "slash", "Filter", "Filter the event log: failed only, by phase or by kind.", "filter_log", "inspect"),
    Verb("toggle_log", "l", "Log", "Show or hide the event log.", "toggle_log", "view", footer=False),
    Verb("toggle_detail", "d", "Detail", "Show or hide the detail panel.", "toggle_detail", "view", footer=False),
    Verb("next_tab", "right_square_bracket", "Next tab", "Show the next detail tab.", "next_tab", "view", footer=False),
    Verb("prev_tab", "left_square_bracket", "Prev tab", "Show the previous detail tab.", "prev_tab", "view", footer=False),
    Verb("tree_down", "j", "Down", "Select the next phase in the tree (as down there), from any pane.", "tree_down", "view",
         footer=False),
    Verb("tree_up", "k", "Up", "Select the previous phase in the tree (as up there), from any pane.", "tree_up", "view",
         footer=False),
    Verb("page_down", "pagedown", "Page down", "Scroll the detail pane down a page, from the tree too (the log when it has focus).",
         "page_down", "view", footer=False, priority=True),
    Verb("page_up", "pageup", "Page up", "Scroll the detail pane up a page, from the tree too (the log when it has focus).",
         "page_up", "view", footer=False, priority=True),
    Verb("full_text", "o", "Open", "Show the detail tab's whole text in a scrollable viewer (long outputs are cut in the panel).",
         "full_text", "inspect", footer=False),
    Verb("trace_tab", "T", "Trace", "Show the run's trace and rule results (Trace tab); again: back.", "trace_tab",
         "inspect", footer=False),
    Verb("cycle_theme", "t", "Theme", "Switch to the next colour theme (saved to config.toml).", "cycle_theme", "view",
         footer=False),
    Verb("export_bundle", "x", "Export", "Export the last run as a repro bundle (.tftui.zip: flow, journal, trace, answers).",
         "export_bundle", "app", footer=False, screens=DEBUGGER_ONLY),
    # the replay screen's own verbs (tftui replay RUN_DIR|BUNDLE)
    Verb("replay_next", "n,s", "Next event", "Replay: the next event (every view shows the run after it).",
         "replay_next", "replay", screens=REPLAY_ONLY),
    Verb("replay_back", "N", "Prev event", "Replay: the previous event.", "replay_back", "replay", screens=REPLAY_ONLY),
    Verb("replay_phase_start", "left_curly_bracket", "Phase start", "Replay: jump to the selected phase's (next) start.",
         "replay_phase_start", "replay", screens=REPLAY_ONLY),
    Verb("replay_phase_end", "right_curly_bracket", "Phase end", "Replay: jump to the selected phase's (next) end.",
         "replay_phase_end", "replay", screens=REPLAY_ONLY),
    Verb("replay_to_start", "g", "Start", "Replay: go to the start of the recording.", "replay_to_start", "replay",
         footer=False, screens=REPLAY_ONLY),
    Verb("replay_to_end", "G", "End", "Replay: go to the end of the recording.", "replay_to_end", "replay",
         footer=False, screens=REPLAY_ONLY),
    Verb("replay_seek", "B", "Seek", "Replay: seek forward to where a condition turns true ({phase.attempt} >= 2).",
         "replay_seek", "replay", footer=False, screens=REPLAY_ONLY),
    Verb("replay_export", "x", "Export", "Replay: export this run directory as a repro bundle.", "replay_export",
         "replay", footer=False, screens=REPLAY_ONLY),
    # the approval dialog (an approval phase in the debugger). Chords, as its note box takes
    # typing; none is a terminal multiplexer's prefix (screen's ctrl+a) or the box's own key
    # (ctrl+y is its redo).
    Verb("approve", "ctrl+o", "Approve", "Approval dialog: approve (the note, if any, is the phase's output).",
         "decide('approve')", "approval", priority=True, screens=APPROVAL_ONLY),
    Verb("reject", "ctrl+r", "Reject", "Approval dialog: reject (blocks the run; the note is the reason).",
         "decide('reject')", "approval", priority=True, screens=APPROVAL_ONLY),
    Verb("edit_approval", "ctrl+e", "Edit", "Approval dialog: edit the text the phase passes on; the approve key confirms the edit, esc goes back.",
         "edit", "approval", priority=True, screens=APPROVAL_ONLY),
    Verb("help", "question_mark", "Help", "Show every key and what it does.", "help", "app"),
    # not priority: a modal's own q (close) comes first
    Verb("quit", "q", "Quit", "Quit tftui (the terminal is restored).", "quit", "app"),
)

VERBS_BY_ID: dict[str, Verb] = {v.id: v for v in VERBS}
VERB_IDS: tuple[str, ...] = tuple(VERBS_BY_ID)


def verbs_for(screen: Screen) -> tuple[Verb, ...]:
    """The verbs that act on `screen`, in registry order."""
    return tuple(v for v in VERBS if v.acts_in(screen))


def bound_in(screen: Screen) -> tuple[Verb, ...]:
    """The verbs whose keys `screen` binds: the ones acting there, and the read-only ones."""
    return tuple(v for v in VERBS if v.bound_in(screen))


# How a key name reads on screen (footer, help, palette).
KEY_DISPLAY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
    "comma": ",",
    "full_stop": ".",
}


def key_display(key: str) -> str:
    """`n,s` -> `n/s`, `question_mark` -> `?`."""
    return "/".join(KEY_DISPLAY_NAMES.get(k.strip(), k.strip()) for k in key.split(","))


def _bound(verb: Verb, keymap: dict[str, str] | None) -> str:
    """The verb's keys in effect (`n,s`); `keymap` maps binding ids to keys (config.toml `[keys]`)."""
    return keymap[verb.binding_id] if keymap and verb.binding_id in keymap else verb.key


def key_for(verb: Verb, keymap: dict[str, str] | None = None) -> str:
    """The key(s) in effect for a verb, for display; `keymap` maps binding ids to keys."""
    return key_display(_bound(verb, keymap))


def key_said(verb_id: str, keymap: dict[str, str] | None = None) -> str:
    """The key a message tells you to press for a verb: its first key in effect (a remap in
    config.toml `[keys]` included), as the footer shows it. Every message that names a verb's
    key gets it here, so a remapped key is never named by its default."""
    return key_display(_bound(VERBS_BY_ID[verb_id], keymap).split(",")[0])


def run_keys(keymap: dict[str, str] | None = None) -> str:
    """`c runs, n steps`: how to start a run, where there is none to show."""
    return f"{key_said('run', keymap)} runs, {key_said('step', keymap)} steps"


def reopen_hint(verb_id: str, keymap: dict[str, str] | None, what: str) -> str:
    """What to do when a dialog's save was refused because the file changed on disk: the
    debugger has reloaded it itself (there is no reload key), and `what` opens on the version
    it has, so closing and reopening it is the fix."""
    return f"Close {what} with Esc and press {key_said(verb_id, keymap)} again: it opens on the reloaded file."
