"""flow and expand phases (P2, docs/language.md §6.9): run a sub-flow as one phase.

- `use`: a saved flow by name (`tftui.engine.subflow_def.saved_flow_dirs`); a flow
  already on the sub-flow stack is refused, naming the cycle (`a -> b -> a`).
- `def`: an inline definition or a runtime-generated one (a string interpolated, then
  read leniently). Definitions are hardened (docs/language.md §2.5); a bad one does not fail the
  phase: it is `done` with empty output and `defError` set, and the run goes on.
- `with` values are interpolated with exact-placeholder typing (docs/language.md §3.8) into the child's args.

Nested mode (`flow`, `expand` default): the child's model calls run through a runner that
prefixes node paths with `<id>/`, and are re-emitted as attempt events of this phase
(journals, traces and replies files see `research/summarize#item-2`; usage is this
phase's). The child's other events are journaled wrapped in `SubflowEvent`s (the fold
keeps the child state in `PhaseState.sub`).

Graft mode (`expand` with `expandMode: "graft"`): the child's phases become top-level phase
states `<expandId>-<childId>`: every child event is re-emitted with renamed phase ids
and node paths (`x-a`, `x-a#item-0`), so the tree, journal and trace show them as
phases. Their outputs are visible to later phases as `{steps.<expandId>-<childId>…}`.
The expand phase's own output is the sub-run's final output; its usage stays with the
grafted states (counted once).

In both modes the child pauses at the parent's debugger (`tftui.engine.subdebug`), and a
parent abort stops the child at its next step.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tftui.agent_types import AgentRequest, AgentResult, AgentRunner, reports_cost, reports_usage
from tftui.engine import events as ev
from tftui.engine.context import build_context, step_view
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun
from tftui.engine.state import STATUS
from tftui.engine.subflow_def import (
    MAX_DEF_MAP_ITEMS,
    MAX_NESTING,
    StackEntry,
    child_budget,
    cycle_text,
    definition_of,
    find_saved_flow,
    hardening_error,
    max_nodes_of,
    nesting_depth,
    sandbox_error,
    saved_flow_dirs,
    saved_name_error,
)
from tftui.flow.model import ExpandPhase, Flow, FlowPhase, saved_flow_use
from tftui.lang.interpolate import interpolate, interpolate_value
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING
from tftui.paths import read_regular_file

if TYPE_CHECKING:
    from tftui.engine.run import Run

_CALL_EVENTS = (ev.AttemptStarted, ev.AgentReturned, ev.AttemptFailed, ev.BackoffStarted, ev.BackoffEnded,
               ev.JudgeCalled)


class PrefixRunner:
    """Delegates to the parent's runner with node paths prefixed (`<id>/` nested, `<id>-` graft)."""

    def __init__(self, runner: AgentRunner, prefix: str) -> None:
        self.runner = runner
        self.prefix = prefix
        self.reports_usage = reports_usage(runner)
        self.reports_cost = reports_cost(runner)

    async def run(self, request: AgentRequest) -> AgentResult:
        return await self.runner.run(dataclasses.replace(request, node_path=self.prefix + request.node_path))


def _failed(message: str) -> PhaseOutcome:
    """The sub-flow could not start: no output (the error is the phase's error, not its output)."""
    return PhaseOutcome(status="failed", output=None, error=message)


def _def_error(message: str) -> PhaseOutcome:
    return PhaseOutcome(status="done", output="", extra={"defError": message})


def _stack(run: PhaseHost) -> list[StackEntry]:
    """The sub-flow stack including the top-level flow (the root run starts it)."""
    if run.flow_stack:
        return run.flow_stack
    key = str(Path(run.flow_path).resolve()) if run.flow_path else f"flow:{run.flow.name}"
    return [StackEntry(key, run.flow.name)]


