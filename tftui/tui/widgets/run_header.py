"""The run header: one line, fitted to its width by dropping the least important parts first.

`flow · STATUS · paused at X: attempt 2 (breakpoint) · 1/3 · 4.6s · 489 tok $0.002 / 10k tok`.
Status and progress are always shown whole; at 80 columns the rest gives way in this order:
cassette counts, spend, elapsed time, stale count, data breakpoint, flow name (shortened, then
gone), pause point (shortened). The parts are kept so a resize re-fits the same line.
Progress n/m counts what `tftui run` counts: the flow's phases and, once they exist, the
phases a graft-mode expand added (`fanout-draft`); a sub-flow's own phases are not counted.
"""

from __future__ import annotations

from typing import Any

from tftui.tui import present
from tftui.tui.present import HeaderPart
from tftui.tui.widgets.folded import Folded

# Lower ranks give way first (see present.fit_header).
DROP_CASSETTE, DROP_SPEND, DROP_TIME, DROP_STALE, DROP_DATA_BP, DROP_NAME, DROP_PAUSE = range(7)


def header_parts(app: Any) -> list[HeaderPart]:
    """The header items of a TftuiApp's current run."""
    state = app.state
    done, total = present.progress(state, present.counted_phase_ids(state, app.flow))
    status = state.status if state.status != "pending" else "ready"
    name = app.flow.name
    parts = [
        HeaderPart(tuple(dict.fromkeys((name, present.cut(name, 16), present.cut(name, 10)))), DROP_NAME),
        HeaderPart.keep(str(status).upper()),
    ]
    if state.paused is not None:  # the most useful words while paused: kept longest after status/progress
        paused_id = state.paused.phase_id
        spec = app.flow.phase(paused_id) if paused_id else None
        parts.append(HeaderPart(present.pause_variants(state.paused, state, spec), DROP_PAUSE))
    parts.append(HeaderPart.keep(f"{done}/{total}"))
    if app.show_times and state.started_at is not None:
        end = state.ended_at if state.ended_at is not None else app.ctl.clock.time()
        parts.append(HeaderPart((present.format_duration(max(0.0, end - state.started_at) * 1000) or "0ms",), DROP_TIME))
    usage = state.usage or {}
    tokens = int(usage.get("input", 0) or 0) + int(usage.get("output", 0) or 0)
    spend = f"{present.format_tokens(tokens)} tok"
    if usage.get("cost"):
        spend += f" {present.format_cost(usage['cost'])}"
    budget = app.flow.budget
    caps = []
    if budget is not None:
        if budget.max_tokens is not None:
            caps.append(f"{present.format_tokens(budget.max_tokens)} tok")
        if budget.max_usd is not None:
            caps.append(f"${budget.max_usd:g}")
    parts.append(HeaderPart((f"{spend} / {' '.join(caps)}", spend) if caps else (spend,), DROP_SPEND))
    if app.stale:
        parts.append(HeaderPart((f"{len(app.stale)} stale (u)", f"{len(app.stale)} stale"), DROP_STALE))
    runner = app.ctl.runner
    if hasattr(runner, "replayed") and hasattr(runner, "live"):  # cassette mode (--from)
        parts.append(HeaderPart((f"cassette {runner.replayed} replayed/{runner.live} live",), DROP_CASSETTE))
    data_bp = app.data_breakpoint_header()
    if data_bp:
        count = len(app.ctl.data_breakpoints)
        short = f"{count} data breakpoint{'s' if count != 1 else ''} (B)"
        parts.append(HeaderPart(tuple(dict.fromkeys((data_bp, short))), DROP_DATA_BP))
    return parts


class RunHeader(Folded):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.parts: list[HeaderPart] = []

    def show(self, parts: list[HeaderPart]) -> None:
        glyphs = present.glyphs_for(self.app)
        # folded before fitting: an ASCII `...` is wider than the `…` it replaces
        self.parts = [HeaderPart(tuple(glyphs.fold(v) for v in p.variants), p.drop) for p in parts]
        self._fit()

    def on_resize(self, _event: object) -> None:
        if self.parts:
            self._fit()

    def _fit(self) -> None:
        width = self.content_size.width or max(1, self.app.size.width - 2)  # before the first layout
        sep = present.glyphs_for(self.app).sep
        # minor parts take their short forms before any part is dropped; name and pause text last
        self.update(present.fit_header(self.parts, width, sep, shorten_first_below=DROP_NAME), layout=False)
