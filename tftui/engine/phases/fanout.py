"""Fan-out mechanics (docs/language.md §6.5) and the parallel (docs/language.md §6.4) and map (docs/language.md §6.3) phases."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tftui.engine import events as ev
from tftui.engine.calls import CallOutcome, CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.jsonl import join_sections
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of, phase_as, unresolved_warning
from tftui.flow.model import MapPhase
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING

BUDGET_SKIPPED_OUTPUT = "(skipped: budget exceeded)"
_ARRAY_KEYS = ("items", "results", "list", "data", "findings")


@dataclass(slots=True)
class Item:
    node_path: str
    agent: str
    task: str
    call: CallOutcome | None = None  # None: budget-skipped


def width_of(run: PhaseHost, phase: Any) -> int:
    if run.flow.budget is not None:
        return 1
    value = phase.concurrency
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return max(1, int(value))
    return run.flow.flow_concurrency


async def run_items(run: PhaseHost, pr: PhaseRun, items: list[Item], output_mode: str) -> None:
    """Run every item (at most `width` at once, started in order); over budget -> skipped."""
    budgeted = run.flow.budget is not None  # without a budget nothing is ever over it

    async def run_all(queue: Iterator[Item]) -> None:
        for item in queue:
            if budgeted and run.over_budget() is not None:
                continue
            # (positional: a keyword call of a class costs ~2x in CPython 3.11, once per item)
            item.call = await call_with_retry(run, pr, CallSpec(item.node_path, item.agent, item.task, output_mode))

    width = width_of(run, pr.phase)
    if width == 1 or len(items) <= 1:
        await run_all(iter(items))
        return
    # A fixed pool of `width` workers pulling items in order: the same start order and
    # concurrency as one task per item behind a semaphore, at a fraction of the cost.
    queue = iter(items)
    results = await asyncio.gather(*(run_all(queue) for _ in range(min(width, len(items)))), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


def merge(items: list[Item], output_mode: str) -> PhaseOutcome:
    """docs/language.md §6.5 merged output, status, error, budget truncation and json."""
    n = len(items)
    heads: list[str] = []  # each section's heading, and the separator before it (join_sections)
    bodies: list[str] = []
    errors: list[str] = []
    parsed: list[Any] = []
    skipped = 0
    failed = False
    for i, item in enumerate(items, 1):
        call = item.call
        if call is None:
            skipped += 1
            continue
        agent = call.agent or item.agent  # the agent that ran (an unknown name's fallback), as taskflow labels it
        sep = "\n\n---\n\n" if heads else ""
        if call.ok:
            heads.append(f"{sep}### [{i}/{n}] {agent}\n\n")
            bodies.append(call.output)
            if output_mode == "json":
                value = call.json if call.json is not MISSING else lenient_parse(call.output)
                parsed.append(call.output if value is MISSING else value)
        else:
            failed = True
            error = call.error or "agent call failed"
            heads.append(f"{sep}### [{i}/{n}] {agent} (failed)\n\n")
            bodies.append(error)
            errors.append(f"{agent}: {error}")
    if skipped:
        errors.append(f"{skipped} item(s) skipped: budget exceeded")
    output = join_sections(heads, bodies)  # the sections joined by "\n\n---\n\n"
    return PhaseOutcome(
        status="failed" if failed else "done",
        output=output,
        json=parsed if output_mode == "json" else MISSING,
        error="; ".join(errors) if (failed or skipped) else None,
        budget_truncated=skipped > 0,
    )


async def execute_parallel(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = pr.phase
    ctx = build_context(run, phase)
    prefix = preread(run, phase, ctx)
    items = []
    for i, branch in enumerate(getattr(phase, "branches", None) or []):
        agent = branch.agent or agent_of(phase)
        items.append(Item(f"{phase.id}#branch-{i}", agent, prefix + render(run, pr, branch.task, ctx)))
    await run_items(run, pr, items, phase.output)
    return merge(items, phase.output)


def coerce_array(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in _ARRAY_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                return found
    return None


def resolve_over(run: PhaseHost, pr: PhaseRun, ctx: Any) -> list[Any] | None:
    """docs/language.md §6.3: interpolate + lenient-parse, then an exact `{steps.X…}` reference."""
    over = phase_as(pr, MapPhase).over
    if isinstance(over, list):
        return over
    if not isinstance(over, str):
        return coerce_array(over)
    from tftui.lang.interpolate import PLACEHOLDER_RE, interpolate, resolve

    exact = PLACEHOLDER_RE.fullmatch(over)
    if exact:
        # Same result as stringify-then-parse for a structured value, without the round trip.
        value = resolve(exact.group(1), ctx)
        if isinstance(value, (list, dict)):
            return coerce_array(value)
    text = interpolate(over, ctx).text
    found = coerce_array(lenient_parse(text))
    if found is not None:
        return found
    ref = over.strip()
    if ref.startswith("{") and ref.endswith("}") and ref.count("{") == 1 and ref[1:].startswith("steps."):
        path = ref[1:-1]
        parts = path.split(".")
        view = run.views.get(parts[1]) if len(parts) > 2 else None
        if view is not None and view.status == "done" and parts[2] in ("output", "json"):
            value = resolve(path, ctx)
            if isinstance(value, str) and parts[2] == "output":
                value = lenient_parse(value)
            return coerce_array(value)
    return None


async def execute_map(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = phase_as(pr, MapPhase)
    ctx = build_context(run, phase)
    array = resolve_over(run, pr, ctx)
    if array is None:
        over = phase.over if isinstance(phase.over, str) else str(phase.over)
        message = f"map phase '{phase.id}': 'over' ({over}) did not resolve to an array"
        return PhaseOutcome(status="failed", output=None, error=message)  # no output (taskflow: none)
    limit = run.map_item_limit
    if limit is not None and len(array) > limit:  # docs/language.md §6.3: inside generated sub-flows
        run.phase_warning(
            phase.id, f"map: 'over' has {len(array)} items; a generated flow runs at most {limit} (the rest dropped)"
        )
        array = array[:limit]
    run.emit(ev.ItemsResolved(phase_id=phase.id, total=len(array)))  # so progress can say 2/1000 while it runs
    if not array:
        return PhaseOutcome(status="done", output="", json=[] if phase.output == "json" else MISSING)
    prefix = preread(run, phase, ctx)
    agent = agent_of(phase)
    base = f"{phase.id}#item-"
    template = phase.task
    if isinstance(template, str) and "{" in template:
        # The task compiled once for the phase: placeholders that do not read the item are
        # resolved once, not once per item (what `render` does per item, warnings included).
        from tftui.lang.interpolate import ItemTemplate

        filler = ItemTemplate(template, ctx, phase.as_ or "item")
        items = []
        for i, value in enumerate(array):
            filled = filler.fill(value)
            if filled.missing:
                run.phase_warning(phase.id, unresolved_warning(list(filled.missing)))
            items.append(Item(base + str(i), agent, prefix + filled.text))
    else:  # no placeholder: every item gets the same task
        task = prefix + render(run, pr, template, ctx)
        items = [Item(base + str(i), agent, task) for i in range(len(array))]
    await run_items(run, pr, items, phase.output)
    return merge(items, phase.output)