def _load_saved(path: Path) -> Flow | None:
    """A saved flow as `use` reads it (without its args: only its phases are looked at)."""
    from tftui.flow.load import MAX_FLOW_BYTES, load_flow_text

    raw, _ = read_regular_file(path, MAX_FLOW_BYTES)  # a regular file, bounded (docs/inputs.md §2)
    return None if raw is None else load_flow_text(raw, str(path), check=False).model


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    from tftui.flow.load import load_flow, load_flow_text

    phase = pr.phase
    if not isinstance(phase, (FlowPhase, ExpandPhase)):
        raise TypeError(f"phase '{phase.id}': a {phase.type} phase was handed to the sub-flow handler")
    ctx = build_context(run, phase)
    args = {key: interpolate_value(value, ctx) for key, value in (phase.with_ or {}).items()}
    stack = _stack(run)
    use = saved_flow_use(phase)
    if use:
        if len(stack) > MAX_NESTING:
            return _failed(f"Phase '{phase.id}': sub-flow nesting deeper than {MAX_NESTING}")
        problem = saved_name_error(use)
        if problem is not None:
            return _failed(f"Phase '{phase.id}': {problem}")
        path = find_saved_flow(use, run.flow_path)
        if path is None:
            places = ", ".join(str(d) for d in saved_flow_dirs(run.flow_path))
            return _failed(f"Phase '{phase.id}': saved flow '{use}' not found (looked in {places})")
        key = str(path.resolve())
        cycle = cycle_text(stack, key, use)
        if cycle is not None:
            return _failed(f"Phase '{phase.id}': recursive use of flow '{use}' refused: {cycle}")
        loaded = load_flow(path, args=args)  # unreadable, not regular or too big: an error, not a crash
        if loaded.flow is None:
            first = next((d.message for d in loaded.errors), "invalid flow")
            return _failed(f"Phase '{phase.id}': saved flow '{use}' is invalid: {first}")
        child_flow = loaded.flow
        if run.sandboxed:  # reached from a generated flow: the same rules, transitively (docs/trust.md §2)
            refused = sandbox_error(child_flow, path, [*(e.label for e in stack), use], _load_saved)
            if refused is not None:
                chain, problem = refused
                return _failed(
                    f"Phase '{phase.id}': saved flow '{use}' refused inside a generated flow"
                    f" ({' -> '.join(chain)}): {problem}"
                )
        child_flow.budget = child_budget(child_flow.budget, run.flow.budget, inline=False)
        return await _run_child(run, pr, child_flow, str(path), args, [*stack, StackEntry(key, use)], False)
    if len(stack) > MAX_NESTING:
        return _def_error(f"sub-flow nesting deeper than {MAX_NESTING}")
    raw = phase.def_
    if isinstance(raw, str):
        raw = interpolate(raw, ctx).text
    definition, problem = definition_of(raw, phase.id)
    if definition is None:
        return _def_error(problem or "invalid flow definition")
    if not isinstance(phase.def_, str) and not definition.get("phases"):
        # an inline def with no phases has nothing to run: done, empty, and no defError
        # (docs/language.md §6.9; a generated empty def is still a defError)
        return PhaseOutcome(status="done", output="")
    levels = len(stack) - 1 + nesting_depth(definition)  # this child's level + the inline levels inside it
    if levels > MAX_NESTING:
        return _def_error(f"def nests sub-flows {levels} levels deep (at most {MAX_NESTING})")
    loaded = load_flow_text(json.dumps(definition, ensure_ascii=False), None, args=args)
    if loaded.flow is None:
        return _def_error(next((d.message for d in loaded.errors), "invalid flow definition"))
    limit = max_nodes_of(phase) if phase.type == "expand" else None
    problem = hardening_error(loaded.flow, limit) if limit is not None else hardening_error(loaded.flow)
    if problem is not None:
        return _def_error(problem)
    child_flow = loaded.flow
    child_flow.budget = child_budget(child_flow.budget, run.flow.budget, inline=True)
    entry = StackEntry(f"def:{'/'.join(e.label for e in stack)}/{phase.id}", f"{phase.id} (def)")
    return await _run_child(run, pr, child_flow, run.flow_path, args, [*stack, entry], True)


