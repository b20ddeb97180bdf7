"""The run side of the app: starts runs, holds the debugger, the clock and the session's
debugging settings (breakpoints, guard overrides, break-on-failure).

The engine decides every semantic question; this module only translates the UI's
verbs into debugger calls, and builds the resume state for "re-run what is stale".

Threads: the run executes in a Textual thread worker with its own event loop, so an
engine that never yields (instant replies, a 1,000-item map) cannot delay key
handling. The debugger and clock belong to that loop: every command from the UI is
handed over with `call_soon_threadsafe` (`_in_engine`), never called directly.
"""

from __future__ import annotations

import asyncio
import copy
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from tftui.engine.clock import Clock
from tftui.engine.events import Event
from tftui.engine.run import run_flow  # imported up front: a first import inside the run thread holds the GIL
from tftui.engine.state import PhaseState, RunState
from tftui.flow.model import Flow

GIL_SWITCH_INTERVAL_S = 0.0005


def make_debugger(**kwargs: Any) -> Any | None:
    """The engine's Debugger, or None while it is not available (plain runs still work)."""
    try:
        from tftui.engine.debugger import Debugger
    except ImportError:
        return None
    return Debugger(**kwargs)


class RunController:
    def __init__(self, *, runner: Any, clock: Clock | None, args: dict[str, Any], flow_path: str | None) -> None:
        self.runner = runner
        self.clock = clock or Clock()
        self.args = args
        self.flow_path = flow_path
        self.breakpoints: set[str] = set()
        self.guard_overrides: dict[str, str] = {}
        self.break_on_failure = False  # `f` toggles: stop on a failed attempt/phase or a block
        self.data_breakpoints: list[str] = []  # condition-language expressions (`B`), in order added
        self.debugger: Any | None = None
        self.running = False  # set by the UI when it starts a run, cleared when the worker ended
        self.approver: Callable[..., Awaitable[Any]] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the engine thread's loop during a run
        self.task: asyncio.Task[Any] | None = None

    # -- debugger wiring -------------------------------------------------------------
    def _new_debugger(self, *, step_first: bool) -> Any | None:
        dbg = make_debugger(start_paused=step_first, approver=self.approver)
        if dbg is None:
            return None
        for pid in self.breakpoints:
            _call(dbg, "set_breakpoint", pid)
        for pid, expr in self.guard_overrides.items():
            _call(dbg, "set_guard_override", pid, expr)
        for expr in self.data_breakpoints:
            _call(dbg, "add_data_breakpoint", expr)
        _set(dbg, "break_on_failure", self.break_on_failure)
        _set(dbg, "break_on_block", self.break_on_failure)
        return dbg

    async def run(
        self,
        flow: Flow,
        on_event: Callable[[Event], None],
        *,
        step_first: bool = False,
        resume_state: RunState | None = None,
        journal: Any = None,
        run_id: str | None = None,
    ) -> Any:
        self.debugger = self._new_debugger(step_first=step_first)
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        # While the engine thread is busy, the UI thread waits for the GIL after every
        # system call; a short switch interval bounds each wait (default 5 ms).
        previous_interval = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        try:
            return await run_flow(
                flow,
                args=self.args,
                runner=self.runner,
                debugger=self.debugger,
                clock=self.clock,
                on_event=on_event,
                resume_state=resume_state,
                flow_path=self.flow_path,
                journal=journal,
                run_id=run_id,
            )
        finally:
            sys.setswitchinterval(previous_interval)
            self.loop = None
            self.task = None

    def _in_engine(self, name: str, *args: Any, target: Any = None) -> bool:
        """Call `target.name(*args)` on the engine's loop (thread-safe). False if unavailable."""
        obj = self.debugger if target is None else target
        method = getattr(obj, name, None) if obj is not None else None
        if not callable(method):
            return False
        return self._post(lambda: method(*args))

    def _post(self, fn: Callable[[], Any]) -> bool:
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
        return self._in_engine("step")

    def resume(self) -> bool:
        return self._in_engine("continue_")

    @property
    def paused(self) -> bool:
        return getattr(self.debugger, "paused", None) is not None

    def pause(self) -> bool:
        return self._in_engine("pause")

    def toggle_breakpoint(self, pid: str) -> bool:
        """Returns True when the phase now has a breakpoint."""
        if pid in self.breakpoints:
            self.breakpoints.discard(pid)
            self._in_engine("clear_breakpoint", pid)
            return False
        self.breakpoints.add(pid)
        self._in_engine("set_breakpoint", pid)
        return True

    def set_break_on_failure(self, on: bool) -> None:
        self.break_on_failure = on
        # plain attribute writes: atomic under the GIL, read by the engine at its next check
        _set(self.debugger, "break_on_failure", on)
        _set(self.debugger, "break_on_block", on)

    def set_guard(self, pid: str, expr: str | None) -> None:
        if expr is None:
            self.guard_overrides.pop(pid, None)
            self._in_engine("clear_guard_override", pid)
        else:
            self.guard_overrides[pid] = expr
            self._in_engine("set_guard_override", pid, expr)

    def add_data_breakpoint(self, expr: str) -> str | None:
        """Add a data breakpoint (this run and later ones); the syntax error message if it does not parse."""
        from tftui.lang.condition import syntax_error

        error = syntax_error(expr)
        if error is not None:
            return f"{error.message} (at column {error.position + 1})"
        if expr not in self.data_breakpoints:
            self.data_breakpoints.append(expr)
            self._in_engine("add_data_breakpoint", expr)
        return None

    def remove_data_breakpoint(self, expr: str) -> None:
        if expr in self.data_breakpoints:
            self.data_breakpoints.remove(expr)
            self._in_engine("remove_data_breakpoint", expr)

    def fast_forward(self) -> int:
        """Skip the backoff wait in progress and every later one in this run. Returns waits cut short."""
        sleeping = self.clock.sleeping
        dbg = self.debugger
        if dbg is not None and hasattr(dbg, "fast_forward"):
            self._post(lambda: dbg.fast_forward(always=True))
        else:
            self._post(lambda: self.clock.fast_forward(skip_all=True))
        return sleeping

    def abort(self) -> None:
        self._in_engine("abort")


def resume_state_without(state: RunState, phase_ids: set[str]) -> RunState:
    """A copy of `state` in which `phase_ids` are pending again (for a partial re-run).

    Finished phases outside `phase_ids` keep their outputs, so the engine does not
    call their agents again (zero tokens for unchanged phases).
    """
    resume = copy.deepcopy(state)
    for pid in phase_ids:
        old = resume.phases.get(pid)
        resume.phases[pid] = PhaseState(id=pid, type=old.type if old else "agent")
    resume.status = "running"
    resume.paused = None
    return resume


def _call(obj: Any, name: str, *args: Any) -> bool:
    method = getattr(obj, name, None) if obj is not None else None
    if not callable(method):
        return False
    method(*args)
    return True


def _set(obj: Any, name: str, value: Any) -> None:
    if obj is not None and hasattr(obj, name):
        setattr(obj, name, value)
