"""Headless progress for `tftui run`: one line per finished phase, a live status line on a tty.

Everything shown is derived from engine events folded into a RunState, so
a resumed run prints the same lines as a fresh one. Lines go to stderr (stdout carries
the final output, or the `--json` object). On a terminal a spinner line shows the
phases in flight and is redrawn in place; elsewhere only whole lines are written.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from tftui import present
from tftui.engine import events as ev
from tftui.engine.state import PhaseState, RunState, apply
from tftui.present.terminal import encodable, raw_stream, term_line, term_text

if TYPE_CHECKING:
    from tftui.flow.model import Flow

APPROVAL_HINT = ("hint: a headless run rejects approval phases; `tftui run --approve` approves them, "
                 "or run the flow in the TUI (`tftui FLOW`) to decide")


def _one_line(text: str | None, limit: int = 100) -> str:
    if not text:
        return ""
    line = term_line(" ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def grafted_ids(flow: Flow) -> list[str]:
    """The top-level phases the graft-mode `expand` phases of `flow` (the run's, as loaded from
    the file) will add (`<expandId>-<childId>`), where the file says which: an inline `def`
    (an expand phase runs no saved flow: `flow.model.saved_flow_use`). A `def` built at run time
    (`{steps.plan.output}`) is unknown until it runs: [] for it, as for any problem."""
    from tftui.engine.subflow_def import definition_of

    ids: list[str] = []
    for phase in flow.phases:
        if phase.type != "expand" or getattr(phase, "expand_mode", "nested") != "graft":
            continue
        raw = getattr(phase, "def_", None)
        if isinstance(raw, (dict, list)):
            definition, _problem = definition_of(raw, phase.id)
            phases = definition.get("phases") if definition else None
            children = [p["id"] for p in phases or () if isinstance(p, dict) and isinstance(p.get("id"), str)]
        else:
            children = []
        ids += [f"{phase.id}-{child_id}" for child_id in children]
    return ids


class Progress:
    """Consumes engine events (`on_event`) and writes progress lines to `stream`."""

    def __init__(
        self,
        *,
        stream: TextIO | None = None,
        phase_types: dict[str, str] | None = None,
        quiet: bool = False,
        live: bool | None = None,
        color: bool | None = None,
        glyphs: present.Glyphs | None = None,
        state: RunState | None = None,
        flow: Flow | None = None,
    ) -> None:
        """`state`: the run's own fold, which the engine updates before it hands each event on
        (`run_service.execute(state=…)`): the lines read it, and no event is folded a second time
        here. Without one, the printer folds the events it is given into a state of its own.
        `flow`: the run's flow as loaded and checked, whose graft-mode expand phases size the id
        column (`grafted_ids`; the file is not read again)."""
        self.stream = stream or sys.stderr
        # the lines carry tftui's own colours and status-line codes: the text in them is
        # sanitised piece by piece (term_line), the codes go to the stream underneath
        self.out = raw_stream(self.stream)
        is_tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.live = is_tty if live is None else live
        no_color = "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb"
        self.color = (is_tty and not no_color) if color is None else color
        self.glyphs = glyphs or present.glyphs_for_stream(self.stream)
        self.quiet = quiet
        self.phase_types = dict(phase_types or {})
        self.id_width = max((len(pid) for pid in self.phase_types), default=8)
        self.type_width = max((len(t) for t in self.phase_types.values()), default=5)
        self.state = state if state is not None else RunState()
        self.flow = flow
        self._folds = state is None
        self.backoff_until: dict[str, float] = {}
        self._status_shown = False
        self._tick = 0
        self._task: asyncio.Task[None] | None = None
        self._started = time.monotonic()

    # -- event intake -----------------------------------------------------------------

    def on_event(self, event: ev.Event) -> None:
        if self._folds:
            apply(self.state, event)
        if isinstance(event, ev.RunStarted):
            for pid, ptype in event.phase_types.items():
                self.phase_types.setdefault(pid, ptype)
            if event.phase_ids:
                self.id_width = max(self.id_width, *(len(p) for p in event.phase_ids))
            if self.flow is not None and "expand" in event.phase_types.values() and event.flow_path:
                # grafted children (`fanout-draft`) get lines of their own: the id column is
                # sized for them now, lines already written cannot be realigned later
                grafted = grafted_ids(self.flow)
                self.id_width = max(self.id_width, *(len(p) for p in grafted), 0)
            if event.phase_types:
                self.type_width = max(self.type_width, *(len(t) for t in event.phase_types.values()))
        elif isinstance(event, ev.BackoffStarted):
            self.backoff_until[event.node_path] = time.monotonic() + event.delay_ms / 1000
        elif isinstance(event, ev.BackoffEnded):
            self.backoff_until.pop(event.node_path, None)
        elif isinstance(event, ev.AttemptStarted):
            self.backoff_until.pop(event.node_path, None)
        elif isinstance(event, (ev.PhaseFinished, ev.PhaseSkipped)):
            self.phase_line(self.state.phases[event.phase_id])

    # -- output -----------------------------------------------------------------------

    def _paint(self, text: str, status: str) -> str:
        if not self.color:
            return text
        return f"\x1b[{present.ansi_code(status)}m{text}\x1b[0m"

    def _write_line(self, line: str) -> None:
        self._clear_status()
        self.out.write(encodable(self.glyphs.fold(line)) + "\n")  # a stream that cannot show Unicode gets ASCII
        self.out.flush()

    def _clear_status(self) -> None:
        if self._status_shown:
            self.out.write("\r\x1b[K")
            self._status_shown = False

    def format_phase(self, phase: PhaseState) -> str:
        """`✓ id  type  status  N attempts  1.2s  345 tok  [error / reason]` in fixed columns."""
        status = present.display_status(phase)
        glyph = self._paint(self.glyphs.glyph(status), status)
        ptype = self.phase_types.get(phase.id, phase.type)
        head = f"{glyph} {term_line(phase.id):<{self.id_width}}  {ptype:<{self.type_width}}  {present.status_word(status):<7}"
        if status == "skipped":
            return f"{head}  {_one_line(phase.error)}".rstrip()
        attempts = max(phase.attempts, 1)
        unit = "round" if ptype == "gate" and phase.gate is not None and phase.round else "attempt"
        counted = f"{attempts} {unit}{'s' if attempts != 1 else ''}" if ptype != "approval" else "-"
        cols = (f"{counted:<10}  {present.elapsed_text(phase.duration_ms):>6}  "
                f"{present.spend_tokens_text(phase.usage):>10}")
        notes = []
        if phase.depth > 0:  # an upstream phase re-executed by a gate's onBlock round
            # its usage is the phase's, every round so far (as its tree row has it): rows of one
            # phase are not to be added up, the run's total counts each call once
            notes.append(f"(re-run for onBlock round {phase.round}; tokens: all its rounds)")
        if status == "failed":
            notes.append(_one_line(phase.error))
        elif status == "blocked" and phase.gate:
            notes.append(_one_line(phase.gate.get("reason")))
        return f"{head}  {cols}  {' '.join(notes)}".rstrip()

    def phase_line(self, phase: PhaseState) -> None:
        if self.quiet:
            return
        self._write_line(self.format_phase(phase))
        for warning in phase.warnings:
            self._write_line(f"    warning: {_one_line(warning, 160)}")
        if phase.approval and phase.approval.get("auto"):
            # The reason text is fixed by docs/language.md §6.6 ("no interactive approver available"); say here
            # what the user can do about it.
            self._write_line(f"    {APPROVAL_HINT}")

    def message(self, text: str) -> None:
        """A free-form note (resume notices, warnings) that must not collide with the status line."""
        self._write_line(term_text(text))

    def status_text(self) -> str:
        running = [p for p in self.state.phases.values() if str(p.status) == "running"]
        finished, total = present.progress(self.state)
        now = time.monotonic()
        pieces = []
        for phase in running[:4]:
            label = term_line(phase.id)
            if phase.items_total:  # a map: how far through its items (ItemsResolved)
                done = len({a.node_path for a in phase.attempt_log if a.status != "running"})
                label += f" {done}/{phase.items_total} items"
            current = phase.current_attempt
            if current is not None:
                wait = self.backoff_until.get(current.node_path, 0) - now
                if wait > 0:
                    label += f" (backoff {wait:.1f}s)"
                elif current.attempt > 0:
                    label += f" (attempt {current.attempt + 1})"
            pieces.append(label)
        if len(running) > 4:
            pieces.append(f"+{len(running) - 4} more")
        spinner = self.glyphs.spinner
        frame = spinner[self._tick % len(spinner)]
        elapsed = present.elapsed_text((now - self._started) * 1000)
        doing = ", ".join(pieces) if pieces else "scheduling"
        sep = self.glyphs.sep
        return f"{frame} {finished}/{total} phases {sep} {elapsed} {sep} {doing}"

    def draw_status(self) -> None:
        if not self.live or self.quiet:
            return
        self._tick += 1
        text = self.glyphs.fold(self.status_text())
        width = _terminal_width(self.stream)
        if len(text) > width - 1:
            text = text[: max(0, width - 2)] + "…"
        self.out.write("\r\x1b[K" + encodable(text))
        self.out.flush()
        self._status_shown = True

    # -- lifecycle --------------------------------------------------------------------

    async def _spin(self) -> None:
        while True:
            self.draw_status()
            await asyncio.sleep(0.1)

    def start(self) -> None:
        """Start the spinner task (only when live). Call from inside the running event loop."""
        if self.live and not self.quiet and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._spin())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        self._clear_status()
        self.out.flush()


def _terminal_width(stream: Any) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, AttributeError, ValueError):
        return 80
    return columns if columns > 10 else 80  # a pty with no size reports 0
