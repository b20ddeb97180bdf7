"""Trace rule-set throughput: 10k, 100k and 1M-step traces, evaluated in memory.

Each size runs in its own subprocess so peak memory (ru_maxrss) is that size's alone. The
trace is generated directly as columns (plain lists, what rules read: no file parsing, no
pydantic). Reported per size: evaluation time of the standard rule set (best of 3, fresh
facts each time) as wall and CPU time, steps/s, ns/step (linearity), the integrity check and
normalization (the other per-trace passes of `tftui gate`), the child's peak RSS, and, up to
100k steps, the whole gate path from JSON text (validation, integrity, normalize, rules).

    .venv/bin/python benchmarks/trace.py            # all sizes
    .venv/bin/python benchmarks/trace.py 1000000    # one size
    .venv/bin/python benchmarks/trace.py --otlp      # gating 100k steps of imported OpenTelemetry spans
    .venv/bin/python benchmarks/trace.py --file [N]   # `tftui gate` end to end from the file on disk (100k and 1M)

`--file N` writes an N-step trace.json (as a run writes it) and a rules file with the standard
rule set, then runs `tftui gate FILE --rules R --json report.json` as a user does, in its own
process: what is reported is that process's wall time, CPU time and peak RSS, from start to the
written report (interpreter start and imports included; the process-start cost alone is shown).
Targets: ≥ 500,000 steps/s, linear in size, 1M steps under 1.5 GB peak; imported OTLP ≥ 200,000 steps/s;
`tftui gate` on a 1M-step file under 2 s and 1.5 GB (issue 18).
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
from tftui.trace.otlp import import_normalized, load_trace_bytes  # noqa: E402
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


OTLP_STEPS = 100_000
OTLP_RULES: list[Rule] = [
    RequiredSteps(names=("chat gpt-4o-mini", "execute_tool search")),
    Order(before="chat gpt-4o-mini", after="execute_tool search"),
    NoExternalWorkAfterBlock(),
    MaxAttempts(name="execute_tool search", limit=4),
    MaxTotalTokens(limit=10**12),
    LoopSignature(limit=1_000_000),
]


def otlp_export(n: int, seed: int = 11) -> bytes:
    """An OTLP/JSON export shaped as the SDK's encoder writes it (see tests/trace/fixtures/otlp/):
    one agent span, then chat / tool spans under it with GenAI attributes, a few retried tools."""
    rnd = random.Random(seed)
    t0 = 1_767_225_600_000_000_000

    def attr(key: str, value: object) -> dict:
        kind = "intValue" if isinstance(value, int) else "stringValue"
        return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}

    spans = [{"traceId": "ab" * 16, "spanId": f"{1:016x}", "name": "invoke_agent bench", "kind": 1,
              "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + n * 1000 + 10), "flags": 256,
              "status": {}, "attributes": [attr("gen_ai.operation.name", "invoke_agent"),
                                           attr("gen_ai.agent.name", "bench")]}]
    for i in range(2, n + 1):
        start = t0 + i * 1000
        if rnd.random() < 0.7:
            name = "chat gpt-4o-mini"
            attrs = [attr("gen_ai.operation.name", "chat"), attr("gen_ai.provider.name", "openai"),
                     attr("gen_ai.request.model", "gpt-4o-mini"),
                     attr("gen_ai.usage.input_tokens", rnd.randint(50, 4000)),
                     attr("gen_ai.usage.output_tokens", rnd.randint(10, 1500)),
                     attr("gen_ai.response.id", f"chatcmpl-{i}")]
            kind, status = 3, {}
        else:
            name = "execute_tool search"
            attrs = [attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "search"),
                     attr("gen_ai.tool.call.id", f"call-{i}")]
            if rnd.random() < 0.05:
                attrs.append(attr("http.request.resend_count", rnd.randint(1, 3)))
            kind, status = 1, ({"code": 2, "message": "timeout"} if rnd.random() < 0.03 else {})
        spans.append({"traceId": "ab" * 16, "spanId": f"{i:016x}", "parentSpanId": f"{1:016x}", "name": name,
                      "kind": kind, "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 900),
                      "flags": 256, "status": status, "attributes": attrs})
    request = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "bench")]},
                                  "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}
    return json.dumps(request).encode()


def otlp_child(n: int) -> dict:
    data = otlp_export(n)
    best_gate = best_import = best_eval = float("inf")
    cpu_gate = cpu_eval = float("inf")
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        loaded = load_trace_bytes(data, fixture="bench")  # what `tftui gate FILE.otlp.json` does
        assert loaded.columns is not None, loaded.error
        report = evaluate_trace(loaded.columns, OTLP_RULES)
        best_gate = min(best_gate, time.perf_counter() - t)
        cpu_gate = min(cpu_gate, time.process_time() - c)
        assert report.error is None, report.error
        t = time.perf_counter()
        cols, error = import_normalized(data, fixture="bench")  # `tftui trace import`
        best_import = min(best_import, time.perf_counter() - t)
        assert cols is not None, error
        t, c = time.perf_counter(), time.process_time()
        evaluate_trace(cols, OTLP_RULES)  # gating the imported (normalized) trace
        best_eval = min(best_eval, time.perf_counter() - t)
        cpu_eval = min(cpu_eval, time.process_time() - c)
    return {"steps": n, "bytes": len(data), "gate_s": best_gate, "import_s": best_import, "eval_s": best_eval,
            "gate_cpu_s": cpu_gate, "eval_cpu_s": cpu_eval,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


RULES_TOML = """
[[rules]]
id = "required_steps"
names = ["p0", "p1", "p2", "p3", "p499"]
[[rules]]
id = "order"
before = "p0"
after = "p1"
[[rules]]
id = "order"
before = "p2"
after = "p499"
[[rules]]
id = "no_external_work_after_block"
[[rules]]
id = "max_attempts"
name = "p3"
limit = 4
[[rules]]
id = "max_attempts"
name = "p7"
limit = 4
[[rules]]
id = "max_total_tokens"
limit = 1000000000000
[[rules]]
id = "loop_signature"
limit = 1000000
"""


def _timed_process(cmd: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS MB, exit code) of one child process, from fork to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    pid = os.fork() if hasattr(os, "fork") else None
    if pid == 0:  # the child: become the command (its rusage is then exactly the command's)
        os.execv(cmd[0], cmd)
    assert pid is not None
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    del before
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def file_pipeline(n: int) -> int:
    import tempfile

    from tftui.trace.model import dump_columns

    with tempfile.TemporaryDirectory(prefix="tftui-gate-bench-") as tmp:
        trace_path, rules_path, report = Path(tmp) / "trace.json", Path(tmp) / "rules.toml", Path(tmp) / "report.json"
        cols = normalize_columns(generate(n))
        trace_path.write_text(dump_columns(cols), encoding="utf-8")
        rules_path.write_text(RULES_TOML, encoding="utf-8")
        size = trace_path.stat().st_size
        del cols
        python = sys.executable
        print(f"tftui gate, {n:,}-step trace.json ({size / 1e6:.0f} MB) -> report.json; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        start_wall, start_cpu, start_rss, _ = _timed_process([python, "-c", "import tftui.cli"])
        print(f"  process start + CLI import alone: {start_wall * 1000:.0f} ms wall, {start_cpu * 1000:.0f} ms CPU")
        runs = []
        for _ in range(3):
            runs.append(_timed_process([python, "-m", "tftui", "gate", str(trace_path), "--rules", str(rules_path),
                                        "--json", str(report)]))
            assert json.loads(report.read_text(encoding="utf-8")), "no report written"
        wall, cpu, rss, code = min(runs)
        print(f"  file to written report (best of 3): {wall:.2f} s wall, {cpu:.2f} s CPU = {n / cpu:,.0f} steps/s CPU;"
              f" peak RSS {max(r[2] for r in runs):.0f} MB; exit {code}   (target < 2 s, < 1.5 GB)")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if any(not a.isdigit() for a in argv) and argv[:1] not in (["--file"], ["--child"], ["--otlp-child"], ["--otlp"]):
        print(f"usage: benchmarks/trace.py [N ...] | --file [N] | --otlp [N]  (not understood: {' '.join(argv)})",
              file=sys.stderr)
        return 2
    if argv[:1] == ["--file"]:  # `tftui gate` from the file on disk to the written report (issue 18)
        for n in ([int(argv[1])] if len(argv) > 1 else [100_000, 1_000_000]):
            file_pipeline(n)
        return 0
    if len(argv) == 2 and argv[0] == "--child":
        print(json.dumps(child(int(argv[1]))))
        return 0
    if len(argv) == 2 and argv[0] == "--otlp-child":
        print(json.dumps(otlp_child(int(argv[1]))))
        return 0
    if argv[:1] == ["--otlp"]:
        n = int(argv[1]) if len(argv) > 1 else OTLP_STEPS
        proc = subprocess.run([sys.executable, __file__, "--otlp-child", str(n)], capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        r = json.loads(proc.stdout)
        print(f"imported OTLP, {r['steps']:,} spans ({r['bytes'] / 1e6:.1f} MB of OTLP/JSON), best of 3:")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; wall and CPU time:")
        print(f"  gate straight from the export (parse, import, integrity, normalize, rules): "
              f"{r['gate_s'] * 1000:.0f} ms = {r['steps'] / r['gate_s']:,.0f} steps/s; "
              f"CPU {r['gate_cpu_s'] * 1000:.0f} ms = {r['steps'] / r['gate_cpu_s']:,.0f} steps/s")
        print(f"  tftui trace import (parse, import, integrity, normalize): {r['import_s'] * 1000:.0f} ms")
        print(f"  gate the imported trace in memory (integrity, normalize, rules): {r['eval_s'] * 1000:.0f} ms "
              f"= {r['steps'] / r['eval_s']:,.0f} steps/s; CPU {r['eval_cpu_s'] * 1000:.0f} ms = "
              f"{r['steps'] / r['eval_cpu_s']:,.0f} steps/s   (target ≥ 200,000)")
        print(f"  peak RSS {r['peak_rss_mb']:.0f} MB")
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