async def _run_child(
    run: PhaseHost, pr: PhaseRun, flow: Flow, path: str | None, args: dict[str, Any], stack: list[StackEntry],
    generated: bool,
) -> PhaseOutcome:
    from tftui.engine.run import Run as ChildRun

    phase = pr.phase
    graft = phase.type == "expand" and getattr(phase, "expand_mode", "nested") == "graft"
    forward = _Grafter(run, pr) if graft else _Nester(run, pr)
    debugger = run.child_debugger(forward.rename_phase, forward.rename_node, observe_all=not graft)
    child = ChildRun(
        flow,
        args=args,
        runner=PrefixRunner(run.runner, forward.prefix),
        clock=run.clock,
        on_event=forward,
        flow_path=path,
        debugger=debugger,
        approver=run.approver,
    )
    child.flow_stack = stack
    if generated or run.sandboxed:
        child.sandboxed = True
        child.map_item_limit = MAX_DEF_MAP_ITEMS
    forward.child = child
    result = await child.run()
    sub = {"flow": flow.name, "status": result.status, "phases": len(flow.phases)}
    if graft:
        sub["mode"] = "graft"
        sub["grafted"] = [forward.rename_phase(p.id) for p in flow.phases]
    if result.status == "completed":
        json_value = lenient_parse(result.final_output) if phase.output == "json" else MISSING
        return PhaseOutcome(status="done", output=result.final_output, json=json_value, extra={"subflow": sub})
    # why: the first failed child phase's error (a failed phase keeps no error text as output)
    reason = next((st.error for st in result.phases.values() if st.status == "failed" and st.error), None)
    text = reason or result.final_output
    first_line = text.splitlines()[0] if text else ""
    error = f"sub-flow '{flow.name}' {result.status}: {first_line}".rstrip(": ")
    return PhaseOutcome(status="failed", output=result.final_output, error=error, extra={"subflow": sub})


class _ChildEvents:
    """Base of a child run's on_event: child ids are renamed `<parent><separator><child>`."""

    separator = "/"

    def __init__(self, run: PhaseHost, pr: PhaseRun) -> None:
        self.run = run
        self.pr = pr
        self.prefix = f"{pr.phase.id}{self.separator}"
        self.child: Run | None = None

    def __call__(self, event: ev.Event) -> None:
        raise NotImplementedError  # _Nester and _Grafter forward the child's events

    def rename_phase(self, phase_id: str) -> str:
        return self.prefix + phase_id

    def rename_node(self, node_path: str) -> str:
        return self.prefix + node_path


class _Nester(_ChildEvents):
    """on_event of a nested child: calls become this phase's attempts, the rest is wrapped."""

    def __call__(self, event: ev.Event) -> None:
        run, pr = self.run, self.pr
        if run.aborted and self.child is not None:
            self.child.abort()  # a user abort of the parent run stops the child at its next step
        if isinstance(event, _CALL_EVENTS):
            node = event.node_path or event.phase_id
            run.emit(dataclasses.replace(event, phase_id=pr.phase.id, node_path=self.prefix + node))
            if isinstance(event, ev.AgentReturned):
                pr.add_usage(event.usage, answered=event.error is None, metering=run.metering)
                pr.calls += 1
            return
        run.emit(ev.SubflowEvent(phase_id=pr.phase.id, event=ev.event_to_json(event)))


class _Grafter(_ChildEvents):
    """on_event of a grafted child: every phase event is re-emitted as a top-level `<id>-<child>` phase."""

    separator = "-"

    def __call__(self, event: ev.Event) -> None:
        run = self.run
        if run.aborted and self.child is not None:
            self.child.abort()
        if isinstance(event, ev.RunStarted):  # say where the grafted phases hang (before they appear)
            run.emit(ev.PhasesGrafted(phase_id=self.pr.phase.id, phase_ids=[self.rename_phase(p) for p in event.phase_ids]))
            return
        if isinstance(event, (ev.RunFinished, ev.Paused, ev.Resumed)):
            return  # the expand phase's own events frame the grafted run
        changes: dict[str, Any] = {}
        phase_id = getattr(event, "phase_id", None)
        if isinstance(phase_id, str):
            changes["phase_id"] = self.prefix + phase_id
        if isinstance(event, _CALL_EVENTS):
            changes["node_path"] = self.prefix + (event.node_path or event.phase_id)
        copy = dataclasses.replace(event, **changes) if changes else event
        run.emit(copy)
        if isinstance(copy, ev.PhaseFinished):
            run.views[copy.phase_id] = step_view(STATUS[copy.status], copy.output, copy.json, copy.error)
        elif isinstance(copy, ev.PhaseSkipped):
            run.views.pop(copy.phase_id, None)
