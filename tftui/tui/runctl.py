"""The run side of the app: starts runs, holds the debugger, the clock and the session's
debugging settings (breakpoints, guard overrides, break-on-failure).

The engine decides every semantic question; this module only translates the UI's
verbs into debugger calls and runs a prepared `RunSession` (tftui.run_service).

Threads: the run executes in a Textual thread worker with its own event loop, so an
engine that never yields (instant replies, a 1,000-item map) cannot delay key
handling. The debugger and clock belong to that loop: every command from the UI is
handed over with `call_soon_threadsafe` (`_send`), never called directly.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tftui.agents.base import AgentRunner
from tftui.engine.clock import Clock
from tftui.engine.events import Event

if TYPE_CHECKING:  # the engine's run loads after first paint (main_screen warms it up)
    from tftui import run_service
    from tftui.engine.debugger import Debugger
    from tftui.engine.run import RunResult

GIL_SWITCH_INTERVAL_S = 0.0005


class RunController:
    def __init__(self, *, runner: AgentRunner | None, clock: Clock | None, args: dict[str, Any], flow_path: str | None) -> None:
        self.runner = runner
        self.clock = clock or Clock()
        self.args = args
        self.flow_path = flow_path
        self.breakpoints: set[str] = set()
        self.guard_overrides: dict[str, str] = {}
        self.break_on_failure = False  # `f` toggles: stop on a failed attempt/phase or a block
        self.data_breakpoints: list[str] = []  # condition-language expressions (`B`), in order added
        self.fast_forwarding = False  # `F` in this run, or the next one: every backoff wait is skipped (Debugger.skip_backoff)
        self.debugger: Debugger | None = None
        self.running = False  # set by the UI when it starts a run, cleared when the worker ended
        self.approver: Callable[[Any], Awaitable[Any]] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the engine thread's loop during a run
        self.task: asyncio.Task[Any] | None = None
        self.cwd_bridge = False  # `--allow-cwd-bridge` / run.allow_cwd_bridge (tftui.engine.cwd_bridge)

    # -- debugger wiring -------------------------------------------------------------
    def _new_debugger(self, *, step_first: bool) -> Debugger:
        from tftui.engine.debugger import Debugger

        dbg = Debugger(start_paused=step_first, approver=self.approver, skip_backoff=self.fast_forwarding)
        for pid in self.breakpoints:
            dbg.set_breakpoint(pid)
        for pid, expr in self.guard_overrides.items():
            dbg.set_guard(pid, expr)
        for expr in self.data_breakpoints:
            dbg.add_data_breakpoint(expr)
        dbg.break_on_failure = dbg.break_on_block = self.break_on_failure
        return dbg

    async def run(
        self,
        session: run_service.RunSession,
        on_event: Callable[[Event], None],
        *,
        step_first: bool = False,
    ) -> RunResult:
        """Execute a prepared session on this (the worker thread's) loop, under a new debugger."""
        from tftui import run_service

        runner = self.runner
        if runner is None:
            raise RuntimeError("this session has no agent runner: it cannot run (a replay)")
        if self.debugger is not None:  # its run goes with it, without a full collection (Debugger.release)
            self.debugger.release()
        self.debugger = self._new_debugger(step_first=step_first)
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        # While the engine thread is busy, the UI thread waits for the GIL after every
        # system call; a short switch interval bounds each wait (default 5 ms). It stays
        # short while the service writes trace.json at the end (~45 ms for a 1,000-item map).
        previous_interval = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        try:
            return await run_service.execute(
                session,
                runner=runner,
                debugger=self.debugger,
                clock=self.clock,
                on_event=on_event,
                cwd_bridge=self.cwd_bridge,
            )
        finally:
            sys.setswitchinterval(previous_interval)
            self.loop = None
            self.task = None

    def _send(self, command: Callable[[Debugger], object]) -> bool:
        """Run `command(debugger)` on the engine's loop (thread-safe). False without a debugger."""
        dbg = self.debugger
        if dbg is None:
            return False
        return self._post(lambda: command(dbg))

    def _post(self, fn: Callable[[], object]) -> bool:
        loop = self.loop
        if loop is None:
            fn()
            return True
        try:
            loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the engine loop just closed: the run is over
            return False
        return True

    def stop(self) -> None:
        """Cancel the run now (quit, restart): cancels any await, including a model call."""
        loop, task = self.loop, self.task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:
                pass

    # -- verbs ----------------------------------------------------------------------
    def step(self) -> bool:
        return self._send(lambda dbg: dbg.step())

    def resume(self) -> bool:
        return self._send(lambda dbg: dbg.continue_())

    @property
    def paused(self) -> bool:
        return self.debugger is not None and self.debugger.paused is not None

    def pause(self) -> bool:
        return self._send(lambda dbg: dbg.pause())

    def toggle_breakpoint(self, pid: str) -> bool:
        """Returns True when the phase now has a breakpoint."""
        on = pid not in self.breakpoints
        (self.breakpoints.add if on else self.breakpoints.discard)(pid)
        self._send(lambda dbg: dbg.set_breakpoint(pid, on))
        return on

    def set_break_on_failure(self, on: bool) -> None:
        self.break_on_failure = on
        dbg = self.debugger
        if dbg is not None:
            # plain attribute writes: atomic under the GIL, read by the engine at its next check
            dbg.break_on_failure = dbg.break_on_block = on

    def set_guard(self, pid: str, expr: str | None) -> None:
        if expr is None:
            self.guard_overrides.pop(pid, None)
        else:
            self.guard_overrides[pid] = expr
        self._send(lambda dbg: dbg.set_guard(pid, expr))

    def add_data_breakpoint(self, expr: str) -> str | None:
        """Add a data breakpoint (this run and later ones); why not, when it does not parse or
        names a field a data breakpoint cannot read (tftui.engine.databreak)."""
        from tftui.engine import databreak

        problems = databreak.problems(expr)
        if problems:
            return "; ".join(problems)
        if expr not in self.data_breakpoints:
            self.data_breakpoints.append(expr)
            self._send(lambda dbg: dbg.add_data_breakpoint(expr))
        return None

    def remove_data_breakpoint(self, expr: str) -> None:
        if expr in self.data_breakpoints:
            self.data_breakpoints.remove(expr)
            self._send(lambda dbg: dbg.remove_data_breakpoint(expr))

    def fast_forward(self) -> int:
        """Skip the backoff wait in progress and every later one in this run: the debugger's verb,
        run on the engine's loop (`Debugger.fast_forward`). Returns the waits it cuts short."""
        sleeping = self.clock.sleeping
        self.fast_forwarding = True  # the header says so at once; the run learns it on its loop
        self._send(lambda dbg: dbg.fast_forward(always=True))
        return sleeping

    def run_ended(self) -> None:
        """The run's worker is done: the per-run settings start over (fast-forward lasts one run;
        `F` pressed while no run goes is the next run's)."""
        self.running = False
        self.fast_forwarding = False

    def abort(self) -> None:
        self._send(lambda dbg: dbg.abort())
