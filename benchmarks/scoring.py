"""Scoring-gate throughput: score blocks per second for the seed's four-scorer `validate` gate.

Run: .venv/bin/python benchmarks/scoring.py
One "score block" = the four pure scorers (contains, regex, json-schema, length-range)
on the target + the weighted combine with the judge configured (the early-cutoff
decision), i.e. everything a scoring gate does before deciding whether to call an LLM.
Target: >= 20,000 blocks/s on a 2 KB target. Reference (taskflow 0.2.4 on Node 20):
263,000 four-scorer rounds/s. Also shown: a 200 KB target, and the whole
`evaluate_gate` pipeline (target interpolation, scorers, combine, structured result).
Issue 18's pure-function pair, measured in CPU time: the four scorers on a 72-character
target (taskflow 155,000-172,000 rounds/s) and the lenient JSON parse of a fenced 100 KB
model output (taskflow 1,268/s).
The machine may be shared, so the best of several rounds is printed next to the median.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tftui.flow.model import GatePhase
from tftui.lang.interpolate import Context, StepView
from tftui.lang.jsonish import lenient_parse
from tftui.scoring.combine import combine
from tftui.scoring.gate import evaluate_gate
from tftui.scoring.scorers import evaluate_scorer

ROUNDS = 7
SAMPLE = Path(__file__).resolve().parents[1] / "sample_flows" / "validate.json"


def target_of_size(size: int, variant: int = 0) -> str:
    """A JSON API response of about `size` characters that passes the seed's checks."""
    users, i = [], 0
    while True:
        users.append({"id": i, "name": f"User {i}", "email": f"user{i}@example.com", "active": i % 3 != 0})
        text = json.dumps(
            {"status": "success", "data": {"users": users}, "message": f"{i + 1} users, v{variant}"}
        )
        if len(text) >= size:
            return text
        i += 1


def rate(fn: Callable[[int], object], count: int, clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(best, median) calls per second over ROUNDS rounds of `count` calls (`clock`: wall by default)."""
    rates = []
    for _ in range(ROUNDS):
        start = clock()
        for k in range(count):
            fn(k)
        rates.append(count / max(clock() - start, 1e-9))
    return max(rates), statistics.median(rates)


def fenced_output(size: int, variant: int) -> str:
    """A model answer of about `size` characters: prose, then the JSON in a ```json fence."""
    body = target_of_size(size - 200, variant)
    return f"Here is the result you asked for (v{variant}).\n\n```json\n{body}\n```\n\nLet me know if you need more."


def pure_functions(scorers: list[dict]) -> None:
    print("pure functions (CPU time; taskflow 0.2.4: 155-172k rounds/s, 1,268 parses/s):")
    head = '{"status": "success", "data": {"users": []}, "message": "v'
    targets = [head + f"{v:02d}".ljust(72 - len(head) - 2, ".") + '"}' for v in range(64)]
    assert all(len(t) == 72 and json.loads(t) for t in targets)

    def round_(k: int) -> object:
        target = targets[k % len(targets)]
        return [evaluate_scorer(s, i, target) for i, s in enumerate(scorers)]

    best, median = rate(round_, 50_000, time.process_time)
    print(f"  4-scorer round, 72-char target: {best:,.0f} rounds/s best, {median:,.0f} median")
    outputs = [fenced_output(100_000, v) for v in range(8)]
    assert all(lenient_parse(o) is not None and isinstance(lenient_parse(o), dict) for o in outputs)
    best, median = rate(lambda k: lenient_parse(outputs[k % len(outputs)]), 400, time.process_time)
    print(f"  lenient JSON parse, fenced 100 KB output: {best:,.0f} parses/s best, {median:,.0f} median")


def main() -> None:
    flow = json.loads(SAMPLE.read_text())
    gate_spec = next(p for p in flow["phases"] if p["type"] == "gate")
    score = gate_spec["score"]
    scorers, weights, threshold = score["scorers"], score["weights"], score["threshold"]
    pure_functions(scorers)

    def block(target: str) -> object:
        results = [evaluate_scorer(s, i, target) for i, s in enumerate(scorers)]
        return combine(results, "weighted", weights, threshold, judge_configured=True)

    print("score blocks/s, seed 'validate' gate (4 scorers + weighted combine with judge configured):")
    for label, size, count, distinct in (("2 KB", 2_000, 20_000, 64), ("200 KB", 200_000, 200, 12)):
        # more distinct targets than the scorer's parse cache holds: every block parses its target
        targets = [target_of_size(size, v) for v in range(distinct)]
        stage = block(targets[0]).stage
        best, median = rate(lambda k, t=targets: block(t[k % len(t)]), count)
        print(
            f"  {label} target ({len(targets[0]):,} chars, {stage}), new text each block: "
            f"{best:,.0f} best, {median:,.0f} median"
        )
        best, median = rate(lambda k, t=targets[0]: block(t), count)
        print(
            f"  {label} target, same text re-scored (parse cached):   {best:,.0f} best, {median:,.0f} median"
        )

    phase = GatePhase.model_validate(gate_spec)
    targets = [target_of_size(2_000, v) for v in range(64)]
    contexts = [Context(args={}, steps={"generate": StepView(output=t)}, previous_output=t) for t in targets]

    async def gates(count: int) -> float:
        start = time.perf_counter()
        for k in range(count):
            outcome = await evaluate_gate(phase, contexts[k % len(contexts)], runner=None)
            assert outcome.output.startswith("PASS")
        return count / (time.perf_counter() - start)

    rates = [asyncio.run(gates(5_000)) for _ in range(ROUNDS)]
    print(
        f"evaluate_gate (whole pipeline, 2 KB target, new text each time, no LLM call): "
        f"{max(rates):,.0f} gates/s best, {statistics.median(rates):,.0f} median"
    )


if __name__ == "__main__":
    import argparse

    # no options: --help says what is measured instead of running it
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
