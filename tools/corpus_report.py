"""Counts of the corpus conformance cases (tests/conformance/corpus/) for a session note.

    .venv/bin/python tools/corpus_report.py            # counts per scenario and per divergence class
    .venv/bin/python tools/corpus_report.py --diffs    # ... and every failing case's differences
    .venv/bin/python tools/corpus_report.py --only ID  # just the vectors whose id contains ID

Runs every counted case the way tests/conformance/test_corpus.py does (same harness, same
environment: a fresh folder per run, an empty HOME) and sets the result beside the suite's
list of known failures (`KNOWN_FAILURES` in the test module): a listed case that now passes,
or a failing case that is not listed, is printed, because either one turns the suite red.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "conformance"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diffs", action="store_true", help="print every failing case's differences")
    parser.add_argument("--only", default="", help="only vectors whose id contains this text")
    opts = parser.parse_args()

    harness = _load("corpus_harness", CONFORMANCE / "corpus_harness.py")
    suite = _load("corpus_suite", CONFORMANCE / "test_corpus.py")
    known: dict[tuple[str, str], str] = suite.KNOWN_FAILURES

    by_id = {v["id"]: v for v in harness.vectors()}
    results: dict[tuple[str, str], list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="tftui-corpus-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)
        os.environ["XDG_CONFIG_HOME"] = str(home / ".config")
        for n, (vid, scenario) in enumerate(harness.counted_cases()):
            if opts.only and opts.only not in vid:
                continue
            vector = by_id[vid]
            if scenario == "static":
                results[(vid, scenario)] = harness.static_differences(vector)
                continue
            work = Path(tmp) / f"run{n}"
            work.mkdir()
            os.chdir(work)
            results[(vid, scenario)] = asyncio.run(harness.run_differences(vector, scenario, work))
            os.chdir(tmp)

    per_scenario: dict[str, Counter[str]] = defaultdict(Counter)
    per_class: Counter[str] = Counter()
    surprises: list[str] = []
    for (vid, scenario), diffs in results.items():
        row = per_scenario[scenario]
        row["counted"] += 1
        row["pass" if not diffs else "fail"] += 1
        listed = known.get((vid, scenario))
        if diffs:
            for name in (listed or "(not in KNOWN_FAILURES)").split(" + "):
                per_class[name] += 1
            if listed is None:
                surprises.append(f"fails but is not listed: {vid} {scenario}")
        elif listed is not None:
            surprises.append(f"passes but is listed as {listed}: {vid} {scenario}")

    print(f"{'scenario':<10} {'counted':>7} {'pass':>5} {'fail':>5}")
    for scenario in ("static", *harness.SCENARIOS):
        row = per_scenario.get(scenario, Counter())
        print(f"{scenario:<10} {row['counted']:>7} {row['pass']:>5} {row['fail']:>5}")
    total = sum((c for c in per_scenario.values()), Counter())
    print(f"{'total':<10} {total['counted']:>7} {total['pass']:>5} {total['fail']:>5}")
    if per_class:
        print("\nfailing cases per divergence class (README catalogue ids; a case may have two):")
        for name, count in sorted(per_class.items()):
            print(f"  {count:>4}  {name}")
    if surprises:
        print("\nthe suite would turn red:")
        for line in surprises:
            print("  " + line)
    if opts.diffs:
        for (vid, scenario), diffs in sorted(results.items()):
            if diffs:
                print(f"\n{vid} [{scenario}] {known.get((vid, scenario), '')}")
                for diff in diffs:
                    print("   " + diff)
    return 1 if surprises else 0


if __name__ == "__main__":
    raise SystemExit(main())
