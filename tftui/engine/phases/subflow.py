"""flow phases and nested expand phases (P2, SPEC §2.4): run a sub-flow as one phase.

- `use`: a saved flow, looked up as `<name>.json` beside the flow file, then in its
  `flows/` folder (recursion into a flow already on the stack is refused).
- `def`: an inline definition (object), or a string (e.g. `{steps.plan.output}`) that
  must be strict JSON after interpolation. Definitions are hardened like generated
  flows: ≤ 100 phases, concurrency ≤ 16, nesting ≤ 5, no `script`, no `code-compiles` or
  `regex` scorers, no `cwd` or `context`. A bad definition does not fail the phase: it is
  `done` with empty output and `defError` set.
- `with` values are interpolated with exact-placeholder typing (§4.8) into the child's args.

The child runs with the parent's clock and a runner that prefixes node paths with
`<id>/`; its attempt events are re-emitted under the parent phase, so journals, traces
and replies files see `research/summarize#item-2`. The child is not paused by the debugger.
Not done: `expand` with `mode: "graft"`, and the per-dimension budget minimum for `def`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tftui.agents.base import AgentRequest, AgentResult
from tftui.engine import events as ev
from tftui.engine.context import build_context
from tftui.engine.phases.base import PhaseOutcome, PhaseRun
from tftui.lang.interpolate import interpolate, interpolate_value
from tftui.lang.jsonish import lenient_parse, strict_json
from tftui.lang.values import MISSING

if TYPE_CHECKING:
    from tftui.engine.run import Run

MAX_DEF_PHASES = 100
MAX_DEF_CONCURRENCY = 16
MAX_NESTING = 5
_FORWARDED = (ev.AttemptStarted, ev.AgentReturned, ev.AttemptFailed, ev.BackoffStarted, ev.JudgeCalled)


class PrefixRunner:
    """Delegates to the parent's runner with node paths prefixed by `<phase id>/`."""

    def __init__(self, runner: Any, prefix: str) -> None:
        self.runner = runner
        self.prefix = prefix
        self.reports_usage = getattr(runner, "reports_usage", True)
        self.reports_cost = getattr(runner, "reports_cost", True)

    async def run(self, request: AgentRequest) -> AgentResult:
        return await self.runner.run(dataclasses.replace(request, node_path=self.prefix + request.node_path))


def _hardening_error(flow: Any) -> str | None:
    if len(flow.phases) > MAX_DEF_PHASES:
        return f"def has {len(flow.phases)} phases (at most {MAX_DEF_PHASES})"
    for phase in flow.phases:
        if phase.type == "script":
            return f"phase '{phase.id}': script phases are not allowed in a generated flow"
        if phase.cwd is not None or phase.context:
            return f"phase '{phase.id}': 'cwd' and 'context' are not allowed in a generated flow"
        score = getattr(phase, "score", None)
        scorers = score.get("scorers") if isinstance(score, dict) else None
        for scorer in scorers if isinstance(scorers, list) else []:
            if isinstance(scorer, dict) and scorer.get("type") in ("code-compiles", "regex"):
                return f"phase '{phase.id}': '{scorer['type']}' scorers are not allowed in a generated flow"
    if isinstance(flow.concurrency, (int, float)) and flow.concurrency > MAX_DEF_CONCURRENCY:
        flow.concurrency = MAX_DEF_CONCURRENCY
    return None


def _saved_flow(run: Run, name: str) -> Path | None:
    base = Path(run.flow_path).parent if run.flow_path else Path.cwd()
    for candidate in (base / f"{name}.json", base / "flows" / f"{name}.json"):
        if candidate.is_file():
            return candidate
    return None


def _def_error(message: str) -> PhaseOutcome:
    return PhaseOutcome(status="done", output="", extra={"defError": message})


