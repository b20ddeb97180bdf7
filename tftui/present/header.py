"""The run header's words: where a run is paused, and fitting the line to its width."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len

from tftui.engine.state import PhaseState
from tftui.present.phase import loop_iterations


def _pause_bits(paused: object, phase: PhaseState | None = None, spec: Any = None) -> tuple[str, str, str]:
    """(where, what, why) of a pause point: (`quality`, `attempt 2`, `breakpoint`).

    With the paused phase's state (a loop inside a sub-flow, `a/b`, too: the caller looks it
    up) and its spec, a loop's pause says which iteration
    (`iteration 2/4`: started so far / maxIterations): its node path and attempt number are
    the same in every iteration."""
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
    if point == "before-attempt" and isinstance(attempt, int) and phase is not None and phase.type == "loop":
        iteration = loop_iterations(phase, paused)
        of = ""
        if getattr(spec, "type", None) == "loop":
            from tftui.engine.phases.loop import (
                max_iterations,  # the engine's default and clamp (lazy: heavy)
            )

            of = f"/{max_iterations(getattr(spec, 'max_iterations', None))}"
        what = f"iteration {iteration}{of}" + (f", attempt {attempt + 1}" if attempt else "")
    return where, what, str(getattr(paused, "why", ""))


def pause_text(paused: object, phase: PhaseState | None = None, spec: Any = None) -> str:
    """`paused at quality: attempt 2 (breakpoint)` — short enough for an 80-column header."""
    where, what, why = _pause_bits(paused, phase, spec)
    return f"paused at {where}: {what} ({why})"


def pause_variants(paused: object, phase: PhaseState | None = None, spec: Any = None) -> tuple[str, ...]:
    """`pause_text`, then shorter forms for a narrow header (the status already says RUNNING)."""
    where, what, _why = _pause_bits(paused, phase, spec)
    forms = (
        pause_text(paused, phase, spec),
        f"paused at {where}: {what}",
        f"at {where}: {what}",
        f"at {cut(where, 16)}",
    )
    return tuple(dict.fromkeys(forms))


def stop_variants(
    breakpoints: Sequence[str], on_failure: bool, data: Sequence[str], fast_forward: bool
) -> tuple[str, ...]:
    """What will stop the run (README "Debugging a flow"), fullest first, down to the keys that
    set each (`stop b2 f B1 F`): breakpoints (`b`), break on failure (`f`), data breakpoints
    (`B`), and whether backoff waits are skipped (`F`, which never stops the run but changes when)."""
    bps = sorted(breakpoints)
    if not (bps or on_failure or data or fast_forward):
        return ("no breakpoints (b f B)", "no breakpoints", "no bp")
    full, medium, short = [], [], []
    if bps:
        full.append("break at " + (", ".join(bps) if len(bps) <= 3 else f"{len(bps)} phases"))
        medium.append(f"{len(bps)} breakpoint{'s' if len(bps) != 1 else ''}")
        short.append(f"b{len(bps)}")
    if on_failure:
        full.append("on failure")
        medium.append("on failure")
        short.append("f")
    if data:
        full.append(f"when {data[0]}" if len(data) == 1 else f"{len(data)} data breakpoints")
        medium.append(f"{len(data)} data (B)")
        short.append(f"B{len(data)}")
    if fast_forward:
        full.append("backoffs skipped")
        medium.append("no backoff")
        short.append("F")
    first = f"stop {full[0]}" if len(full) == 1 and full[0].startswith("when ") else "stop: " + ", ".join(full)
    forms = (first, "stop: " + ", ".join(medium), "stop " + " ".join(short))
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
    required: bool = False  # shortened in `drop` order, but never dropped (what will stop the run)

    @classmethod
    def keep(cls, text: str) -> HeaderPart:
        return cls((text,))


def fit_header(parts: list[HeaderPart], width: int, sep: str = "·", *, shorten_first_below: int = 0) -> str:
    """The header line for `width` cells: droppable parts are shortened, then dropped, in
    rank order until the line fits, then the room left is given back (most important part
    first); what must stay is never cut here (the widget may clip it on a terminal too
    narrow even for that)."""
    joiner = f" {sep} "
    steps = [list(p.variants) + ([""] if p.drop is not None and not p.required else []) for p in parts]
    choice = [0] * len(parts)

    def line() -> str:
        return joiner.join(text for text in (steps[i][c] for i, c in enumerate(choice)) if text)

    ranks = {i: p.drop for i, p in enumerate(parts) if p.drop is not None}
    order = sorted(ranks, key=lambda i: (ranks[i], -i))
    # First the short forms of the parts ranked below `shorten_first_below` (a data breakpoint's
    # `1 data breakpoint (B)`, spend without its budget): a shorter word beats a missing one.
    for i in order:
        if ranks[i] >= shorten_first_below:
            continue
        while cell_len(line()) > width and choice[i] < len(steps[i]) - 2:
            choice[i] += 1
    for i in order:
        while cell_len(line()) > width and choice[i] < len(steps[i]) - 1:
            choice[i] += 1
        if cell_len(line()) <= width:
            break
    # Give back what the last shortening made room for: a part dropped (or cut) before a longer
    # one shrank may fit again (a long flow name cut to 16 leaves room for the spend it displaced).
    for i in reversed(order):
        while choice[i] > 0:
            choice[i] -= 1
            if cell_len(line()) > width:
                choice[i] += 1
                break
    return line()
