"""Facts about one phase as the front ends show them: counters, duration, progress, reasons.

Pure functions over `tftui.engine.state` values, so the tree labels, the run header and the
detail panel agree, and tests can check them without a running app.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tftui.engine.state import Attempt, PhaseState, RunState, counted_phase_ids, progress  # noqa: F401 (present's n/m)
from tftui.lang.condition import UNMET
from tftui.present.gates import block_reason
from tftui.present.numbers import elapsed_text
from tftui.present.status import display_status


def counters_text(phase: PhaseState | None, spec: Any = None, paused: object = None) -> str:
    """Attempt/round/iteration counters: `a2` attempts, `r1` onBlock rounds, `i3` loop iterations,
    `2/3` fan-out items finished / items in all.

    Live while the phase runs: a loop's iteration is counted from its calls (each iteration
    starts with an attempt 1; `paused`, the run's pause point, counts the one about to
    send it, as the header's `iteration 2/4` does). A fan-out's total while it runs comes from `spec` when the file
    fixes it (`branches`, a literal `over` list) or from the map's ItemsResolved event (its
    `over` resolved at run time); without either (an old journal) it says `2 done`, never `2/2`.
    """
    if phase is None:
        return ""
    parts: list[str] = []
    running = str(phase.status) == "running"
    if phase.type == "gate":
        rounds = phase.round or (phase.attempts if not running else 0)
        if rounds:
            parts.append(f"r{rounds}")
        own_max = _summary(phase).own_max
        if own_max > 0:
            parts.append(f"a{own_max + 1}")
        return " ".join(parts)
    iterations = loop_iterations(phase, paused)
    if iterations:
        parts.append(f"i{iterations}")
    summary = _summary(phase)
    if summary.own_max >= 0:
        top = summary.own_max + 1
        if top > 1:
            parts.append(f"a{top}")
    elif phase.attempts > 1 and not phase.loop:
        parts.append(f"a{phase.attempts}")
    if summary.latest:
        done = summary.done()
        total = phase.items_total if phase.items_total is not None else _static_item_count(spec)
        if total is None and not running:
            total = len(summary.latest)
        parts.append(f"{done}/{total}" if total is not None else f"{done} done")
    return " ".join(parts)


def loop_iterations(phase: PhaseState, paused: object = None) -> int:
    """A loop's iterations: the finished count, or while it runs the ones started so far
    (with the iteration whose first call `paused` is about to send)."""
    if str(phase.status) == "running" and phase.type == "loop":
        started = _summary(phase).own_starts
        pending = (
            getattr(paused, "point", None) == "before-attempt"
            and getattr(paused, "attempt", None) == 0
            and (getattr(paused, "node_path", None) or getattr(paused, "phase_id", None)) == phase.id
        )
        return started + (1 if pending else 0)
    if isinstance(phase.loop, dict) and phase.loop.get("iterations"):
        return int(phase.loop["iterations"])
    return 0


def _static_item_count(spec: Any) -> int | None:
    """How many items/branches a fan-out phase runs, when the flow file alone says so."""
    branches = getattr(spec, "branches", None)
    if isinstance(branches, list) and branches:
        return len(branches)
    over = getattr(spec, "over", None) if getattr(spec, "type", None) == "map" else None
    return len(over) if isinstance(over, list) and over else None


@dataclass
class _LogSummary:
    """What the counters need from a phase's attempt log, kept up to date incrementally: the
    tree relabels running phases every refresh, and walking a 10,000-item map's whole log
    three times per refresh made key presses wait (issue 18). Calls are only ever appended;
    a call's status changes in place, so only the items still running are looked at again."""

    log: list[Attempt]
    seen: int = 0
    last: Attempt | None = None
    own_max: int = -1  # highest attempt number of the phase's own calls (-1: none)
    own_starts: int = 0  # own calls with attempt 0 (a loop's iterations)
    latest: dict[str, Attempt] = field(default_factory=dict)  # fan-out item path -> its latest call
    running: set[str] = field(default_factory=set)  # item paths whose latest call was running

    def done(self) -> int:
        latest = self.latest
        for path in [p for p in self.running if latest[p].status != "running"]:
            self.running.discard(path)
        return len(latest) - len(self.running)


# id(phase) -> (a weak reference to it, its summary): an entry goes when its phase does, so
# twenty re-runs of a big map keep no old attempt logs alive.
_SUMMARIES: dict[int, tuple[weakref.ref[PhaseState], _LogSummary]] = {}


