"""Time travel over a recorded run: a cursor over its events with the folded state at each point.

    replay = tftui.bundle.open_replay("path/to/run-dir-or.tftui.zip")
    replay.step(); replay.back(); replay.jump_to_phase_start("gate")
    replay.state            # RunState after the first `replay.position` events

`position` i means "after the first i events" (0 = before anything happened,
`len(replay)` = the end). Stepping forward applies one event to the working state
(O(1)); stepping back restores the nearest checkpoint at or before the target (a deep
copy taken every CHECKPOINT_EVERY events while moving forward) and folds forward from
there, so going back costs at most CHECKPOINT_EVERY event applications plus one copy.
The state is read-only for callers: it is the cursor's working copy.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tftui.engine import events as ev
from tftui.engine.databreak import scope_values
from tftui.engine.state import RunState, apply, copy_state

CHECKPOINT_EVERY = 200


class ReplayError(Exception):
    """A recording that cannot be opened (missing, not a run directory, not a bundle)."""


@dataclass
class Recording:
    """What a replay needs: the events and, when known, the flow text and run meta."""

    events: list[ev.Event]
    meta: dict[str, Any] = field(default_factory=dict)
    flow_text: str | None = None
    trace_text: str | None = None
    replies: dict[str, Any] | None = None
    source: str = ""
    warnings: list[str] = field(default_factory=list)


def load_run_dir(source: str | os.PathLike[str]) -> Recording:
    """A run directory (events.jsonl + meta.json [+ flow.json]). Bundles are opened one layer
    up (`tftui.bundle.load_recording` takes either): the engine never reads a bundle."""
    path = Path(source)
    if not path.is_dir():
        raise ReplayError(f"{path}: no such run directory or bundle file")
    from tftui.engine.journal import FLOW_FILE, JournalDamaged, load_events

    try:  # (no events.jsonl is JournalMissing: "not a run directory", as the trace says)
        events, meta, warnings = load_events(path)
    except JournalDamaged as exc:
        raise ReplayError(str(exc)) from exc
    flow_text = _read_text(path / FLOW_FILE)
    if flow_text is None and isinstance(meta.get("flowPath"), str):
        flow_text = _read_text(Path(meta["flowPath"]))
    trace_text = _read_text(path / "trace.json")
    return Recording(events, meta, flow_text, trace_text, None, str(path), warnings)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


class Replay:
    def __init__(self, events: list[ev.Event], *, recording: Recording | None = None) -> None:
        self.events = list(events)
        self.recording = recording
        self._state = RunState()
        self._position = 0
        self._checkpoints: dict[int, RunState] = {0: RunState()}
        self._marks: list[int] = [0]  # sorted checkpoint positions

    @classmethod
    def of(cls, recording: Recording) -> Replay:
        """A cursor over a recording (`tftui.bundle.open_replay` opens one from a path)."""
        return cls(recording.events, recording=recording)

    # -- cursor ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.events)

    @property
    def len(self) -> int:
        return len(self.events)

    @property
    def position(self) -> int:
        return self._position

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def current_event(self) -> ev.Event | None:
        """The event applied last (the one that produced the current state)."""
        return self.events[self._position - 1] if self._position > 0 else None

    def state_at(self, i: int) -> RunState:
        """Move to position `i` (clamped to [0, len]) and return the state there."""
        i = max(0, min(i, len(self.events)))
        if i < self._position:
            mark = self._marks[bisect_right(self._marks, i) - 1]
            self._state = copy_state(self._checkpoints[mark])
            self._position = mark
        while self._position < i:
            self._forward()
        return self._state

    def _forward(self) -> None:
        apply(self._state, self.events[self._position])
        self._position += 1
        if self._position % CHECKPOINT_EVERY == 0 and self._position not in self._checkpoints:
            self._checkpoints[self._position] = copy_state(self._state)
            self._marks.insert(bisect_right(self._marks, self._position), self._position)

    def step(self, n: int = 1) -> RunState:
        return self.state_at(self._position + n)

    def back(self, n: int = 1) -> RunState:
        return self.state_at(self._position - n)

    def to_start(self) -> RunState:
        return self.state_at(0)

    def to_end(self) -> RunState:
        return self.state_at(len(self.events))

    # -- jumps ----------------------------------------------------------------------------
    def _find(self, phase_id: str, kinds: tuple[type, ...], forward_from: int) -> int | None:
        hits = [
            i + 1
            for i, e in enumerate(self.events)
            if isinstance(e, kinds) and getattr(e, "phase_id", None) == phase_id
        ]
        if not hits:
            return None
        later = [h for h in hits if h > forward_from]
        return later[0] if later else hits[0]

    def jump_to_phase_start(self, phase_id: str) -> RunState | None:
        """The state right after the phase's next start (or skip); wraps to its first one. None if it never ran."""
        at = self._find(phase_id, (ev.PhaseStarted, ev.PhaseSkipped), self._position)
        return None if at is None else self.state_at(at)

    def jump_to_phase_end(self, phase_id: str) -> RunState | None:
        """The state right after the phase's next finish (or skip); wraps to its first one."""
        at = self._find(phase_id, (ev.PhaseFinished, ev.PhaseSkipped), self._position)
        return None if at is None else self.state_at(at)

    # -- data breakpoints ---------------------------------------------------------------
    def seek(self, expr: str, *, backward: bool = False) -> RunState | None:
        """Move to the next (or previous) position where the data breakpoint `expr` turns
        true (false just before, true there), like the live debugger's data breakpoints.
        None — and the cursor stays put — when it never does, or `expr` is no data breakpoint
        the live debugger would take (`databreak.problems`: bad syntax, a name it cannot read)."""
        from tftui.engine.databreak import problems

        if problems(expr):
            return None
        start = self._position
        positions = range(start - 1, 0, -1) if backward else range(start + 1, len(self.events) + 1)
        for i in positions:
            if self._hit(expr, i) and not self._hit(expr, i - 1):
                return self.state_at(i)
        self.state_at(start)
        return None

    def _hit(self, expr: str, i: int) -> bool:
        from tftui.lang.condition import evaluate
        from tftui.lang.interpolate import Context

        state = self.state_at(i)
        event = self.events[i - 1] if i > 0 else None
        result = evaluate(expr, Context(args={}, steps={}, locals=data_scope(state, event)))
        return bool(result.value) and result.error is None


def data_scope(state: RunState, event: ev.Event | None) -> dict[str, Any]:
    """The names a data breakpoint reads (tftui.engine.databreak) for the phase of the event
    that produced `state`."""
    phase_id = getattr(event, "phase_id", None) if event is not None else None
    st = state.phases.get(phase_id) if isinstance(phase_id, str) else None
    attempt = getattr(event, "attempt", None)
    if not isinstance(attempt, int) and st is not None and st.attempt_log:
        attempt = st.attempt_log[-1].attempt
    round_ = getattr(event, "round", None) or (st.round if st is not None else 0)
    return scope_values(state, phase_id if isinstance(phase_id, str) else None, attempt, round_)
