"""Engine benchmark: the five flows of benchmarks/flows/ and chains, fan-outs and maps at scale,
each with the journal off, on, and on with trace.json written (what `tftui run` does).

Usage: .venv/bin/python benchmarks/engine.py [--runs 5] [--only a,b,chain,fanout,map] [--quick]

Every flow runs with an instant MarkerRunner (conformance contract: key = first `[[KEY]]`,
scripted replies, else `default_output`) and an instant clock. Modes:

- off:   `run_flow` alone;
- on:    a fresh journal (tftui.engine.journal) in a temp dir, `run_flow`, `close`;
- trace: the run service (`tftui.run_service.start` + `execute`): journal, run, close and
         trace.json;
- cli:   `tftui run FLOW --replies FILE --no-wait` in this process (`tftui.cli.main`, output
         captured; the five flows only): what a user waits for once the interpreter has
         started — the flow file read, validated and checked, flow.json and meta.json
         written, the progress lines (`tftui run` folds every event a second time for them),
         journal, run, trace.json and the summary. The replies are what the MarkerRunner
         answered, keyed by node path.

The clock covers the run and what it needs; the previous run's objects are freed, and the flow
validated, before it starts (the cli mode reads and checks the flow file inside it, as `tftui
run` does). The modes of a flow take turns, one run each (off, on, trace, cli, off, ...), so a
burst of load from another process falls on all of them alike (`measure`).

Printed per flow and mode, one line each (80 columns): median and max wall ms of N runs,
median and max CPU ms of this process (what a loaded machine distorts least: report these),
max/median of the runs (wall and CPU; the target is under 1.5), peak RSS of the process during
that flow and mode (VmHWM, reset before each run; MB), the fsyncs a journaled run made, and the
ratio of taskflow's figure (benchmarks/flows/README.md) to the median CPU time (higher = faster
than taskflow). Then, with the journal on, the per-phase CPU and wall µs of the chains and
fan-outs at 1k, 4k and 16k phases and of the maps at 1k, 4k, 16k and 100k items, the ratio of
the largest to the smallest (16k/1k; maps 100k/1k; linear = 1.0, the target is under 1.5) and
the largest max/median of the runs per shape (docs/scheduling.md §8).

Before anything is measured, one small unmeasured run of each shape in each mode (`warm_up`).

`--quick` (small machines): 3 runs, scale sizes 1k and 4k (maps up to 10k items).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import io
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from tftui import run_service  # noqa: E402
from tftui.agents.scripted import MarkerRunner  # noqa: E402
from tftui.engine.clock import InstantClock  # noqa: E402
from tftui.engine.journal import Journal  # noqa: E402
from tftui.engine.run import run_flow  # noqa: E402
from tftui.flow.model import Flow  # noqa: E402

# taskflow 0.2.4 (persistence stubbed), measured side by side on this machine kind (issue 18's
# table, benchmarks/flows/README.md); a 4,000-phase chain took it 57-86 s.
TASKFLOW_MS = {"a": 208, "b": 882, "c": 49, "d": 137, "e": 1120, "chain-4000": 57_000}
# The targets: journal on + trace 5x taskflow (3x for c), journal off 10x (4x for c).
TARGET_MS = {
    "trace": {"a": 42, "b": 176, "c": 16, "d": 27, "e": 224},
    "off": {"a": 20.8, "b": 88.2, "c": 12, "d": 13.7, "e": 112},
}
EXPECT = {"d": {"skipped": 100}, "e": {"calls": 1}}
MODES = ("off", "on", "trace")
FLOW_MODES = (*MODES, "cli")  # the five flows: also `tftui run` in process


# ── generated flows ────────────────────────────────────────────────────────────────────


def chain(n: int) -> dict[str, Any]:
    phases = [{"id": "p0", "task": "[[p0]] start"}]
    phases += [{"id": f"p{i}", "task": f"[[p{i}]] {{previous.output}}", "dependsOn": [f"p{i - 1}"]} for i in range(1, n)]
    return {"flow": {"name": f"chain-{n}", "concurrency": 1, "phases": phases}, "default_output": "x"}


def fanout(n: int) -> dict[str, Any]:
    phases = [{"id": "root", "task": "[[root]] plan"}]
    phases += [{"id": f"w{i}", "task": f"[[w{i}]] {{steps.root.output}}", "dependsOn": ["root"]} for i in range(n)]
    phases.append({"id": "reduce", "task": "[[reduce]] all", "dependsOn": [f"w{i}" for i in range(n)]})
    return {"flow": {"name": f"fanout-{n}", "concurrency": 8, "phases": phases}, "default_output": "x"}


def mapped(n: int) -> dict[str, Any]:
    phases = [
        {"id": "src", "task": "[[src]] list", "output": "json"},
        {"id": "each", "type": "map", "over": "{steps.src.json}", "as": "item", "task": "[[each]] do {item}",
         "dependsOn": ["src"], "concurrency": 8},
    ]
    return {"flow": {"name": f"map-{n}", "phases": phases}, "script": {"src": [json.dumps(list(range(n)))]},
            "default_output": "x"}


SHAPES = {"chain": chain, "fanout": fanout, "map": mapped}


# ── measuring ──────────────────────────────────────────────────────────────────────────


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark of this process (Linux `clear_refs` 5); False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mb() -> float:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # lifetime peak (not resettable)


@dataclass
class Figures:
    wall: list[float]
    cpu: list[float]
    rss_mb: float
    fsyncs: int | None
    result: Any
    calls: int  # requests the last run's runner was sent

    @property
    def median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    def spread(self) -> tuple[float, float]:
        """max/median of the runs: (wall, CPU)."""
        return max(self.wall) / self.wall_median, max(self.cpu) / self.median

    def cell(self) -> str:
        wall, cpu = self.spread()
        return (f"{_ms(self.wall_median)}/{_ms(max(self.wall))} {_ms(self.median)}/{_ms(max(self.cpu))} "
                f"{wall:4.2f} {cpu:4.2f}")


def _ms(value: float) -> str:
    """Six characters: one decimal below a second, whole milliseconds above."""
    return f"{value:6.1f}" if value < 1000 else f"{value:6.0f}"


async def _once(spec: dict[str, Any], flow: Flow, mode: str, root: Path, n: int) -> tuple[Any, MarkerRunner, int | None]:
    runner = MarkerRunner(spec.get("script") or {}, spec.get("default_output"))
    args = spec.get("args") or {}
    if mode == "off":
        return await run_flow(flow, args=args, runner=runner, clock=InstantClock()), runner, None
    if mode == "on":
        journal = Journal.create(root, flow_name=flow.name, run_id=f"20260101-000000-{n:05d}")
        try:
            result = await run_flow(flow, args=args, runner=runner, clock=InstantClock(), journal=journal)
        finally:
            journal.close()
        return result, runner, journal.syncs
    session = run_service.start(flow, args=args, flow_path=None, flow_text=None, root=root, runner=runner)
    result = await run_service.execute(session, runner=runner, clock=InstantClock())
    problems = [note.detail for note in session.notes if note.kind in ("trace", "close-failed", "not-journaled")]
    if problems:
        raise SystemExit(f"{flow.name}: {problems}")
    return result, runner, session.journal.syncs if session.journal is not None else None


def cli_files(spec: dict[str, Any], flow: Flow, root: Path) -> tuple[Path, Path]:
    """The flow file and a replies file answering as the MarkerRunner does (the cli mode)."""
    from tftui.engine import events as ev

    runner = MarkerRunner(spec.get("script") or {}, spec.get("default_output"))
    result = asyncio.run(run_flow(flow, args=spec.get("args") or {}, runner=runner, clock=InstantClock(),
                                  keep_events=True))
    replies: dict[str, list[str]] = {}
    for event in result.events or []:
        if isinstance(event, ev.AgentReturned):
            replies.setdefault(event.node_path, []).append(event.output)
    folder = Path(tempfile.mkdtemp(prefix="cli-", dir=root))
    flow_file, replies_file = folder / f"{flow.name}.json", folder / f"{flow.name}.replies.json"
    flow_file.write_text(json.dumps(spec["flow"]), encoding="utf-8")
    replies_file.write_text(json.dumps(replies), encoding="utf-8")
    return flow_file, replies_file


def _cli(files: tuple[Path, Path], root: Path) -> tuple[None, MarkerRunner, None]:
    """`tftui run` of the flow file in this process; its exit code says whether it completed."""
    from tftui.cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    argv = ["run", str(files[0]), "--replies", str(files[1]), "--no-wait", "--runs-dir", str(root / "cli")]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    if code != 0:
        raise SystemExit(f"tftui run {files[0].name} exited {code}: {err.getvalue()[-2000:]}")
    return None, MarkerRunner(), None


_COUNTER = [0]


def measure(spec: dict[str, Any], modes: tuple[str, ...], runs: int, root: Path) -> dict[str, Figures]:
    """`runs` runs of the flow in each mode, the modes taken in turn (off, on, trace, off, ...):
    a burst of load from another process then lands on every mode alike, not on the five runs
    of one (measured in blocks, journal on came out slower than journal on + trace.json on a
    shared machine, b 79.5 vs 57.7 ms CPU, although callgrind counts 327M against 391M
    instructions a run). Peak RSS is reset before each run and its largest value kept per mode."""
    flow = Flow.model_validate(spec["flow"])
    wall: dict[str, list[float]] = {mode: [] for mode in modes}
    cpu: dict[str, list[float]] = {mode: [] for mode in modes}
    rss: dict[str, float] = dict.fromkeys(modes, 0.0)
    fsyncs: dict[str, int | None] = dict.fromkeys(modes)
    last: dict[str, tuple[Any, int]] = {}
    files = cli_files(spec, flow, root) if "cli" in modes else None
    gc.collect()
    for _ in range(runs):
        for mode in modes:
            _COUNTER[0] += 1
            _reset_peak_rss()
            start, cpu_start = time.perf_counter(), time.process_time()
            if mode == "cli":
                assert files is not None
                result, runner, sync = _cli(files, root)
            else:
                result, runner, sync = asyncio.run(_once(spec, flow, mode, root, _COUNTER[0]))
            wall[mode].append((time.perf_counter() - start) * 1000)
            cpu[mode].append((time.process_time() - cpu_start) * 1000)
            rss[mode] = max(rss[mode], _peak_rss_mb())
            fsyncs[mode] = sync
            last[mode] = (_summary(result), len(runner.call_log))
            del result, runner
            gc.collect()
    return {mode: Figures(wall[mode], cpu[mode], rss[mode], fsyncs[mode], *last[mode]) for mode in modes}


def warm_up(root: Path) -> None:
    """One small run of each shape in each mode, unmeasured: what a process does once (the trace
    writer's modules are imported on the first journaled run, caches fill) is not one measured
    run's cost (callgrind: the first chain-1000 run with trace.json made 1.23x the instructions
    of the next four, the first without a journal 1.10x; the later runs agree within 1%)."""
    for make in SHAPES.values():
        spec = make(20)
        flow = Flow.model_validate(spec["flow"])
        for mode in MODES:
            _COUNTER[0] += 1
            asyncio.run(_once(spec, flow, mode, root, _COUNTER[0]))
    gc.collect()


@dataclass
class _Summary:
    status: str
    skipped: int


def _summary(result: Any) -> _Summary | None:
    """What `check` needs, so a run's state is not kept alive into the next run's RSS (None: the
    cli mode, whose exit code was checked)."""
    if result is None:
        return None
    return _Summary(result.status, sum(1 for p in result.phases.values() if str(p.status) == "skipped"))


def check(letter: str, figures: Figures) -> str:
    problems = []
    result = figures.result
    if result.status != "completed":
        problems.append(f"status {result.status}")
    if "skipped" in EXPECT.get(letter, {}) and result.skipped != EXPECT[letter]["skipped"]:
        problems.append(f"skipped {result.skipped}")
    if "calls" in EXPECT.get(letter, {}) and figures.calls != EXPECT[letter]["calls"]:
        problems.append(f"calls {figures.calls}")
    return "ok" if not problems else "WRONG: " + ", ".join(problems)


# One line per flow and mode, under 80 columns (see HEADER).
HEADER = (
    f"{'flow':<18} {'mode':<5} {'wall med/max':>13} {'CPU med/max':>13} {'mx/md w c':>9} {'RSS':>4} {'fs':>4} {'tf':>5}"
)
LEGEND = """\
{runs} runs per flow and mode (off: journal off; on: journal on; trace: on and
trace.json written; cli: `tftui run` in process, flow file to summary). wall,
CPU: median/max ms of the runs (CPU of this process: what a loaded machine
distorts least). mx/md: max/median of the runs, wall and CPU (target < 1.5).
RSS: peak MB. fs: fsyncs of the last run. tf: taskflow's ms over our median CPU
ms (higher is faster). '!': over issue 18's target (trace:
5x taskflow, 3x for c; off: 10x, 4x for c)."""


def _rows(name: str, letter: str | None, figures: dict[str, Figures]) -> list[str]:
    lines = []
    for mode, f in figures.items():
        target = TARGET_MS.get(mode, {}).get(letter or "")
        ratio = TASKFLOW_MS.get(letter or name)
        times = f"{ratio / f.median:5.1f}" if ratio else "    -"
        flag = "!" if target is not None and f.median > target else ""
        sync = "-" if f.fsyncs is None else str(f.fsyncs)
        label = name if mode == next(iter(figures)) else ""
        lines.append(f"{label:<18} {mode:<5} {f.cell()} {f.rss_mb:4.0f} {sync:>4} {times}{flag}")
    verdict = check(letter or "", figures["off"])
    if verdict != "ok":
        lines.append(f"{'':<18} {verdict}")
    return lines


def _growth(shape: str, figures: dict[int, Figures]) -> list[str]:
    """Per-phase (maps: per-item) cost with the journal on at each size, and largest/smallest."""
    sizes = sorted(figures)
    small, large = sizes[0], sizes[-1]
    lines = []
    for what, pick in (("CPU", lambda f: f.median), ("wall", lambda f: f.wall_median)):
        per = {n: pick(figures[n]) * 1000 / n for n in sizes}
        cells = " ".join(f"{per[n]:6.1f}" for n in sizes)
        ratio = per[large] / per[small]
        flag = "" if ratio < 1.5 else " !"
        lines.append(f"  {shape:<7}{what:<5}{cells} µs  {_k(large)}/{_k(small)} {ratio:4.2f}{flag}")
    worst = [max((figures[n].spread()[i], n) for n in sizes) for i in (0, 1)]
    flag = "" if max(w for w, _n in worst) < 1.5 else " !"
    (wall, at_wall), (cpu, at_cpu) = worst
    lines.append(f"  {shape:<7}worst max/median: wall {wall:4.2f} ({_k(at_wall)}), CPU {cpu:4.2f} ({_k(at_cpu)}){flag}")
    return lines


def _k(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def main() -> int:
    # the whole docstring: it says what each column is (its first line alone stopped mid-sentence)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=None, help="runs per flow and mode (default 5; --quick 3)")
    parser.add_argument("--only", default="", help="comma-separated: flow letters a-e, chain, fanout, map")
    parser.add_argument("--quick", action="store_true", help="3 runs, scale sizes 1k and 4k (maps to 10k)")
    parser.add_argument("--sizes", default="", help="comma-separated scale sizes (default 1000,4000,16000); maps also run 100k items (10k with --quick)")
    opts = parser.parse_args()
    runs = opts.runs or (3 if opts.quick else 5)
    wanted = {x.strip() for x in opts.only.split(",") if x.strip()}
    sizes = [int(x) for x in opts.sizes.split(",") if x.strip()] or ([1000, 4000] if opts.quick else [1000, 4000, 16000])
    map_sizes = [*sizes, 10_000 if opts.quick else 100_000]
    root = Path(tempfile.mkdtemp(prefix="tftui-bench-"))
    warm_up(root)
    print(LEGEND.format(runs=runs))
    print(HEADER)
    for path in sorted((ROOT / "flows").glob("*.json")):
        letter = path.name[0]
        if wanted and letter not in wanted:
            continue
        spec = json.loads(path.read_text(encoding="utf-8"))
        figures = measure(spec, FLOW_MODES, runs, root)
        print("\n".join(_rows(path.stem, letter, figures)), flush=True)
    journal_on: dict[str, dict[int, Figures]] = {}
    for shape, make in SHAPES.items():
        if wanted and shape not in wanted:
            continue
        for n in map_sizes if shape == "map" else sizes:
            spec = make(n)
            figures = measure(spec, MODES, runs, root)
            print("\n".join(_rows(f"{shape}-{n}", None, figures)), flush=True)
            journal_on.setdefault(shape, {})[n] = figures["on"]
    if journal_on:
        print("growth, journal on: per-phase µs (maps: per item) at each size, the largest")
        print("over the smallest, the worst max/median of the runs (targets < 1.5; '!': over)")
        for shape, by_size in journal_on.items():
            print("\n".join(_growth(shape, by_size)))
    os.system(f"rm -rf {root}")  # noqa: S605 - our own temp dir
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
