"""The run: layer-synchronous scheduling over the DAG (docs/scheduling.md), admission, status, final output.

`run_flow(flow, *, args=None, runner, debugger=None, journal=None, clock=None,
on_event=None, run_id=None, resume_state=None, flow_path=None, keep_events=False,
approver=None)`.

Additions to the basic signature (all keyword, all optional): `on_event`, `run_id`,
`resume_state`, `flow_path`, `keep_events` (RunResult.events gets every event) and
`approver` (an async callable used by approval phases when the debugger has none;
`tftui.engine.phases.approval.approve_all` is the headless `--approve`) and `cwd_bridge`
(allow `cwd: "{args.X}"`, see `tftui.engine.cwd_bridge`; off, such a phase fails before it runs).

- Every state change is emitted as an event (seq/ts stamped here), folded into
  `run.state` at once, appended to `journal` (an object with `append(event)` and
  `sync()`; the journal group-commits its fsyncs on its own, and the run calls `sync()`
  only where durability cannot wait: before and after a phase with side effects, at
  pauses and at the end, docs/scheduling.md §4.4) and passed to `on_event`.
- `resume_state`: a RunState folded from a journal. The run continues it in place:
  done/failed/skipped phases are not re-run; a phase that was running is re-run with a
  warning, except an `idempotent: false` or script phase, which is failed with an explanation
  (`tftui.engine.resume.never_repeated`).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tftui.agent_types import AgentRunner, reports_cost, reports_usage, stays_in_process
from tftui.engine import cwd_bridge, outcome
from tftui.engine import events as ev
from tftui.engine.admission import ADMITTED, admit, evaluate_guard, guard_skip_reason, has_guard, satisfied
from tftui.engine.clock import Clock
from tftui.engine.collector import holding_full_collections
from tftui.engine.context import build_context, step_view
from tftui.engine.outcome import BUDGET_TRUNCATED
from tftui.engine.phases import HANDLERS
from tftui.engine.phases.base import PhaseOutcome, PhaseRun
from tftui.engine.resume import never_repeated
from tftui.engine.seams import Approver, RunDebugger, RunJournal
from tftui.engine.state import STATUS, Metering, PhaseState, PhaseStatus, RunState, apply
from tftui.engine.subdebug import SubDebugger
from tftui.engine.subflow_def import StackEntry
from tftui.flow.graph import dag_of
from tftui.flow.model import Flow, PhaseBase
from tftui.lang.interpolate import Context, StepView
from tftui.lang.values import MISSING

# Called with every event after it is folded (the TUI's and `tftui run`'s live view).
EventSink = Callable[[ev.Event], object]


def has_side_effects(phase: PhaseBase) -> bool:
    """Phases whose start and end must be durable before anything else happens (resume safety,
    docs/scheduling.md §4.4): `idempotent: false`, scripts, and approvals (a person's decision)."""
    return phase.idempotent is False or phase.type in ("script", "approval")


@dataclass(repr=False)
class RunResult:
    status: str  # completed | failed | blocked | paused
    phases: dict[str, PhaseState]
    final_output: str
    usage: dict[str, Any]
    run_id: str
    events: list[ev.Event] | None = None
    state: RunState | None = None

    def __repr__(self) -> str:
        # Kept short on purpose: asyncio.run() reprs the main task's result when it restores
        # the SIGINT handler (CPython 3.11), and a full repr of 1,000 phases costs a second.
        return f"RunResult(status={self.status!r}, run_id={self.run_id!r}, phases={len(self.phases)})"


class Run:
    """One run of a flow. Phase handlers see it as a `tftui.engine.phases.base.PhaseHost`."""

    def __init__(
        self,
        flow: Flow,
        *,
        args: dict[str, Any] | None,
        runner: AgentRunner,
        debugger: RunDebugger | None = None,
        journal: RunJournal | None = None,
        clock: Clock | None = None,
        on_event: EventSink | None = None,
        run_id: str | None = None,
        resume_state: RunState | None = None,
        flow_path: str | None = None,
        keep_events: bool = False,
        approver: Approver | None = None,
        cwd_bridge: bool = False,
    ) -> None:
        self.flow = flow
        self.runner = runner
        self.metering = Metering(  # docs/scheduling.md §6: what the runner's usage records can be trusted for
            usage=reports_usage(runner),
            cost=reports_cost(runner),
        )
        self.debugger = debugger
        self.journal = journal
        # Written to the OS before each agent call that leaves the process, so whatever it
        # could see of the run is in the journal if the process is killed (docs/scheduling.md §4.4);
        # a journal without `flush` writes each event as it comes.
        self._flush_before_call: Callable[[], None] | None = (
            None if journal is None or stays_in_process(runner) else getattr(journal, "flush", None)
        )
        self.clock = clock or Clock()
        self.on_event = on_event
        self.flow_path = flow_path
        self._approver = approver  # used when the debugger has none (headless `--approve`)
        # `cwd: "{args.X}"` runs only with this opt-in (tftui.engine.cwd_bridge); relative to `root`
        self.cwd_bridge = cwd_bridge
        self.root = os.path.dirname(os.path.abspath(flow_path)) if flow_path else os.getcwd()
        # sub-flows being run above this one, incl. the top flow (recursion/nesting guard;
        # empty for a top-level run)
        self.flow_stack: list[StackEntry] = []
        self.map_item_limit: int | None = None  # generated sub-flows: map items beyond it are dropped
        # a generated flow, or a flow reached from one: the generated-flow rules hold (docs/trust.md §2)
        self.sandboxed = False
        self.phases: dict[str, PhaseBase] = {p.id: p for p in flow.phases}
        self.order = list(self.phases)
        self._optional = frozenset(p.id for p in flow.phases if p.optional)  # a failure there satisfies
        # the flow's graph as the debugger's reload built it (flow/graph.py keeps the last few; read only)
        self.dag = dag = dag_of(flow)
        self.layers: list[list[str]] = dag.layers
        self.edges: dict[str, list[str]] = dag.deps
        self.dependents: dict[str, list[str]] = dag.dependents
        self.args: dict[str, Any] = {**flow.arg_defaults(), **(args or {})}
        self.state = resume_state if resume_state is not None else RunState()
        self.run_id = run_id or (resume_state.run_id if resume_state and resume_state.run_id else uuid.uuid4().hex[:12])
        self.views: dict[str, StepView] = {}
        self.block: tuple[str, str | None] | None = None  # (phase id, reason)
        self.budget_reason: str | None = None
        self.aborted = False
        self.active: dict[str, PhaseRun] = {}
        self.events: list[ev.Event] | None = [] if keep_events else None
        self._seq = self.state.last_seq
        # Seconds each top-level phase has waited at debugger pause points (see debug_point).
        self.paused_s: dict[str, float] = {}
        self.width = 1 if flow.budget is not None else flow.flow_concurrency

    # ---- what phase handlers use besides the fields above (PhaseHost) ----------------------
    @property
    def debugging(self) -> bool:
        return self.debugger is not None

    @property
    def approver(self) -> Approver | None:
        found = self.debugger.approver if self.debugger is not None else None
        return found if found is not None else self._approver

    def child_debugger(
        self, rename_phase: Callable[[str], str], rename_node: Callable[[str], str], *, observe_all: bool
    ) -> RunDebugger | None:
        if self.debugger is None:
            return None
        return SubDebugger(self, self.debugger, rename_phase, rename_node, observe_all=observe_all)

    # ---- events -------------------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        self._seq = event.seq = self._seq + 1
        event.ts = self.clock.time()
        apply(self.state, event)
        if self.events is not None:
            self.events.append(event)
        if self.journal is not None:
            self.journal.append(event)
            if self._flush_before_call is not None and type(event) is ev.AttemptStarted:
                self._flush_before_call()  # the call starts next (tftui.engine.calls)
        if self.debugger is not None:
            self.debugger.observe(event)
        if self.on_event is not None:
            self.on_event(event)

    def phase_warning(self, phase_id: str, message: str) -> None:
        pr = self.active.get(phase_id)
        if pr is None or pr.warn(message):
            self.emit(ev.PhaseWarning(phase_id=phase_id, message=message))

    async def debug_point(self, point: str, phase_id: str | None, **info: Any) -> None:
        if self.debugger is not None:
            before = self.clock.monotonic()
            await self.debugger.checkpoint(self, point, phase_id, **info)
            if phase_id:  # time a person spent looking at a pause is not the phase's running time
                waited = self.clock.monotonic() - before
                top = phase_id.split("/")[0]  # a nested child's pause holds its parent too
                self.paused_s[top] = self.paused_s.get(top, 0.0) + waited

    def _running_ms(self, phase_id: str, pr: PhaseRun) -> float:
        """Wall time since the phase started, minus the time it sat at its own debugger pauses."""
        paused = self.paused_s.get(phase_id, 0.0) - pr.paused_before
        return max(0.0, self.clock.monotonic() - pr.started - paused) * 1000

    def abort(self) -> None:
        """User cancel: stop before the next phase/attempt; the run ends `paused`."""
        self.aborted = True

    def sync(self) -> None:
        """Make the journal durable now (fsync; a no-op when nothing was written since the last
        one). Every event already reaches the OS before the loop can next wait (the journal's
        batches), so a killed process loses nothing anyone could have seen, and the journal
        fsyncs at least every 50 ms on its own; this is for the
        points that cannot wait (docs/scheduling.md §4.4): around side effects, pauses, the end."""
        if self.journal is None:
            return
        self.journal.sync()

    # ---- budget -------------------------------------------------------------------------
    def over_budget(self) -> str | None:
        """docs/scheduling.md §6 reason when the tally is over the flow budget (strict >), else None."""
        return outcome.over_budget(self.flow.budget, self.state.usage)

    def check_budget(self) -> None:
        if self.budget_reason is None and self.flow.budget is not None:  # no budget: never over it
            self.budget_reason = self.over_budget()

    # ---- admission (the rule: tftui.engine.admission) -----------------------------------
    def _satisfied(self, dep: str) -> bool:
        st = self.state.phases.get(dep)
        return st is not None and satisfied(st.status, dep in self._optional)

    def admission(self, phase: PhaseBase) -> str | None:
        """docs/scheduling.md §2.1 checks 1-3' (the guard is checked separately); the skip reason or None."""
        decision = admit(
            self.edges[phase.id], phase.join, self._satisfied, block=self.block, budget_reason=self.budget_reason
        )
        return None if decision is ADMITTED else decision.reason

    def guard(self, phase: PhaseBase) -> tuple[bool, str | None, str | None, Context | None]:
        """Evaluate `when` (or its debugger override): (run?, expression, fail-open error, the
        context it was evaluated on, None when there was nothing to evaluate)."""
        expr = phase.when
        overridden = False
        if self.debugger is not None:
            override = self.debugger.guard_override(phase.id)
            if override is not None:
                expr, overridden = override, True
        if expr is None:  # no guard: the phase runs, nothing to record
            return True, None, None, None
        if not has_guard(expr):  # an empty guard: nothing to evaluate, the phase runs (recorded)
            self.emit(ev.guard_evaluated(phase.id, expr, True, None, overridden))
            return True, expr, None, None
        ctx = build_context(self, phase)
        guard = evaluate_guard(expr, ctx)
        self.emit(ev.guard_evaluated(phase.id, expr, guard.value is True, guard.error, overridden))
        return guard.runs, expr, guard.error, ctx

    # ---- phase execution ----------------------------------------------------------------
    async def execute_phase(self, phase: PhaseBase, *, depth: int = 0, round: int = 0, admit: bool = True) -> None:
        pid = phase.id
        if admit:
            reason = self.admission(phase)
            if reason is not None:
                self.skip(pid, reason)
                return
            if self.width > 1 and depth == 0:
                # Let the layer's other workers admit their phases before this one can finish:
                # taskflow starts a layer's phases together, so a gate blocking in this layer
                # never skips a sibling that was already started (docs/scheduling.md §3).
                await asyncio.sleep(0)
        # Pause before the guard, so a guard edited while paused here applies to this phase.
        if self.debugger is not None:  # (no coroutine and keyword dict per phase without one)
            await self.debug_point("before-phase", pid, depth=depth, round=round)
        if self.aborted:
            return
        run_it, expr, guard_error, guard_ctx = self.guard(phase)
        if not run_it:
            self.skip(pid, guard_skip_reason(expr))
            return
        pr = PhaseRun(phase, depth, round)  # (positional: a keyword call of a class packs a dict)
        pr.started = self.clock.monotonic()
        pr.paused_before = self.paused_s.get(pid, 0.0)
        pr.context = guard_ctx  # nothing is awaited before the handler runs: its context is this one
        self.active[pid] = pr
        self.emit(ev.phase_started(pid, phase.type, depth, round))
        if self.journal is not None and has_side_effects(phase):
            self.sync()  # a crash from here on must show this phase as in flight
        if guard_error is not None:
            self.phase_warning(pid, f"when: could not be evaluated ({guard_error}) — phase ran (fail-open)")
            self.emit(ev.FallbackUsed(phase_id=pid, reason=f"when parse error: {guard_error}"))
        bridged, refusal = (None, None) if phase.cwd is None else cwd_bridge.resolve(
            pid, phase.cwd, self.args, enabled=self.cwd_bridge, root=self.root
        )
        if refusal is not None:  # fails before any call or spawn, pointing at the field in the file
            index = self.order.index(pid) if pid in self.order else -1
            location = cwd_bridge.where(self.flow_path, index) if index >= 0 else ""
            outcome = PhaseOutcome(status="failed", output=None, error=location + refusal)
        else:
            if bridged is not None:
                pr.phase = phase.model_copy(update={"cwd": bridged})  # handlers see a literal folder
            outcome = await HANDLERS[phase.type](self, pr)
        self.finish(pr, outcome)
        if outcome.status == "failed" and self.debugger is not None:
            # break-on-failure stops on the failed phase itself: waiting for the next pause point
            # never stopped when the failure skips everything after it (the run just ended)
            await self.debug_point("after-failure", pid, depth=depth, round=round)
        if self.journal is not None and has_side_effects(phase):
            self.sync()  # a finished side effect must never be repeated on resume

    def skip(self, pid: str, reason: str) -> None:
        self.views.pop(pid, None)
        self.emit(ev.phase_skipped(pid, reason))

    def finish(self, pr: PhaseRun, outcome: PhaseOutcome) -> None:
        phase = pr.phase
        extra = dict(outcome.extra)
        if pr.timed_out:
            extra["timedOut"] = True
        if outcome.budget_truncated:
            extra["budgetTruncated"] = True
        if phase.idempotent is False:
            extra["sideEffect"] = True
        if phase.optional:
            extra["optional"] = True
        if phase.model:
            extra.setdefault("model", phase.model)
        json_value = outcome.json if outcome.status == "done" else MISSING
        usage = pr.usage
        self.emit(
            ev.phase_finished(
                phase.id,
                outcome.status,
                outcome.output,
                json_value,
                outcome.error,
                list(pr.warnings),
                dict(usage) if usage["turns"] or usage["untracked"] else None,  # None: no call answered or reported usage
                outcome.attempts,
                outcome.gate,
                self._running_ms(phase.id, pr),
                extra,
            )
        )
        self.active.pop(phase.id, None)
        status = STATUS[outcome.status]
        self.views[phase.id] = step_view(status, outcome.output, json_value, outcome.error)
        if outcome.block_reason is not None and self.block is None and pr.depth == 0:
            self.block = (phase.id, outcome.block_reason or None)
        if outcome.budget_truncated and self.budget_reason is None:
            self.budget_reason = self.over_budget() or BUDGET_TRUNCATED
        self.check_budget()

    # ---- the whole run ------------------------------------------------------------------
    def _restore(self) -> None:
        outcome.restore(self)

    def recompute_block(self) -> None:
        """The first finished gate/approval whose verdict is block (after debugger re-runs)."""
        self.block = outcome.first_block(self)

    def _interrupted(self) -> list[str]:
        return [pid for pid in self.order if (st := self.state.phases.get(pid)) and st.status == PhaseStatus.RUNNING]

    async def _layers(self) -> None:
        interrupted = set(self._interrupted())
        for layer in self.layers:
            if self.aborted:
                return
            todo: list[PhaseBase] = []
            for pid in layer:
                st = self.state.phases.get(pid)
                if st is not None and st.status.terminal:
                    continue  # restored from a journal
                phase = self.phases[pid]
                if pid in interrupted:
                    if never_repeated(phase):
                        self._fail_interrupted(phase)
                        continue
                todo.append(phase)
            if self.width == 1 or len(todo) <= 1:
                for phase in todo:
                    if self.aborted:
                        return
                    await self._execute_top(phase, phase.id in interrupted)
            else:
                await self._run_parallel(todo, interrupted)

    async def _execute_top(self, phase: PhaseBase, interrupted: bool) -> None:
        # A phase that was running when the run stopped had been admitted then: a block or
        # budget stop that came later in its layer must not skip it now (docs/scheduling.md §3: phases
        # already running finish normally).
        await self.execute_phase(phase, admit=not interrupted)
        if interrupted and self.state.phases[phase.id].status != PhaseStatus.SKIPPED:
            self.emit(
                ev.PhaseWarning(
                    phase_id=phase.id,
                    message="phase was running when the previous run stopped; it was run again on resume",
                )
            )

    async def _run_parallel(self, todo: list[PhaseBase], interrupted: set[str]) -> None:
        # `width` workers take phases in layer order: phases start in order, at most
        # `width` run at once, and there is no task or semaphore per phase.
        queue = iter(todo)

        async def worker() -> None:
            for phase in queue:
                if self.aborted:
                    return
                await self._execute_top(phase, phase.id in interrupted)

        workers = [asyncio.ensure_future(worker()) for _ in range(min(self.width, len(todo)))]
        try:
            results = await asyncio.gather(*workers, return_exceptions=True)
        except BaseException:
            for task in workers:
                task.cancel()
            raise
        for item in results:
            if isinstance(item, BaseException):
                raise item

    def _fail_interrupted(self, phase: PhaseBase) -> None:
        outcome.fail_interrupted(self, phase)

    def run_status(self) -> str:
        return outcome.run_status(self)

    def final_output(self) -> str:
        return outcome.final_output(self)

    async def run(self) -> RunResult:
        resumed = bool(self.state.phases)
        self.emit(
            ev.RunStarted(
                run_id=self.run_id,
                flow_name=self.flow.name,
                flow_path=self.flow_path,
                args=self.args,
                phase_ids=list(self.order),
                phase_types={p.id: p.type for p in self.flow.phases},
                resumed=resumed,
                reports_usage=self.metering.usage,
                reports_cost=self.metering.cost,
            )
        )
        if self.debugger is not None:
            self.debugger.attach(self)
        refusal = outcome.refusal(self.flow, self.runner)
        if refusal is not None:
            return self._end("failed", refusal, error=refusal)
        if resumed:
            self._restore()
        try:
            await self._layers()
        except asyncio.CancelledError:
            # Ctrl+C / SIGTERM: record the run as paused (docs/scheduling.md §4) so a journal shows why it
            # stopped; phases that were running stay `running`, so a resume knows they were in flight.
            self.aborted = True
            self.emit(ev.RunFinished(status="paused", final_output=self.final_output(), usage=dict(self.state.usage)))
            self.sync()
            raise
        except Exception as exc:  # docs/scheduling.md §4: a crash fails running phases and the run
            message = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
            for pid in list(self.active):
                pr = self.active[pid]
                self.finish(pr, PhaseOutcome(status="failed", output=None, error=f"crashed: {message}"))
            return self._end("failed", f"Taskflow '{self.flow.name}' crashed: {message}", error=message)
        return self._end(self.run_status(), self.final_output())

    def _end(self, status: str, final_output: str, error: str | None = None) -> RunResult:
        self.emit(
            ev.RunFinished(status=status, final_output=final_output, usage=dict(self.state.usage), error=error)
        )
        self.sync()
        if self.debugger is not None:
            self.debugger.detach(self)
        return RunResult(
            status=status,
            phases=self.state.phases,
            final_output=final_output,
            usage=dict(self.state.usage),
            run_id=self.run_id,
            events=self.events,
            state=self.state,
        )


async def run_flow(
    flow: Flow,
    *,
    args: dict[str, Any] | None = None,
    runner: AgentRunner,
    debugger: RunDebugger | None = None,
    journal: RunJournal | None = None,
    clock: Clock | None = None,
    on_event: EventSink | None = None,
    run_id: str | None = None,
    resume_state: RunState | None = None,
    flow_path: str | None = None,
    keep_events: bool = False,
    approver: Approver | None = None,
    cwd_bridge: bool = False,
) -> RunResult:
    # No full collection walks the whole heap while the run goes (docs/scheduling.md §8.2).
    with holding_full_collections():
        run = Run(
            flow,
            args=args,
            runner=runner,
            debugger=debugger,
            journal=journal,
            clock=clock,
            on_event=on_event,
            run_id=run_id,
            resume_state=resume_state,
            flow_path=flow_path,
            keep_events=keep_events,
            approver=approver,
            cwd_bridge=cwd_bridge,
        )
        return await run.run()
