"""How a phase state is shown: display status, glyphs, counters, durations, usage.

Pure functions over `tftui.engine.state` values, so tree labels, the run header and
the detail panel agree, and tests can check them without a running app.
SPEC §3.5: a gate/approval with status `done` and verdict `block` shows as BLOCKED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from tftui.engine.state import PhaseState, RunState
from tftui.tui.asciifold import fold_text, to_ascii

# Display statuses (a superset of the engine's: blocked, stale and paused-here are views).
DISPLAY_STATUSES = ("pending", "running", "done", "failed", "skipped", "blocked", "stale")


@dataclass(frozen=True)
class Glyphs:
    status: dict[str, str]
    breakpoint: str
    here: str  # the phase the run is paused at
    ref: str  # a phase reached a second time in the tree
    spinner: tuple[str, ...]
    # before a phase run inside its parent (a sub-flow's `a/b`, a grafted `x-b`), so it
    # cannot be taken for a dependent, which hangs from the same tree connector
    nested: str = "⤷"
    sep: str = "·"  # between the items of one line (run header)
    mark: str = "·"  # before a UI note in the event log
    ascii: bool = False  # everything else shown is folded to ASCII too (asciifold)

    def fold(self, text: str) -> str:
        """Text as this glyph set shows it: unchanged, or folded to readable ASCII."""
        return to_ascii(text) if self.ascii else text

    def fold_text(self, text: Text) -> Text:
        return fold_text(text) if self.ascii else text


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

# Every status glyph differs from every tree guide (`|`, `+`, `` ` ``: dag_tree's ASCII
# LINES), expand icon (`>`, `v`) and marker: `+` is the guides' branch, so done is `*`.
# No `|/-\\` spinner: its frames would read as a guide or as skipped.
ASCII = Glyphs(
    status={
        "pending": ".",
        "running": "o",
        "done": "*",
        "failed": "x",
        "skipped": "-",
        "blocked": "!",
        "stale": "~",
    },
    breakpoint="b",
    here=">",
    ref="->",
    spinner=("o", "O"),
    nested="\\_",
    sep="|",
    mark="*",
    ascii=True,
)


def glyphs_for(app: object) -> Glyphs:
    """The glyph set of a running app (screens pushed by any module ask the app)."""
    glyphs = getattr(app, "glyphs", None)
    return glyphs if isinstance(glyphs, Glyphs) else UNICODE


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
        own = [a for a in phase.attempt_log if a.node_path == phase.id]
        if own and max(a.attempt for a in own) > 0:
            parts.append(f"a{max(a.attempt for a in own) + 1}")
        return " ".join(parts)
    iterations = loop_iterations(phase, paused)
    if iterations:
        parts.append(f"i{iterations}")
    own = [a.attempt for a in phase.attempt_log if a.node_path == phase.id]
    if own:
        top = max(own) + 1
        if top > 1:
            parts.append(f"a{top}")
    elif phase.attempts > 1 and not phase.loop:
        parts.append(f"a{phase.attempts}")
    latest = _latest_by_path(phase)
    if latest:
        done = sum(1 for a in latest.values() if a.status != "running")
        total = phase.items_total if phase.items_total is not None else _static_item_count(spec)
        if total is None and not running:
            total = len(latest)
        parts.append(f"{done}/{total}" if total is not None else f"{done} done")
    return " ".join(parts)


def loop_iterations(phase: PhaseState, paused: object = None) -> int:
    """A loop's iterations: the finished count, or while it runs the ones started so far
    (with the iteration whose first call `paused` is about to send)."""
    if str(phase.status) == "running" and phase.type == "loop":
        started = sum(1 for a in phase.attempt_log if a.node_path == phase.id and a.attempt == 0)
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


def counted_phase_ids(state: RunState, flow: Any) -> list[str]:
    """The phases the header's n/m counts, as `tftui run` counts them: the flow's, and the
    children a graft-mode expand phase added to the run (`fanout-draft`), once they exist.
    A sub-flow's phases (`research/points`) are its parent's business and not counted."""
    from tftui.tui.subtree import parent_of

    ids = [p.id for p in getattr(flow, "phases", None) or ()]
    known = set(ids)
    ids += [pid for pid in state.phases if pid not in known and "/" not in pid and parent_of(pid, state) is not None]
    return ids


def progress(state: RunState, phase_ids: list[str]) -> tuple[int, int]:
    """(finished, total) over these phases (see `counted_phase_ids`)."""
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


def _pause_bits(paused: object, state: RunState | None = None, spec: Any = None) -> tuple[str, str, str]:
    """(where, what, why) of a pause point: (`quality`, `attempt 2`, `breakpoint`).

    With the run's state and the paused phase's spec, a loop's pause says which iteration
    (`iteration 2/4`: started so far / maxIterations): its node path and attempt number are
    the same in every iteration."""
    point = getattr(paused, "point", "")
    phase_id = getattr(paused, "phase_id", None)
    where = getattr(paused, "node_path", None) or phase_id or ""
    attempt = getattr(paused, "attempt", None)
    rnd = getattr(paused, "round", None)
    what = {
        "before-phase": "start",
        "before-attempt": f"attempt {attempt + 1}" if isinstance(attempt, int) else "attempt",
        "before-round": f"onBlock round {rnd}" if rnd else "onBlock round",
        "after-verdict": "verdict",
        "after-failure": "failed",
    }.get(point, point)
    phase = None
    if state is not None and isinstance(phase_id, str):
        from tftui.tui.subtree import state_at  # a loop inside a sub-flow (`a/b`) too

        phase = state_at(state, phase_id)
    if point == "before-attempt" and isinstance(attempt, int) and phase is not None and phase.type == "loop":
        iteration = loop_iterations(phase, paused)
        of = ""
        if getattr(spec, "type", None) == "loop":
            from tftui.engine.phases.loop import max_iterations  # the engine's default and clamp

            of = f"/{max_iterations(getattr(spec, 'max_iterations', None))}"
        what = f"iteration {iteration}{of}" + (f", attempt {attempt + 1}" if attempt else "")
    return where, what, str(getattr(paused, "why", ""))


def pause_text(paused: object, state: RunState | None = None, spec: Any = None) -> str:
    """`paused at quality: attempt 2 (breakpoint)` — short enough for an 80-column header."""
    where, what, why = _pause_bits(paused, state, spec)
    return f"paused at {where}: {what} ({why})"


def pause_variants(paused: object, state: RunState | None = None, spec: Any = None) -> tuple[str, ...]:
    """`pause_text`, then shorter forms for a narrow header (the status already says RUNNING)."""
    where, what, _why = _pause_bits(paused, state, spec)
    forms = (
        pause_text(paused, state, spec),
        f"paused at {where}: {what}",
        f"at {where}: {what}",
        f"at {cut(where, 16)}",
    )
    return tuple(dict.fromkeys(forms))


def cut(text: str, width: int) -> str:
    """`text`, or its first `width - 1` characters and `…`."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