def _forgetter(key: int) -> Callable[[weakref.ref[PhaseState]], None]:
    def forget(_ref: weakref.ref[PhaseState]) -> None:
        _SUMMARIES.pop(key, None)

    return forget


def _summary(phase: PhaseState) -> _LogSummary:
    log = phase.attempt_log
    key = id(phase)
    held = _SUMMARIES.get(key)
    summary = held[1] if held is not None and held[0]() is phase else None
    if (
        summary is None
        or summary.log is not log
        or len(log) < summary.seen
        or (summary.seen and log[summary.seen - 1] is not summary.last)
    ):  # a new log, or one rewritten rather than appended to: start over
        summary = _LogSummary(log)
        _SUMMARIES[key] = (weakref.ref(phase, _forgetter(key)), summary)
    if summary.seen < len(log):
        own, latest, running = phase.id, summary.latest, summary.running
        for item in log[summary.seen :]:
            path = item.node_path
            if path == own:
                summary.own_max = max(summary.own_max, item.attempt)
                summary.own_starts += item.attempt == 0
            if "#" in path and not path.endswith("#judge"):
                latest[path] = item
                if item.status == "running":
                    running.add(path)
                else:
                    running.discard(path)
        summary.seen = len(log)
        summary.last = log[-1]
    return summary


def paused_s_at(state: RunState, now: float | None) -> float:
    """The run's paused time so far, the pause in progress included."""
    since = state.paused_since
    return state.paused_s + (max(0.0, now - since) if since is not None and now is not None else 0.0)


def phase_duration_ms(phase: PhaseState | None, now: float | None, paused_s: float = 0.0) -> float | None:
    """A phase's time as the engine counts it: its duration once finished; while it runs, the
    time since it started less the run's pauses since then (`paused_s`: `paused_s_at(state, now)`),
    so a phase's clock never counts paused time nor passes the run's."""
    if phase is None:
        return None
    if phase.duration_ms:
        return phase.duration_ms
    if phase.started_at is not None:
        end = phase.ended_at if phase.ended_at is not None else now
        if end is not None:
            paused = max(0.0, paused_s - phase.paused_base) if phase.ended_at is None else 0.0
            return max(0.0, (end - phase.started_at - paused) * 1000)
    return None


def phase_duration_text(phase: PhaseState | None, now: float | None, paused_s: float = 0.0) -> str:
    """A phase's time as its tree row and Info tab show it: `phase_duration_ms` written as
    `elapsed_text` writes it (`0ms` under a millisecond, as `tftui run`'s column), '' while it has
    none (not started, or running in a recorded replay, which has no clock: `now` None)."""
    ms = phase_duration_ms(phase, now, paused_s)
    return "" if ms is None else elapsed_text(ms)


def run_elapsed_ms(state: RunState, now: float | None) -> float | None:
    """The run's active time: earlier runs a partial re-run continues, plus this one, pauses left out."""
    if state.started_at is None:
        return None
    end = state.ended_at if state.ended_at is not None else now
    if end is None:
        return None
    return max(0.0, state.earlier_s + end - state.started_at - paused_s_at(state, end)) * 1000


def run_calls(state: RunState) -> int:
    """Every model call the run sent to its runner, the one count every front end gives (`tftui
    run`'s summary and `--json`, `tftui runs`, `tftui replay --print`; after a partial re-run
    and a resume too): retries, onBlock rework rounds and the calls whose results a re-run
    replaced included, as the run's spend counts them (README "Cost and usage"); a call a resume
    answered from the journal once (docs/inputs.md §3)."""
    return state.calls


def plain_reason(phase: PhaseState | None) -> str:
    """The skip / failure / block reason in plain words, or '' when there is none."""
    if phase is None:
        return ""
    status = display_status(phase)
    if status == "blocked":
        given = (phase.gate or {}).get("reason")
        reason = block_reason(given if isinstance(given, str) else None, phase.output if phase.type == "gate" else None)
        what = "The approval was rejected" if phase.type == "approval" else "The gate blocked the run"
        return f"{what}: {reason}" if reason else f"{what}."
    if status == "skipped":
        reason = phase.error or ""
        if reason.startswith(UNMET):
            return f"Skipped because its `when` guard was false ({reason})."
        if reason.startswith("Gate blocked"):
            return f"Skipped because an earlier gate or approval blocked the run ({reason})."
        if reason.startswith("Budget exceeded"):
            return f"Skipped because the run went over its budget ({reason})."
        if reason:
            return f"Skipped because an upstream phase did not succeed ({reason})."
        return "Skipped."
    if status == "failed":
        return f"Failed: {phase.error}" if phase.error else "Failed."
    return ""


