"""Engine benchmark: the five flows of benchmarks/flows/ plus a linear-cost check.

Usage: .venv/bin/python benchmarks/engine.py [--runs 5] [--only a,b]

Each flow runs with an instant MarkerRunner (conformance contract: key = first
`[[KEY]]`, scripted replies, else `default_output`) and an instant clock, with the
journal on (tftui.engine.journal, in a temp dir) and off. Prints the median wall time
of N runs and the peak traced memory of one extra run (tracemalloc), how many fsyncs a
journaled run makes (one before each layer that depends on new results, plus the end) and
the median ms spent waiting for them: on a chain (a) that is the disk's fsync latency x 200,
most of the journal-on time. Then the time of a generated 1,000- vs 4,000-phase chain to
show the cost grows linearly.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from tftui.agents.scripted import MarkerRunner  # noqa: E402
from tftui.engine.clock import InstantClock  # noqa: E402
from tftui.engine.run import run_flow  # noqa: E402
from tftui.flow.model import Flow  # noqa: E402

TARGETS_MS = {"a": 65, "b": 245, "c": 25, "d": 42, "e": 285}
EXPECT = {"d": {"skipped": 100}, "e": {"calls": 1}}


def _journal_factory() -> Any:
    try:
        from tftui.engine.journal import Journal
    except ImportError:
        return None
    class TimedJournal(Journal):
        """Counts the wall time spent waiting for fsync: the disk's share of a journal-on time."""

        sync_ms = 0.0

        def sync(self) -> None:
            start = time.perf_counter()
            super().sync()
            self.sync_ms += (time.perf_counter() - start) * 1000

    tmp = tempfile.mkdtemp(prefix="tftui-bench-")
    counter = {"n": 0}

    def make(name: str) -> Any:
        counter["n"] += 1
        return TimedJournal.create(tmp, flow_name=name, run_id=f"20260101-000000-{counter['n']:04d}")

    return make


async def _once(spec: dict[str, Any], flow: Flow, journal: Any) -> tuple[float, float, Any, MarkerRunner]:
    runner = MarkerRunner(spec.get("script") or {}, spec.get("default_output"))
    start, cpu = time.perf_counter(), time.process_time()
    result = await run_flow(flow, args=spec.get("args") or {}, runner=runner, clock=InstantClock(), journal=journal)
    if journal is not None:
        journal.close()
    elapsed = (time.perf_counter() - start) * 1000
    return elapsed, (time.process_time() - cpu) * 1000, result, runner


def measure(
    spec: dict[str, Any], runs: int, make_journal: Any
) -> tuple[float, float, float, Any, MarkerRunner, tuple[int, float] | None]:
    """Median wall ms, median CPU ms (this process), peak traced MB, last result, last runner,
    and (fsyncs per run, median ms spent waiting for them) with a journal, else None."""
    flow = Flow.model_validate(spec["flow"])
    times, cpus, sync_ms = [], [], []
    result = runner = None
    for _ in range(runs):
        gc.collect()
        journal = make_journal(flow.name) if make_journal else None
        elapsed, cpu, result, runner = asyncio.run(_once(spec, flow, journal))
        times.append(elapsed)
        cpus.append(cpu)
        sync_ms.append(getattr(journal, "sync_ms", 0.0))
    gc.collect()
    tracemalloc.start()
    journal = make_journal(flow.name) if make_journal else None
    asyncio.run(_once(spec, flow, journal))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    fsyncs = None if journal is None else (journal.syncs, statistics.median(sync_ms))  # explains journal-on times
    return statistics.median(times), statistics.median(cpus), peak / 1e6, result, runner, fsyncs


def check(letter: str, result: Any, runner: MarkerRunner) -> str:
    problems = []
    if result.status != "completed":
        problems.append(f"status {result.status}")
    skipped = sum(1 for p in result.phases.values() if str(p.status) == "skipped")
    if "skipped" in EXPECT.get(letter, {}) and skipped != EXPECT[letter]["skipped"]:
        problems.append(f"skipped {skipped}")
    if "calls" in EXPECT.get(letter, {}) and len(runner.call_log) != EXPECT[letter]["calls"]:
        problems.append(f"calls {len(runner.call_log)}")
    return "ok" if not problems else "WRONG: " + ", ".join(problems)


def chain(n: int) -> dict[str, Any]:
    phases = [{"id": "p0", "task": "[[p0]] start"}]
    phases += [{"id": f"p{i}", "task": f"[[p{i}]] {{previous.output}}", "dependsOn": [f"p{i - 1}"]} for i in range(1, n)]
    return {"flow": {"name": f"chain-{n}", "concurrency": 1, "phases": phases}, "default_output": "x"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated flow letters (a-e)")
    opts = parser.parse_args()
    make_journal = _journal_factory()
    wanted = {x.strip() for x in opts.only.split(",") if x.strip()}
    print("median of", opts.runs, "runs; wall ms (CPU ms of this process, which machine load distorts less);")
    print("fsyncs: per journaled run, and the ms spent waiting for the disk (part of the journal-on time)")
    print(f"{'flow':<20} {'journal off':>18} {'journal on':>18} {'target':>7} {'peak MB':>8} {'fsyncs (ms)':>13}  check")
    for path in sorted((ROOT / "flows").glob("*.json")):
        letter = path.name[0]
        if wanted and letter not in wanted:
            continue
        spec = json.loads(path.read_text(encoding="utf-8"))
        off, off_cpu, _, result, runner, _ = measure(spec, opts.runs, None)
        on, on_cpu, peak, _, _, fsyncs = measure(spec, opts.runs, make_journal)
        verdict = check(letter, result, runner)
        target = TARGETS_MS.get(letter)
        flag = "" if target is None or on <= target else " (over target)"
        print(
            f"{path.stem:<20} {off:>8.1f} ({off_cpu:>6.1f}) {on:>8.1f} ({on_cpu:>6.1f}) {target:>5}ms {peak:>8.1f}"
            f" {fsyncs[0]:>5} ({fsyncs[1]:>5.1f})  {verdict}{flag}"
        )
    if not wanted:
        small, small_cpu, _, _, _, _ = measure(chain(1000), 3, None)
        big, big_cpu, _, _, _, _ = measure(chain(4000), 3, None)
        print(
            f"chain 1,000 phases: {small:.1f}ms ({small_cpu:.1f} CPU); 4,000 phases: {big:.1f}ms ({big_cpu:.1f} CPU);"
            f" CPU ratio {big_cpu / small_cpu:.2f} (linear = 4)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
