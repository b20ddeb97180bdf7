"""Trace rule-set throughput: 10k, 100k and 1M-step traces, evaluated in memory.

Each size runs in its own subprocess so peak memory (ru_maxrss) is that size's alone. The
trace is generated directly as columns (plain lists, what rules read: no file parsing, no
pydantic). Reported per size: evaluation time of the standard rule set (best of 3, fresh
facts each time) as wall and CPU time, steps/s, ns/step (linearity), the integrity check and
normalization (the other per-trace passes of `tftui gate`), the child's peak RSS, and, up to
100k steps, the whole gate path from JSON text (validation, integrity, normalize, rules).

    .venv/bin/python benchmarks/trace.py            # all sizes
    .venv/bin/python benchmarks/trace.py 1000000    # one size
Targets: ≥ 500,000 steps/s, linear in size, 1M steps under 1.5 GB peak.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tftui.trace.integrity import check_columns  # noqa: E402
from tftui.trace.model import TraceColumns, load_columns  # noqa: E402
from tftui.trace.normalize import normalize_columns  # noqa: E402
from tftui.trace.report import evaluate_trace  # noqa: E402
from tftui.trace.rules import (  # noqa: E402
    LoopSignature,
    MaxAttempts,
    MaxTotalTokens,
    NoExternalWorkAfterBlock,
    Order,
    RequiredSteps,
    Rule,
    evaluate_rules,
)

SIZES = (10_000, 100_000, 1_000_000)
FILE_PIPELINE_MAX = 100_000  # the whole `tftui gate` path from JSON text is timed up to this size
PHASES = 500  # distinct phases; map items make most model-step names unique (`p#item-<i>`)

# The standard rule set: one of each rule, two where a rule is parameterised by a name.
STANDARD_RULES: list[Rule] = [
    RequiredSteps(names=("p0", "p1", "p2", "p3", "p499")),
    Order(before="p0", after="p1"),
    Order(before="p2", after="p499"),
    NoExternalWorkAfterBlock(),
    MaxAttempts(name="p3", limit=4),
    MaxAttempts(name="p7", limit=4),
    MaxTotalTokens(limit=10**12),
    LoopSignature(limit=1_000_000),
]


def generate(n: int, seed: int = 7) -> TraceColumns:
    """A plausible big run: model calls (map items, retries), tools, gate decisions, fallbacks;
    every step its own metadata dict; one gate blocks near the end, followed only by policy steps."""
    rnd = random.Random(seed)
    phase_names = [f"p{i}" for i in range(PHASES)]
    kinds_pool = ["model"] * 6 + ["tool"] * 2 + ["policy"] + ["fallback"]
    ids, parents, seqs, names, kinds, statuses = ["s0"], [None], [0], ["run"], ["run"], ["blocked"]
    attempts: list[int | None] = [None]
    ins: list[int | None] = [None]
    outs: list[int | None] = [None]
    durations: list[float | None] = [None]
    metadata: list[dict | None] = [{"runStatus": "blocked", "skippedCount": 3}]
    block_at = n - 10
    for i in range(1, n):
        phase = phase_names[i % PHASES]
        if i < block_at:
            kind = kinds_pool[rnd.randrange(len(kinds_pool))]
            status = "ok" if rnd.random() > 0.03 else "error"
        else:
            kind = "policy"
            status = "blocked" if i == block_at else "ok"
        ids.append(f"s{i}")
        parents.append("s0")
        seqs.append(i)
        durations.append(None)
        if kind == "model":
            names.append(phase if rnd.random() < 0.3 else f"{phase}#item-{i}")
            attempts.append(1 if rnd.random() > 0.05 else rnd.randint(2, 4))
            ins.append(rnd.randint(50, 4000))
            outs.append(rnd.randint(10, 1500))
            metadata.append({"phase": phase, "phaseType": "map", "transient": False})
        else:
            names.append(phase if kind != "fallback" else f"{phase}#fallback")
            attempts.append(1 if kind == "tool" else None)
            ins.append(None)
            outs.append(None)
            meta = {"phase": phase, "planner_state": f"st{rnd.randrange(50)}",
                    "selected_tool": "lint", "outcome": "retry" if rnd.random() < 0.5 else "done"}
            metadata.append(meta)
        kinds.append(kind)
        statuses.append(status)
    return TraceColumns("bench", "blocked", ids, parents, seqs, names, kinds, statuses, attempts, ins, outs,
                        durations, metadata)


def to_file(cols: TraceColumns) -> dict:
    steps = []
    for i in range(len(cols)):
        s = {"id": cols.ids[i], "parentId": cols.parent_ids[i], "sequence": cols.sequences[i],
             "name": cols.names[i], "kind": cols.kinds[i], "status": cols.statuses[i]}
        for key, column in (("attempt", cols.attempts), ("inputTokens", cols.input_tokens),
                            ("outputTokens", cols.output_tokens), ("metadata", cols.metadata)):
            if column[i] is not None:
                s[key] = column[i]
        steps.append(s)
    return {"schemaVersion": 1, "fixture": cols.fixture, "status": cols.status, "steps": steps}


def child(n: int) -> dict:
    t0 = time.perf_counter()
    cols = generate(n)
    gen_s = time.perf_counter() - t0
    rss_after_gen = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = best_cpu = float("inf")
    results = []
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        results = evaluate_rules(cols, STANDARD_RULES)
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    t = time.perf_counter()
    problems = check_columns(cols)
    integrity_s = time.perf_counter() - t
    t = time.perf_counter()
    normalize_columns(cols)
    normalize_s = time.perf_counter() - t
    file_s = None
    if n <= FILE_PIPELINE_MAX:
        text = json.dumps(to_file(cols))
        t = time.perf_counter()
        report = evaluate_trace(load_columns(text).columns, STANDARD_RULES)
        file_s = time.perf_counter() - t
        assert report.error is None
    return {
        "steps": n,
        "eval_s": best,
        "steps_per_s": n / best,
        "ns_per_step": best / n * 1e9,
        "cpu_s": best_cpu,
        "integrity_s": integrity_s,
        "integrity_ok": not problems,
        "normalize_s": normalize_s,
        "file_s": file_s,
        "generate_s": gen_s,
        "rss_after_generate_mb": rss_after_gen / 1024,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "passed": [r.passed for r in results],
        "messages": [r.message[:60] for r in results],
    }


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--child":
        print(json.dumps(child(int(argv[1]))))
        return 0
    sizes = [int(a) for a in argv] or list(SIZES)
    print(f"standard rule set: {', '.join(r.rule_id for r in STANDARD_RULES)}")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall time suffers on a busy box)")
    print(f"{'steps':>10} {'eval ms':>9} {'steps/s':>12} {'ns/step':>8} {'cpu ms':>8} {'steps/s cpu':>12} "
          f"{'integrity ms':>13} {'normalize ms':>13} {'peak RSS MB':>12} {'file→report ms':>15}")
    for n in sizes:
        proc = subprocess.run([sys.executable, __file__, "--child", str(n)], capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        r = json.loads(proc.stdout)
        print(
            f"{r['steps']:>10,} {r['eval_s'] * 1000:>9.1f} {r['steps_per_s']:>12,.0f} {r['ns_per_step']:>8.0f} "
            f"{r['cpu_s'] * 1000:>8.1f} {r['steps'] / r['cpu_s']:>12,.0f} "
            f"{r['integrity_s'] * 1000:>13.1f} {r['normalize_s'] * 1000:>13.1f} {r['peak_rss_mb']:>12.0f} "
            f"{'-' if r['file_s'] is None else format(r['file_s'] * 1000, '.0f'):>15}"
        )
        if not r["integrity_ok"]:
            print("  (generated trace failed integrity: benchmark bug)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
