"""The debugger: pause points, stepping, breakpoints, guard overrides, gate and phase re-runs.

Pause points (docs/scheduling.md §7): `before-phase`, `before-attempt`, `before-round` (onBlock) and
`after-verdict` (gates), plus `after-failure` (a phase just failed), where only
break-on-failure stops (not stepping or breakpoints). The engine awaits `checkpoint(...)` at each; the debugger decides
whether to pause (step mode, a breakpoint on the phase, a pending failure/block with
break-on-failure/block, a data breakpoint, or a `pause()` request) and, if so, emits
`Paused`, calls `on_pause`, waits for `step()` / `continue_()`, then emits `Resumed`.

Data breakpoints are condition-language expressions over the names of tftui.engine.databreak: `{phase.id}`, `{phase.attempt}`
(1-based; 0 before the first attempt), `{phase.round}`, `{gate.verdict}`, `{gate.combined}`,
`{run.costUSD}` and `{run.tokens}`. A data breakpoint stops once each time it turns true.

No UI imports: a TUI or a test drives it with asyncio (`wait_paused()`, `step()`, …).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from tftui.engine import events as ev
from tftui.engine.databreak import scope_values
from tftui.engine.state import PhaseState, PhaseStatus

if TYPE_CHECKING:
    from tftui.engine.run import Run

POINTS = ("before-phase", "before-attempt", "before-round", "after-verdict", "after-failure")


class DebuggerError(RuntimeError):
    pass


class Debugger:
    def __init__(
        self,
        *,
        start_paused: bool = False,
        approver: Callable[[Any], Awaitable[Any]] | None = None,
        on_pause: Callable[[ev.Paused], Any] | None = None,
        skip_backoff: bool = False,
    ) -> None:
        self.stepping = start_paused
        self.breakpoints: set[str] = set()
        self.data_breakpoints: dict[str, bool] = {}  # expression -> was true at the last check
        self.break_on_failure = False
        self.break_on_block = False
        self.guard_overrides: dict[str, str] = {}
        self.approver = approver
        self.on_pause = on_pause
        self.skip_backoff = skip_backoff
        self.run: Run | None = None
        self.running = False
        self.paused: ev.Paused | None = None
        self._pause_requested = False
        self._pending: str | None = None  # "failure" | "block" waiting for the next pause point
        self._release = asyncio.Event()
        self._paused_evt = asyncio.Event()
        self._lock = asyncio.Lock()
        self._checking = 0  # points in or waiting for `_lock` (see checkpoint)

    # ---- engine hooks -------------------------------------------------------------------
    def attach(self, run: Run) -> None:
        self.run = run
        self.running = True
        run.clock.skip_all = self.skip_backoff  # a clock reused from an earlier run forgets its fast-forward

    def release(self) -> None:
        """Forget the run this debugger kept for re-runs, once a new run has a debugger of its
        own. The run points at its debugger too: without this the pair, with the run's whole
        state, is a cycle that only a full collection of the garbage collector frees, and that
        collection (docs/scheduling.md §8.2) comes at the next run's end, on the screen's thread,
        walking the ended state (25k objects for a 10,000-item map) as well as the live one."""
        if not self.running:
            self.run = None

    def detach(self, run: Run) -> None:
        self.running = False
        self.paused = None
        self._paused_evt.set()  # wake anyone waiting for a pause: the run is over

    def guard_override(self, phase_id: str) -> str | None:
        return self.guard_overrides.get(phase_id)

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.PhaseFinished) and event.status == "failed" and self.break_on_failure:
            self._pending = "failure"
        elif isinstance(event, ev.AttemptFailed) and self.break_on_failure:
            self._pending = "failure"
        elif isinstance(event, ev.GateVerdict) and event.verdict == "block" and self.break_on_block:
            self._pending = "block"

    async def checkpoint(self, run: Run, point: str, phase_id: str | None, **info: Any) -> None:
        # Nothing to pause for (a 10,000-item map passes a point per item): decided without the
        # lock, which took most of a point's cost in the debugger's runs.
        # Only while no other point is in or waiting for the lock, so points are still decided
        # in the order they came.
        if not self._checking and self._quiet(run, point, phase_id):
            return
        # One pause at a time: with concurrency > 1, a second phase reaching a pause point
        # waits here and is paused (or not) only after the first one was released.
        self._checking += 1
        try:
            async with self._lock:
                await self._checkpoint(run, point, phase_id, info)
        finally:
            self._checking -= 1

    def _quiet(self, run: Run, point: str, phase_id: str | None) -> bool:
        """True when `_checkpoint` would neither pause nor change anything at this point (data
        breakpoints are evaluated, and remember what they saw, at every point but after-failure:
        never quiet while there are any)."""
        if run.aborted:
            return True
        return self._standing(point, phase_id) is None and (point == "after-failure" or not self.data_breakpoints)

    async def _checkpoint(self, run: Run, point: str, phase_id: str | None, info: dict[str, Any]) -> None:
        if run.aborted:
            return  # an aborted run winds down without further pauses
        why = self._why(run, point, phase_id, info)
        if why is None:
            return
        paused = ev.Paused(
            point=point,
            phase_id=phase_id,
            node_path=info.get("node_path"),
            attempt=info.get("attempt"),
            round=info.get("round"),
            why=why,
        )
        self._release.clear()
        run.emit(paused)
        run.sync()  # everything up to a pause is durable while the user looks at it
        self.paused = paused
        self._paused_evt.set()
        if self.on_pause is not None:
            result = self.on_pause(paused)
            if inspect.isawaitable(result):
                await result
        await self._release.wait()
        self.paused = None
        self._paused_evt.clear()
        run.emit(ev.Resumed())

    def _standing(self, point: str, phase_id: str | None) -> str | None:
        """Why the debugger stops at this point, but for data breakpoints, without changing
        anything (`_why` consumes what it answers; `_quiet` only looks)."""
        if point == "after-failure":
            return "failure" if self._pending == "failure" else None
        if self._pause_requested:
            return "pause"
        if self._pending is not None:
            return self._pending
        if self.stepping:
            return "step"
        if point == "before-phase" and phase_id in self.breakpoints:
            return "breakpoint"
        return None

    def _why(self, run: Run, point: str, phase_id: str | None, info: dict[str, Any]) -> str | None:
        why = self._standing(point, phase_id)
        if why is None and point != "after-failure" and self.data_breakpoints and self._data_hit(run, phase_id, info):
            why = "data-breakpoint"
        if why is not None:
            # The pause taken here answers every request waiting for one: a `pause()` and a
            # pending failure or block both asked to stop at the next point, and this is it. Kept,
            # the one not named would stop the run again later under its stale reason (QA:
            # "paused before-phase summarize (failure)" after `c`, nothing having failed since).
            self._pause_requested = False
            self._pending = None
        return why

    def _data_hit(self, run: Run, phase_id: str | None, info: dict[str, Any]) -> bool:
        from tftui.lang.condition import evaluate
        from tftui.lang.interpolate import Context

        ctx = Context(args={}, steps={}, locals=self.data_scope(run, phase_id, info))
        hit = False
        for expr, was in list(self.data_breakpoints.items()):
            result = evaluate(expr, ctx)
            now = bool(result.value) and result.error is None
            self.data_breakpoints[expr] = now
            if now and not was:
                hit = True
        return hit

    @staticmethod
    def data_scope(run: Run, phase_id: str | None, info: dict[str, Any]) -> dict[str, Any]:
        return scope_values(run.state, phase_id, info.get("attempt"), info.get("round"))

    # ---- commands -----------------------------------------------------------------------
    def step(self) -> None:
        """Release the current pause point and stop at the next one."""
        self.stepping = True
        self._unpause()

    def continue_(self) -> None:
        """Run until a breakpoint, a failure/block (if enabled), a data breakpoint or the end."""
        self.stepping = False
        self._unpause()

    def _unpause(self) -> None:
        if self.running and self.paused is not None:
            self.paused = None
            self._paused_evt.clear()
        self._release.set()

    def pause(self) -> None:
        """Stop at the next pause point (nothing while paused: the run is already stopped, and
        a request kept would stop it again at the point after the one released)."""
        if self.paused is None:
            self._pause_requested = True

    def abort(self) -> None:
        """Cancel the run (it ends `paused`); releases a pause in progress."""
        if self.run is not None:
            self.run.abort()
        self.stepping = False
        self._unpause()

    def fast_forward(self, *, always: bool | None = None) -> int:
        """End backoff waits in progress now (and all later ones when `always=True`)."""
        if always is not None:
            self.skip_backoff = always
        if self.run is None:
            return 0
        return self.run.clock.fast_forward(skip_all=always)

    def set_breakpoint(self, phase_id: str, on: bool = True) -> None:
        (self.breakpoints.add if on else self.breakpoints.discard)(phase_id)

    def add_data_breakpoint(self, expr: str) -> str | None:
        """Add a data breakpoint; returns the syntax error message instead when it does not parse."""
        from tftui.lang.condition import syntax_error

        error = syntax_error(expr)
        if error is not None:
            return str(error)
        self.data_breakpoints[expr] = False
        return None

    def remove_data_breakpoint(self, expr: str) -> None:
        self.data_breakpoints.pop(expr, None)

    def set_guard(self, phase_id: str, expr: str | None) -> None:
        """Replace a phase's `when` for this run (None removes the override)."""
        if expr is None:
            self.guard_overrides.pop(phase_id, None)
        else:
            self.guard_overrides[phase_id] = expr

    async def wait_paused(self, timeout: float | None = None) -> ev.Paused | None:
        """Wait until the run pauses (the Paused event) or ends (None)."""
        await asyncio.wait_for(self._paused_evt.wait(), timeout)
        return self.paused if self.running else None

    # ---- re-runs after the run ended ----------------------------------------------------
    def _idle_run(self) -> Run:
        if self.run is None:
            raise DebuggerError("no run attached to this debugger yet")
        if self.running:
            raise DebuggerError("the run is still in progress; wait for it to finish first")
        return self.run

    async def rerun_gate(self, phase_id: str) -> PhaseState:
        """Re-evaluate a finished gate against the current upstream outputs (scorers: zero tokens)."""
        run = self._idle_run()
        phase = run.phases.get(phase_id)
        if phase is None or phase.type != "gate":
            raise DebuggerError(f"'{phase_id}' is not a gate of this flow")
        await self.run_phases([phase_id], reason="re-run gate")
        return run.state.phases[phase_id]

    async def run_phases(self, ids: Iterable[str], *, reason: str = "re-run") -> dict[str, PhaseState]:
        """Re-run the given (stale) phases in DAG order, keeping every other phase's output."""
        run = self._idle_run()
        wanted = set(ids)
        unknown = wanted - set(run.phases)
        if unknown:
            raise DebuggerError(f"unknown phase id(s): {', '.join(sorted(unknown))}")
        if run.block is not None:
            blocker = run.block[0]
            # a block by a re-run phase, or by one downstream of them (now stale), is lifted
            if blocker in wanted or any(blocker in run.dag.downstream(pid) for pid in wanted):
                run.block = None
        run.aborted = False
        self.running = True
        try:
            for layer in run.layers:
                for pid in layer:
                    if pid not in wanted:
                        continue
                    run.emit(ev.PhaseReset(phase_id=pid, reason=reason))
                    run.views.pop(pid, None)
                    await run.execute_phase(run.phases[pid])
                    if run.state.phases[pid].status == PhaseStatus.PENDING:
                        break  # aborted
                run.sync()
            run.recompute_block()
            status, final = run.run_status(), run.final_output()
            run.emit(ev.RunFinished(status=status, final_output=final, usage=dict(run.state.usage)))
            run.sync()
        finally:
            self.running = False
            self._paused_evt.set()
        return {pid: run.state.phases[pid] for pid in wanted}
