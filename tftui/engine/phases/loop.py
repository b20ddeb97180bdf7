"""loop phases (docs/language.md §6.2): iterate the body until `until`, convergence or maxIterations."""

from __future__ import annotations

import math
from typing import Any

from tftui.engine.calls import CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of, phase_as
from tftui.flow.model import LoopPhase
from tftui.lang.values import MISSING, is_number

FIRST_ITERATION = "_(first iteration — no prior feedback yet)_"
NO_PLACEHOLDER_WARNING = (
    "reflexion: true but the task has no {reflexion} placeholder — the summary was auto-appended; "
    "add {reflexion} to control placement"
)
REFLEXION_TOTAL = 2000
MIN_SNIPPET = 40
KEEP_FAILURES = 20


def max_iterations(value: Any) -> int:
    if not is_number(value) or not math.isfinite(value):
        return 10
    return min(100, max(1, math.floor(value)))


def one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _snippet(output: str, room: int) -> str:
    """Middle-truncate `output` to `room` characters (65 % head, marker, tail)."""
    if len(output) <= room:
        return output
    cut = len(output) - room
    for _ in range(3):  # the marker's length depends on the number it reports
        marker = f"\n…[truncated {cut} chars]…\n"
        keep = max(0, room - len(marker))
        cut = len(output) - keep
    head = int(keep * 0.65)
    tail = keep - head
    return output[:head] + marker + (output[len(output) - tail :] if tail else "")


def reflexion_text(iteration: int, prior: dict[str, Any] | None, until: str) -> str:
    """The reflexion summary shown to iteration `iteration` about iteration - 1 (docs/language.md §6.2)."""
    if iteration <= 1 or prior is None:
        return FIRST_ITERATION
    lines = [f"## Reflexion: iteration {iteration - 1} (prior)"]
    kind = prior["kind"]
    if kind == "contract":
        lines.append("- Outcome: FAILED — output contract violated")
        lines.append("- Contract diagnostics:")
        lines.extend(f"  - {one_line(line, 200)}" for line in prior.get("lines") or [])
    elif kind == "error":
        lines.append("- Outcome: FAILED — subagent error")
        lines.append(f"- Error: {one_line(prior.get('error') or '', 400)}")
    else:
        lines.append("- Outcome: succeeded, but the stop condition was not met")
        lines.append(f"- Stop condition still false: `{one_line(until, 200)}`")
    lines.append("- Fix the issues above in this iteration.")
    output = prior.get("output") or ""
    if output:
        head = "\n".join(lines) + "\n- Prior output (truncated):\n```\n"
        room = REFLEXION_TOTAL - len(head) - len("\n```")
        if room >= MIN_SNIPPET:
            lines += ["- Prior output (truncated):", "```", _snippet(output, room), "```"]
    return "\n".join(lines)


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    from tftui.lang.condition import evaluate
    from tftui.lang.interpolate import Context, StepView

    phase = phase_as(pr, LoopPhase)
    cap = max_iterations(phase.max_iterations)
    use_reflexion = bool(phase.reflexion)
    until = phase.until or ""
    template = phase.task if isinstance(phase.task, str) else ""
    prefix = preread(run, phase, build_context(run, phase))
    last_ok: str | None = None
    last_json: Any = MISSING
    prior: dict[str, Any] | None = None
    failures: list[dict[str, Any]] = []
    last_error: str | None = None
    last_failed = False
    stop = "maxIterations"
    iterations = 0
    for i in range(1, cap + 1):
        if run.aborted:
            stop = "aborted"
            break
        if run.over_budget() is not None:
            # docs/language.md §6.2: the iteration is not started; the loop ends like maxIterations
            # (or fails, Q4, when it has no successful output yet).
            stop = "budget"
            run.phase_warning(phase.id, f"loop stopped before iteration {i}: budget exceeded")
            break
        iterations = i
        text = reflexion_text(i, prior, until) if use_reflexion else None
        local = {"loop": {"iteration": i, "lastOutput": last_ok or "", "maxIterations": cap}}
        ctx = build_context(run, phase, locals=local, reflexion=text)
        task = render(run, pr, template, ctx)
        if use_reflexion and "{reflexion}" not in template and i > 1:
            # docs/language.md §6.2: only later iterations get the appended summary; iteration 1
            # sees the first-iteration text only through a `{reflexion}` placeholder
            task += "\n\n---\n\n" + (text or FIRST_ITERATION)
            run.phase_warning(phase.id, NO_PLACEHOLDER_WARNING)
        call = await call_with_retry(
            run, pr, CallSpec(phase.id, agent_of(phase), prefix + task, phase.output, phase.expect)
        )
        if not call.ok:
            last_error = call.error
            last_failed = True
            if not use_reflexion or call.timed_out or call.aborted or run.over_budget() is not None:
                stop = "aborted" if call.aborted else "failed"
                break
            kind = "contract" if call.contract_violation else "error"
            prior = {"kind": kind, "error": call.error, "lines": call.contract_lines, "output": call.output}
            failures.append({"iteration": i, "error": call.error})
            del failures[:-KEEP_FAILURES]
            continue
        last_failed = False
        previous = last_ok if last_ok is not None else ""
        last_ok, last_json = call.output, call.json
        steps = dict(run.views)
        steps[phase.id] = StepView(output=call.output, json=call.json if phase.output == "json" else MISSING)
        until_ctx = Context(
            args=run.args, steps=steps, previous_output=ctx.previous_output, locals=local, reflexion=text
        )
        result = evaluate(until, until_ctx)
        if result.error:
            run.phase_warning(phase.id, f"loop 'until' could not be evaluated (stopped early): {result.error}")
            stop = "until"
            break
        if result.value:
            stop = "until"
            break
        if phase.convergence is not False and call.output == previous:
            stop = "converged"
            break
        prior = {"kind": "until", "output": call.output}
    loop_state: dict[str, Any] = {"iterations": iterations, "stop": "maxIterations" if stop == "budget" else stop}
    if use_reflexion:
        loop_state["reflexion"] = True
        if failures:
            loop_state["failures"] = failures
    failed = stop in ("failed", "aborted") or (stop == "maxIterations" and use_reflexion and last_failed)
    if stop == "budget" and last_ok is None:
        failed = True
        last_error = "Budget exceeded"
    if failed:
        error = last_error or (f"loop '{phase.id}' iteration {iterations} failed" if stop != "aborted" else "Aborted")
        if stop == "aborted" and not last_error:
            error = "Aborted"
        return PhaseOutcome(
            status="failed", output=last_ok, error=error,  # no successful iteration: no output
            extra={"loop": loop_state},
        )
    return PhaseOutcome(
        status="done",
        output=last_ok or "",
        json=last_json if phase.output == "json" else MISSING,
        extra={"loop": loop_state},
    )