@dataclass(frozen=True)
class HeaderPart:
    """One item of the run header. `variants` go from the fullest to the shortest. A part with
    a `drop` rank may go altogether; lower ranks give way first (the rightmost first on a tie).
    A part without one (status, progress) is always shown whole."""

    variants: tuple[str, ...]
    drop: int | None = None

    @classmethod
    def keep(cls, text: str) -> HeaderPart:
        return cls((text,))


def fit_header(parts: list[HeaderPart], width: int, sep: str = "·", *, shorten_first_below: int = 0) -> str:
    """The header line for `width` cells: droppable parts are shortened, then dropped, in
    rank order until the line fits; what must stay is never cut here (the widget may clip
    it on a terminal too narrow even for that)."""
    joiner = f" {sep} "
    steps = [list(p.variants) + ([""] if p.drop is not None else []) for p in parts]
    choice = [0] * len(parts)

    def line() -> str:
        return joiner.join(text for text in (steps[i][c] for i, c in enumerate(choice)) if text)

    order = sorted((i for i, p in enumerate(parts) if p.drop is not None), key=lambda i: (parts[i].drop, -i))
    # First the short forms of the parts ranked below `shorten_first_below` (a data breakpoint's
    # `1 data breakpoint (B)`, spend without its budget): a shorter word beats a missing one.
    for i in order:
        if parts[i].drop >= shorten_first_below:
            continue
        while cell_len(line()) > width and choice[i] < len(steps[i]) - 2:
            choice[i] += 1
    for i in order:
        while cell_len(line()) > width and choice[i] < len(steps[i]) - 1:
            choice[i] += 1
        if cell_len(line()) <= width:
            break
    return line()
