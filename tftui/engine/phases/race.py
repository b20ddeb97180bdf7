"""race phases (P2, docs/language.md §6.8): branches start together; the first success wins.

Failures never win (a fast hard failure just leaves the race to the others). Losers are
cancelled when `cancelLosers` (default true), else they run to completion; the usage of
every branch that returned counts. Node paths are `<id>#branch-<i>`.
"""

from __future__ import annotations

import asyncio

from tftui.engine.calls import CallOutcome, CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = pr.phase
    ctx = build_context(run, phase)
    prefix = preread(run, phase, ctx)
    branches = getattr(phase, "branches", None) or []
    n = len(branches)
    tasks: dict[asyncio.Future[CallOutcome], int] = {}
    for i, branch in enumerate(branches):
        spec = CallSpec(f"{phase.id}#branch-{i}", branch.agent or agent_of(phase), prefix + render(run, pr, branch.task, ctx))
        tasks[asyncio.ensure_future(call_with_retry(run, pr, spec))] = i
    results: dict[int, CallOutcome] = {}
    winner: int | None = None
    pending = set(tasks)
    try:
        while pending and winner is None:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=tasks.__getitem__):
                results[tasks[task]] = task.result()
                if winner is None and results[tasks[task]].ok:
                    winner = tasks[task]
        if winner is not None:
            run.phase_warning(phase.id, f"race: branch {winner + 1}/{n} won (first success)")
        if winner is not None and getattr(phase, "cancel_losers", True):
            # taskflow aborts the losers' shared signal on a win and reports n-1, however
            # many of them were still running (docs/language.md §6.8)
            for task in pending:
                task.cancel()
            run.phase_warning(phase.id, f"race: cancelLosers aborted {n - 1} loser branch(es) (best-effort AbortSignal)")
        if pending:
            # cancelled losers close their attempts; kept losers run to the end (usage counts)
            await asyncio.gather(*pending, return_exceptions=True)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    if winner is None:
        errors = [results[i].error or "failed" for i in sorted(results)][:3]
        message = f"race phase '{phase.id}': all {n} branches failed: {'; '.join(errors)}"
        return PhaseOutcome(status="failed", output=None, error=message)  # the error is not an output
    output = results[winner].output
    json_value = lenient_parse(output) if phase.output == "json" else MISSING
    return PhaseOutcome(status="done", output=output, json=json_value)