async def execute(run: Run, pr: PhaseRun) -> PhaseOutcome:
    from tftui.flow.load import load_flow_text

    phase = pr.phase
    if phase.type == "expand" and getattr(phase, "mode", "nested") == "graft":
        message = f"Phase '{phase.id}': expand mode 'graft' is not supported yet by tftui"
        return PhaseOutcome(status="failed", output=message, error=message)
    ctx = build_context(run, phase)
    args = {key: interpolate_value(value, ctx) for key, value in (phase.with_ or {}).items()}
    stack: list[str] = getattr(run, "flow_stack", [])
    if len(stack) >= MAX_NESTING:
        return _def_error(f"sub-flow nesting deeper than {MAX_NESTING}")
    use = getattr(phase, "use", None)
    if use:
        path = _saved_flow(run, use)
        if path is None:
            message = f"Phase '{phase.id}': saved flow '{use}' not found beside the flow file"
            return PhaseOutcome(status="failed", output=message, error=message)
        key = str(path.resolve())
        if key in stack or (run.flow_path and key == str(Path(run.flow_path).resolve())):
            message = f"Phase '{phase.id}': recursive use of flow '{use}' refused"
            return PhaseOutcome(status="failed", output=message, error=message)
        loaded = load_flow_text(path.read_bytes(), str(path), args=args)
        if loaded.flow is None:
            first = next((d.message for d in loaded.errors), "invalid flow")
            message = f"Phase '{phase.id}': saved flow '{use}' is invalid: {first}"
            return PhaseOutcome(status="failed", output=message, error=message)
        child_flow, child_path = loaded.flow, str(path)
    else:
        raw = phase.def_
        if isinstance(raw, str):
            raw = strict_json(interpolate(raw, ctx).text.strip())
            if raw is MISSING:
                return _def_error("def is not valid JSON")
        if not isinstance(raw, dict):
            return _def_error("def must be a JSON object (a flow definition)")
        loaded = load_flow_text(json.dumps(raw, ensure_ascii=False), None, args=args)
        if loaded.flow is None:
            return _def_error(next((d.message for d in loaded.errors), "invalid flow definition"))
        problem = _hardening_error(loaded.flow)
        if problem is not None:
            return _def_error(problem)
        child_flow, child_path = loaded.flow, run.flow_path
        key = f"def:{phase.id}"
    return await _run_child(run, pr, child_flow, child_path, args, stack + [key])


async def _run_child(run: Run, pr: PhaseRun, flow: Any, path: str | None, args: dict, stack: list[str]) -> PhaseOutcome:
    from tftui.engine.run import Run as ChildRun

    phase = pr.phase
    prefix = f"{phase.id}/"

    holder: list[Any] = []

    def forward(event: ev.Event) -> None:
        if run.aborted and holder:
            holder[0].abort()  # a user abort of the parent run stops the child at its next step
        if isinstance(event, _FORWARDED):
            copy = dataclasses.replace(event, phase_id=phase.id, node_path=prefix + (event.node_path or event.phase_id))
            run.emit(copy)
            if isinstance(event, ev.AgentReturned):
                pr.add_usage(event.usage)
                pr.calls += 1

    child = ChildRun(flow, args=args, runner=PrefixRunner(run.runner, prefix), clock=run.clock, on_event=forward,
                     flow_path=path, approver=getattr(run.debugger, "approver", None) or run.approver)
    child.flow_stack = stack
    holder.append(child)
    result = await child.run()
    sub = {"flow": flow.name, "status": result.status, "phases": len(flow.phases)}
    if result.status == "completed":
        json_value = lenient_parse(result.final_output) if phase.output == "json" else MISSING
        return PhaseOutcome(status="done", output=result.final_output, json=json_value, extra={"subflow": sub})
    first_line = result.final_output.splitlines()[0] if result.final_output else ""
    error = f"sub-flow '{flow.name}' {result.status}: {first_line}".rstrip(": ")
    return PhaseOutcome(status="failed", output=result.final_output, error=error, extra={"subflow": sub})
