"""The run header: one line, fitted to its width by dropping the least important parts first.

`flow · STATUS · paused at X: attempt 2 (breakpoint) · 1/3 · 4.6s · 489 tok $0.002 / 10k tok ·
stop: break at review, on failure`. Status, progress and what will stop the run (shortened to
`stop b1 f`, before anything else gives way) are always shown; at 80 columns the rest gives way
in this order: cassette counts, spend, elapsed time, stale count, flow name (shortened, then
gone), pause point (shortened). The parts are kept so a resize re-fits the same line.
Progress n/m is the one rule every front end shows (engine.state.progress, through present).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tftui import present
from tftui.agents.cassette import CassetteRunner
from tftui.present import HeaderPart
from tftui.tui.subtree import state_at
from tftui.tui.widgets.folded import Folded

if TYPE_CHECKING:  # the app imports this widget
    from tftui.tui.app import TftuiApp

# Lower ranks give way first (see present.fit_header).
# What will stop the run (when something is set) is shortened early and never dropped.
DROP_CASSETTE, DROP_STOPS, DROP_SPEND, DROP_TIME, DROP_STALE, DROP_DATA_BP, DROP_NAME, DROP_PAUSE = range(8)


def header_parts(app: TftuiApp) -> list[HeaderPart]:
    """The header items of the app's current run (a live run's, or a replay's position)."""
    state = app.state
    done, total = present.progress(state, [p.id for p in getattr(app.flow, "phases", None) or ()])
    status = state.status if state.status != "pending" else "ready"
    name = app.flow.name
    parts = [
        HeaderPart(tuple(dict.fromkeys((name, present.cut(name, 16), present.cut(name, 10)))), DROP_NAME),
        HeaderPart.keep(present.look(str(status)).headline),
    ]
    if state.paused is not None:  # the most useful words while paused: kept longest after status/progress
        paused_id = state.paused.phase_id
        spec = app.flow.phase(paused_id) if paused_id else None
        parts.append(HeaderPart(present.pause_variants(state.paused, state_at(state, paused_id) if paused_id else None, spec), DROP_PAUSE))
    parts.append(HeaderPart.keep(f"{done}/{total}"))
    elapsed = present.run_elapsed_ms(state, app.ctl.clock.time()) if app.show_times else None
    if elapsed is not None:  # pauses left out; a partial re-run adds to the run's time
        parts.append(HeaderPart((present.elapsed_text(elapsed),), DROP_TIME))
    # every call of the run; "incl. earlier runs" when a partial re-run replaced results it paid for
    budget = app.flow.budget
    caps = []
    if budget is not None:
        if budget.max_tokens is not None:
            caps.append(present.tokens_text(budget.max_tokens))
        if budget.max_usd is not None:
            caps.append(f"${budget.max_usd:g}")
    spends = present.spend_variants(state.usage, state.usage_earlier, " ".join(caps) or None)
    parts.append(HeaderPart(spends, DROP_SPEND))
    if app.stale:
        parts.append(HeaderPart((f"{len(app.stale)} stale (u)", f"{len(app.stale)} stale"), DROP_STALE))
    runner = app.ctl.runner
    if isinstance(runner, CassetteRunner):  # cassette mode (--from)
        parts.append(HeaderPart((f"cassette {runner.replayed} replayed/{runner.live} live",), DROP_CASSETTE))
    ctl = app.ctl
    if ctl.runner is not None:  # what will stop the run: always shown, shortened, never dropped
        ff = ctl.fast_forwarding  # this run's, or armed for the next one
        stops = present.stop_variants(sorted(ctl.breakpoints), ctl.break_on_failure, list(ctl.data_breakpoints), ff)
        armed = ctl.breakpoints or ctl.break_on_failure or ctl.data_breakpoints or ff
        if armed and (ctl.running or state.status == "pending"):
            parts.append(HeaderPart(stops, DROP_STOPS, required=True))
        else:  # nothing set, or the run has ended (the spend of the run read now comes first)
            parts.append(HeaderPart(stops, DROP_CASSETTE))
    return parts


class RunHeader(Folded):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.parts: list[HeaderPart] = []

    def show(self, parts: list[HeaderPart]) -> None:
        glyphs = present.glyphs_for(self.app)
        # folded before fitting: an ASCII `...` is wider than the `…` it replaces
        self.parts = [replace(p, variants=tuple(glyphs.show_line(v) for v in p.variants)) for p in parts]
        self._fit()

    def on_resize(self, _event: object) -> None:
        if self.parts:
            self._fit()

    def _fit(self) -> None:
        width = self.content_size.width or max(1, self.app.size.width - 2)  # before the first layout
        sep = present.glyphs_for(self.app).sep
        # minor parts take their short forms before any part is dropped; name and pause text last
        self.update(present.fit_header(self.parts, width, sep, shorten_first_below=DROP_NAME), layout=False)
