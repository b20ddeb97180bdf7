"""The debugger verbs: ONE registry drives key bindings, the footer, the `?` help
screen and the command palette. Users remap keys by verb id in config.toml `[keys]`.

A verb's `action` names an `action_<name>` method on `TftuiApp`; its binding id is
`tftui.<id>` (so `App.set_keymap` can remap it) and the config key is the bare id.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Verb:
    id: str
    key: str  # default key(s), Textual syntax; comma separates alternatives
    description: str  # short (footer)
    help: str  # one sentence (help screen, palette)
    action: str  # the app's action name (without `action_`)
    footer: bool = True
    priority: bool = False

    @property
    def binding_id(self) -> str:
        return f"tftui.{self.id}"


VERBS: tuple[Verb, ...] = (
    Verb("run", "c", "Run/cont", "Run the flow, or continue a paused run to the next breakpoint.", "run_continue"),
    Verb("step", "n,s", "Step", "Step: release one pause point (before a phase, attempt or onBlock round).", "step"),
    Verb("pause", "p", "Pause", "Pause the running flow at its next pause point.", "pause"),
    Verb("breakpoint", "b", "Break", "Toggle a breakpoint on the selected phase.", "toggle_breakpoint"),
    Verb(
        "break_on_failure",
        "f",
        "Brk-fail",
        "Toggle breaking when a phase fails or a gate blocks.",
        "toggle_break_on_failure",
        footer=False,
    ),
    Verb("rerun_gate", "r", "Re-run", "Re-run the selected gate against the current upstream state.", "rerun_gate"),
    Verb("edit_guard", "e", "Guard", "Edit the selected phase's `when` guard for this session.", "edit_guard"),
    Verb("what_if", "w", "What-if", "What-if on the selected gate: change threshold/weights/scorers, see the verdict (no model call).", "what_if", footer=False),
    Verb("gate_prev", "comma", "Prev eval", "Gate tab: show the selected gate's previous evaluation (attempt, onBlock round, re-run).", "gate_prev", footer=False),
    Verb("gate_next", "full_stop", "Next eval", "Gate tab: show the selected gate's next evaluation.", "gate_next", footer=False),
    Verb("toggle_diff", "D", "Diff", "Calls tab: toggle a diff of each output against the previous attempt/round.", "toggle_diff", footer=False),
    Verb("data_breakpoint", "B", "Data brk", "Add or remove a data breakpoint: stop when a condition ({phase.attempt} >= 2) turns true.", "data_breakpoint", footer=False),
    Verb(
        "rerun_stale",
        "u",
        "Update",
        "Re-run only the phases a reload marked stale (unchanged outputs are kept).",
        "rerun_stale",
    ),
    Verb(
        "fast_forward",
        "F",
        "Skip wait",
        "Fast-forward: skip the current and future retry backoff waits.",
        "fast_forward",
        footer=False,
    ),
    Verb("restart", "R", "Restart", "Restart the run from scratch (clears all phase states).", "restart"),
    Verb("filter_log", "slash", "Filter", "Filter the event log: failed only, by phase or by kind.", "filter_log"),
    Verb("toggle_log", "l", "Log", "Show or hide the event log.", "toggle_log", footer=False),
    Verb("toggle_detail", "d", "Detail", "Show or hide the detail panel.", "toggle_detail", footer=False),
    Verb("next_tab", "right_square_bracket", "Next tab", "Show the next detail tab.", "next_tab", footer=False),
    Verb("prev_tab", "left_square_bracket", "Prev tab", "Show the previous detail tab.", "prev_tab", footer=False),
    Verb("full_text", "o", "Open", "Show the detail tab's whole text in a scrollable viewer (long outputs are cut in the panel).", "full_text", footer=False),
    Verb("trace_tab", "T", "Trace", "Show the run's trace and rule results (Trace tab); again: back.", "trace_tab", footer=False),
    Verb("cycle_theme", "t", "Theme", "Switch to the next colour theme (saved to config.toml).", "cycle_theme", footer=False),
    Verb("export_bundle", "x", "Export", "Export the last run as a repro bundle (.tftui.zip: flow, journal, trace, answers).", "export_bundle", footer=False),
    Verb("help", "question_mark", "Help", "Show every key and what it does.", "help"),
    Verb("quit", "q", "Quit", "Quit tftui (the terminal is restored).", "quit"),  # not priority: a modal's own q (close) comes first
)

VERBS_BY_ID: dict[str, Verb] = {v.id: v for v in VERBS}
VERBS_BY_BINDING_ID: dict[str, Verb] = {v.binding_id: v for v in VERBS}


def bindings() -> list[Binding]:
    """Textual bindings for every verb (ids `tftui.<verb>`)."""
    return [
        Binding(
            v.key,
            v.action,
            v.description,
            show=v.footer,
            id=v.binding_id,
            priority=v.priority,
            key_display=_key_display(v.key),
        )
        for v in VERBS
    ]


_KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "comma": ",",
    "full_stop": ".",
}


def _key_display(key: str) -> str:
    return "/".join(_KEY_NAMES.get(k.strip(), k.strip()) for k in key.split(","))


def key_for(verb: Verb, keymap: dict[str, str] | None = None) -> str:
    """The key(s) in effect for a verb, for display (help screen, palette)."""
    if keymap and verb.binding_id in keymap:
        return _key_display(keymap[verb.binding_id])
    return _key_display(verb.key)
