"""tournament phases (docs/language.md §6.1): N competitors as a fan-out, then a judge picks a winner."""

from __future__ import annotations

import math
from typing import Any

from tftui.engine import events as ev
from tftui.engine.calls import CallSpec, call_with_retry
from tftui.engine.context import build_context, preread
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, agent_of, phase_as
from tftui.engine.phases.fanout import Item, run_items
from tftui.flow.model import TournamentPhase
from tftui.lang.values import MISSING, is_number

DEFAULT_RUBRIC = (
    "You are judging competing answers to the same task. Pick the single best variant on correctness, "
    "completeness, and clarity."
)


def variant_count(value: Any) -> int:
    if not is_number(value) or not math.isfinite(value):
        return 3
    return min(20, max(2, math.floor(value)))


def judge_prompt(rubric: str, items: list[Item], mode: str) -> str:
    n = len(items)
    blocks = []
    for i, item in enumerate(items, 1):
        call = item.call
        ok = call is not None and call.ok
        head = f"### Variant {i}" + ("" if ok else " (failed — ineligible)")
        # a failed competitor's section shows what it returned (nothing, for an error), never
        # its error text: the judge judges answers (docs/language.md §6.1)
        body = call.output if call is not None else ""
        blocks.append(f"{head}\n\n{body}")
    if mode == "aggregate":
        directive = (
            "Synthesize the strongest possible answer by combining the best parts of the eligible variants. "
            "Then end with a line: WINNER: <number> indicating which variant contributed most."
        )
    else:
        directive = (
            f"End your reply with a line exactly: WINNER: <number> (1–{n}), choosing the strongest eligible variant."
        )
    return f"{rubric}\n\nThe candidate variants:\n\n" + "\n\n---\n\n".join(blocks) + f"\n\n{directive}"


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    from tftui.lang.verdict import parse_tournament_winner

    phase = phase_as(pr, TournamentPhase)
    ctx = build_context(run, phase)
    prefix = preread(run, phase, ctx)
    mode = "aggregate" if phase.mode == "aggregate" else "best"
    branches = getattr(phase, "branches", None) or []
    items: list[Item] = []
    if branches:
        for i, branch in enumerate(branches, 1):
            agent = branch.agent or agent_of(phase)
            items.append(Item(f"{phase.id}#variant-{i}", agent, prefix + render(run, pr, branch.task, ctx)))
    else:
        task = prefix + render(run, pr, phase.task, ctx)
        for i in range(1, variant_count(phase.variants) + 1):
            items.append(Item(f"{phase.id}#variant-{i}", agent_of(phase), task))
    await run_items(run, pr, items, phase.output)
    n = len(items)
    ok = [i for i, item in enumerate(items, 1) if item.call is not None and item.call.ok]
    if not ok:
        message = f"tournament '{phase.id}': all {n} variants failed"
        record = {"variants": n, "mode": mode, "winner": 0}  # no winner, but the record is kept
        return PhaseOutcome(status="failed", output=None, error=message, extra={"tournament": record})
    state: dict[str, Any] = {"variants": n, "mode": mode}
    output: str
    if len(ok) == 1:
        winner, reason = ok[0], "only surviving variant"
        output = items[winner - 1].call.output  # type: ignore[union-attr]
    elif run.aborted or run.over_budget() is not None:
        winner, reason = ok[0], "judge skipped"
        run.phase_warning(phase.id, "judge skipped: run aborted or budget exceeded")
        output = items[winner - 1].call.output  # type: ignore[union-attr]
    else:
        rubric = (render(run, pr, phase.judge, ctx) if isinstance(phase.judge, str) else "").strip() or DEFAULT_RUBRIC
        prompt = judge_prompt(rubric, items, mode)
        node = f"{phase.id}#judge"
        run.emit(ev.JudgeCalled(phase_id=phase.id, prompt=prompt, node_path=node))
        judge = await call_with_retry(run, pr, CallSpec(node, phase.judge_agent or agent_of(phase), prompt))
        if not judge.ok:
            winner, reason = ok[0], "judge failed"
            run.phase_warning(phase.id, f"judge failed ({judge.error}); used variant {winner}")
            output = items[winner - 1].call.output  # type: ignore[union-attr]
        else:
            picked = parse_tournament_winner(judge.output, n)
            winner = picked.index
            reason = picked.reason or ""
            if not picked.parsed:
                reason = "no parseable winner; defaulted to variant 1"
                run.emit(ev.FallbackUsed(phase_id=phase.id, reason=reason))
            if winner not in ok:
                winner = ok[0]
                run.phase_warning(phase.id, f"judge picked an ineligible variant; used variant {winner}")
            output = judge.output if mode == "aggregate" else items[winner - 1].call.output  # type: ignore[union-attr]
    state["winner"] = winner
    if reason:
        state["reason"] = reason
    from tftui.lang.jsonish import lenient_parse

    json_value = lenient_parse(output) if phase.output == "json" else MISSING
    return PhaseOutcome(status="done", output=output, json=json_value, extra={"tournament": state})
