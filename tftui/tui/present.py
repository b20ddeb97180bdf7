"""How a phase state is shown: display status, glyphs, counters, durations, usage.

Pure functions over `tftui.engine.state` values, so tree labels, the run header and
the detail panel agree, and tests can check them without a running app.
SPEC §3.5: a gate/approval with status `done` and verdict `block` shows as BLOCKED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tftui.engine.state import PhaseState, RunState

# Display statuses (a superset of the engine's: blocked, stale and paused-here are views).
DISPLAY_STATUSES = ("pending", "running", "done", "failed", "skipped", "blocked", "stale")


@dataclass(frozen=True)
class Glyphs:
    status: dict[str, str]
    breakpoint: str
    here: str  # the phase the run is paused at
    ref: str  # a phase reached a second time in the tree
    spinner: tuple[str, ...]


UNICODE = Glyphs(
    status={
        "pending": "○",
        "running": "◐",
        "done": "✓",
        "failed": "✗",
        "skipped": "⊘",
        "blocked": "■",
        "stale": "~",
    },
    breakpoint="●",
    here="▶",
    ref="↪",
    spinner=("◐", "◓", "◑", "◒"),
)

ASCII = Glyphs(
    status={
        "pending": ".",
        "running": "*",
        "done": "+",
        "failed": "x",
        "skipped": "-",
        "blocked": "!",
        "stale": "~",
    },
    breakpoint="b",
    here=">",
    ref="->",
    spinner=("|", "/", "-", "\\"),
)


def display_status(phase: PhaseState | None, *, stale: bool = False) -> str:
    """The status word the UI shows for a phase (SPEC §3.5 BLOCKED rule)."""
    if phase is None:
        return "stale" if stale else "pending"
    status = str(phase.status)
    if status == "done" and isinstance(phase.gate, dict) and phase.gate.get("verdict") == "block":
        return "blocked"
    if stale and status != "running":
        return "stale"
    return status


def format_duration(ms: float | None) -> str:
    if ms is None or ms < 1:
        return ""
    if ms < 1000:
        return f"{int(ms)}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def format_tokens(n: float | int) -> str:
    n = int(n)
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def format_cost(cost: float | int | None) -> str:
    if not cost:
        return ""
    if cost < 0.01:
        return f"${cost:.4f}"
    return f"${cost:.3f}" if cost < 10 else f"${cost:.2f}"


def usage_text(usage: dict[str, Any] | None) -> str:
    if not usage:
        return ""
    tokens = int(usage.get("input", 0) or 0) + int(usage.get("output", 0) or 0)
    parts = []
    if tokens:
        parts.append(f"{format_tokens(tokens)}t")
    cost = format_cost(usage.get("cost"))
    if cost:
        parts.append(cost)
    return " ".join(parts)


def counters_text(phase: PhaseState | None) -> str:
    """Attempt/round/iteration counters: `a2` attempts, `r1` onBlock rounds, `i3` loop iterations."""
    if phase is None:
        return ""
    parts: list[str] = []
    if phase.type == "gate":
        rounds = phase.round or (phase.attempts if str(phase.status) != "running" else 0)
        if rounds:
            parts.append(f"r{rounds}")
        own = [a for a in phase.attempt_log if a.node_path == phase.id]
        if own and max(a.attempt for a in own) > 0:
            parts.append(f"a{max(a.attempt for a in own) + 1}")
        return " ".join(parts)
    if phase.loop and isinstance(phase.loop, dict) and phase.loop.get("iterations"):
        parts.append(f"i{phase.loop['iterations']}")
    own = [a.attempt for a in phase.attempt_log if a.node_path == phase.id]
    if own:
        top = max(own) + 1
        if top > 1:
            parts.append(f"a{top}")
    elif phase.attempts > 1 and not phase.loop:
        parts.append(f"a{phase.attempts}")
    items = {a.node_path for a in phase.attempt_log if "#" in a.node_path and not a.node_path.endswith("#judge")}
    if items:
        done = sum(1 for a in _latest_by_path(phase).values() if a.status != "running")
        parts.append(f"{done}/{len(items)}")
    return " ".join(parts)


def _latest_by_path(phase: PhaseState) -> dict[str, Any]:
    latest: dict[str, Any] = {}
    for item in phase.attempt_log:
        if "#" in item.node_path and not item.node_path.endswith("#judge"):
            latest[item.node_path] = item
    return latest


def phase_duration_ms(phase: PhaseState | None, now: float | None) -> float | None:
    if phase is None:
        return None
    if phase.duration_ms:
        return phase.duration_ms
    if phase.started_at is not None:
        end = phase.ended_at if phase.ended_at is not None else now
        if end is not None:
            return max(0.0, (end - phase.started_at) * 1000)
    return None


def progress(state: RunState, phase_ids: list[str]) -> tuple[int, int]:
    """(finished, total) over the flow's phases."""
    done = 0
    for pid in phase_ids:
        phase = state.phases.get(pid)
        if phase is not None and phase.status.terminal:
            done += 1
    return done, len(phase_ids)


def plain_reason(phase: PhaseState | None) -> str:
    """The skip / failure / block reason in plain words, or '' when there is none."""
    if phase is None:
        return ""
    status = display_status(phase)
    if status == "blocked":
        reason = (phase.gate or {}).get("reason")
        what = "The approval was rejected" if phase.type == "approval" else "The gate blocked the run"
        return f"{what}: {reason}" if reason else f"{what}."
    if status == "skipped":
        reason = phase.error or ""
        if reason.startswith("Condition not met"):
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


def pause_text(paused: object) -> str:
    """`paused at quality: attempt 2 (breakpoint)` — short enough for an 80-column header."""
    point = getattr(paused, "point", "")
    where = getattr(paused, "node_path", None) or getattr(paused, "phase_id", None) or ""
    attempt = getattr(paused, "attempt", None)
    rnd = getattr(paused, "round", None)
    what = {
        "before-phase": "start",
        "before-attempt": f"attempt {attempt + 1}" if isinstance(attempt, int) else "attempt",
        "before-round": f"onBlock round {rnd}" if rnd else "onBlock round",
        "after-verdict": "verdict",
        "after-failure": "failed",
    }.get(point, point)
    return f"paused at {where}: {what} ({getattr(paused, 'why', '')})"
