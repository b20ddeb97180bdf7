"""`tftui gate TRACE... --rules rules.toml`: check recorded traces with deterministic rules (docs/trace-gates.md)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tftui.trace.report import GateReport

HELP = "check recorded traces against a rule set (deterministic CI quality gate)"
DESCRIPTION = """\
Check one or more recorded run traces against a rule set, without any model call:
each trace is validated (against the trace format's JSON Schema, which `tftui schema
--trace` prints; then integrity: parent links, unique sequences, one root, a terminal
status, finite non-negative numbers, no payload keys in metadata), normalized, and
evaluated rule by rule. Warnings are reported but never fail the gate.

TRACE is a trace.json file or a run directory containing one (.tftui/runs/<id>/); a run
directory without trace.json is traced from its events.jsonl (see `tftui trace`). An
OpenTelemetry export (OTLP/JSON, GenAI or OpenInference attributes) is recognised by its
content and imported as `tftui trace import` would (the fixture is its file name's stem).
Rule sets are TOML, one [[rules]] table per rule (see sample_flows/validate.rules.toml):
  required_steps (names), order (before, after), no_external_work_after_block,
  max_attempts (name, limit), max_total_tokens (limit), loop_signature (keys, limit);
  max_duration (limit[, name]: exact ms on a fake clock), distribution (metrics: many runs);
  any rule takes severity = "error" | "warning" and profile = "synthetic" | "real"
  (--profile runs one set: distribution is always real, max_duration always synthetic).
Problems in a rule set name the file, the table (rules[N] = the N-th [[rules]] table,
1-based) and the key.

With --baseline, durable metrics (model calls, tokens, attempts per tool, required
tools) are compared to a TOML baseline; an increase beyond both the absolute and the
relative slack is a regression. A trace whose fixture has no entry in the baseline is
compared with nothing: a warning line says so (the exit code is not changed). --update-baseline rewrites the baseline from these
traces: commit it with the change that explains the new numbers.

examples:
  tftui gate .tftui/runs/20240501-1200-ab12 --rules sample_flows/validate.rules.toml
  tftui gate traces/*.json --rules rules.toml --json report.json --md report.md
  tftui gate trace.json --rules rules.toml --baseline baseline.toml
  tftui gate trace.json --rules rules.toml --baseline baseline.toml --update-baseline

outputs:
  stdout       one summary line per trace (PASS / FAIL / ERROR, with the trace path as given)
               and a line per failure, warning or regression
  --json OUT   the report (one trace) or {schemaVersion, passed, reports: [...]} (several)
  --md OUT     short Markdown for a pull request or CI log

With --artifacts DIR --keep-days N (for CI uploads), each fixture that did not pass gets
DIR/<fixture>/trace.json (reduced: the failing rules' evidence steps, their ancestors and
the root), report.json and report.md; DIR/manifest.json lists the entries with their
expiry day, and entries that have expired are deleted on the next run (TFTUI_TODAY=YYYY-MM-DD
fixes the date).

exit codes:
  0  every trace passed (warnings allowed)
  1  an error-severity rule failed, or a baseline regression
  2  usage error: bad arguments, unreadable or invalid rule set or baseline, no such trace
  3  instrumentation error: a trace that does not parse or fails integrity (takes precedence over 1)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace.json files or run directories")
    parser.add_argument("--rules", required=True, metavar="RULES.toml", help="the rule set (TOML)")
    parser.add_argument("--baseline", metavar="BASELINE.toml", help="compare metrics with this baseline")
    parser.add_argument(
        "--update-baseline",
        action="store_true",
        help="rewrite --baseline from these traces (review the diff)",
    )
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    parser.add_argument("--md", dest="md_out", metavar="OUT", help="write the Markdown report here")
    parser.add_argument(
        "--write-normalized",
        metavar="DIR",
        help="write each normalized trace to DIR/<fixture>.trace.json (the report's tracePath points there)",
    )
    parser.add_argument(
        "--artifacts",
        metavar="DIR",
        help="for each fixture that did not pass, write a reduced trace and its report to DIR/<fixture>/ "
        "(DIR/manifest.json says when each expires; expired entries are removed)",
    )
    parser.add_argument(
        "--keep-days", type=int, metavar="N", help="with --artifacts: how many days to keep each entry"
    )
    parser.add_argument(
        "--fake-clock",
        action="store_true",
        help="keep durationMs when normalizing (the fixtures ran on a fake clock)",
    )
    parser.add_argument(
        "--profile",
        choices=("synthetic", "real"),
        help="evaluate only the rules of one profile: synthetic (exact checks, the fast PR gate) or real "
        "(distributions over many runs of a fixture); default: every rule",
    )


def _err(message: str) -> None:
    print(f"tftui gate: {message}", file=sys.stderr)


def shown_trace_path(arg: str, path: Path) -> str:
    """`path` (what resolve_trace_path found for `arg`) as the user wrote it: the argument
    itself, or the argument joined with the file found in that run directory. Never made
    relative to cwd (a trace under /tmp used to read `../../tmp/…`)."""
    return arg if Path(arg) == path else os.path.join(arg, path.name)


def resolve_trace_path(arg: str) -> Path | None:
    """A trace file, or `trace.json` inside a run directory (its `events.jsonl` when the trace
    was not written yet: it is then traced in memory); None when there is neither."""
    path = Path(arg)
    if path.is_dir():
        journal = path / "events.jsonl"
        path = path / "trace.json"
        if not path.is_file() and journal.is_file():
            return journal
    return path if path.is_file() else None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(report: GateReport, shown_path: str, baseline_path: str | None = None) -> list[str]:
    from tftui.trace.report import age_text

    if report.error is not None:
        return [f"ERROR {report.fixture}: {report.error} ({shown_path})"]
    word = "PASS" if report.gate_passed else "FAIL"
    head = (
        f"{word} {report.fixture}: {_plural(len(report.results), 'rule')}, "
        f"{_plural(len(report.failures), 'failure')}, {_plural(len(report.warnings), 'warning')}"
    )
    if report.baseline is not None:
        head += f", {_plural(len(report.regressions), 'baseline regression')}"
    if report.distribution is not None:
        head += f", {_plural(report.distribution['samples'], 'run')}"
    lines = [f"{head} ({shown_path})"]
    for r in report.failures + report.warnings:
        age = report.warning_age(r.rule_id) if r.severity == "warning" else None
        suffix = f" [{age_text(age)}]" if age is not None else ""
        lines.append(f"  {r.severity} {r.rule_id}: {r.message}{suffix}")
    for e in report.regressions:
        lines.append(f"  regression {e['metric']}: {e['message']}")
    for m in (report.distribution or {"metrics": []})["metrics"]:
        if m["regression"]:
            lines.append(f"  distribution {m['message']}")
    if report.baseline and not report.baseline_updated and any(e["metric"] == "baseline" for e in report.baseline):
        # The fixture has no entry: nothing was compared, which "0 baseline regressions" hides.
        lines.append(f"  warning baseline: no entry for fixture '{report.fixture}' in {baseline_path}"
                     " — nothing compared (record one with --update-baseline)")
    return lines


def _write(path: str, text: str) -> str | None:
    try:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror}"
    return None


# A trace of at least this many steps is kept until the process ends (`holds_big_trace`): freeing
# a million steps' objects one by one takes longer than the rules do.
_BIG_TRACE_STEPS = 100_000
_held: list[object] = []
_collector_to_enable = False  # `run` left the collector off for a kept trace (`release_big_traces`)


def holds_big_trace() -> bool:
    """True when a `tftui gate` in this process read a big trace and kept it: the CLI then ends the
    process without freeing it (tftui/cli.py)."""
    return bool(_held)


def release_big_traces() -> None:
    """Let the kept traces go and switch the collector back on: for a caller of `main([...])`,
    whose process goes on."""
    global _collector_to_enable
    _held.clear()
    if _collector_to_enable:
        _collector_to_enable = False
        gc.enable()


def run(args: argparse.Namespace) -> int:
    # A million-step trace is millions of objects that all live until the command ends: a cyclic
    # collection finds nothing to free among them and rescans them all each time the allocation
    # counter trips (docs/trace-gates.md §4, big traces). Paused while the command runs, not only
    # while a file is read: after the read, every full collection still walks each million-entry
    # column list and the rules' counters item by item (measured on 1M steps: ~1.2 s more CPU with
    # collections back on after the read, six full collections freeing nothing of the trace).
    global _collector_to_enable
    paused = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if paused and _held:
            # A big trace kept: the collector stays off until the process ends (tftui/cli.py) or
            # `release_big_traces`, or its first collection would walk the millions of objects
            # made while it was paused. (Not gc.freeze: that would keep a caller's own cyclic
            # garbage for good.)
            _collector_to_enable = True
        elif paused:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    from tftui.trace.baseline import (
        baseline_from_metrics,
        compare,
        dump_baseline,
        load_baseline,
        record_warnings,
        trace_metrics,
        warning_ages,
    )
    from tftui.trace.columns import ColumnsLoad, TraceColumns
    from tftui.trace.dates import today
    from tftui.trace.distribution import (
        DistributionSection,
        record_distribution,
        sample_metrics,
        timed_columns,
    )
    from tftui.trace.fileload import HEAD_BYTES, read_trace_file
    from tftui.trace.otlp import load_trace_bytes, looks_like_otlp, otlp_fixture_name
    from tftui.trace.report import (
        distribution_report,
        error_report,
        evaluate_trace,
        reports_json,
        reports_markdown,
    )
    from tftui.trace.rules import signature_keys
    from tftui.trace.ruleset import load_ruleset

    if args.update_baseline and not args.baseline:
        _err("--update-baseline needs --baseline FILE (the file to rewrite)")
        return 2
    if (args.artifacts is None) != (args.keep_days is None):
        _err("--artifacts DIR and --keep-days N go together (artifacts are kept for an explicit number of days)")
        return 2
    if args.keep_days is not None and args.keep_days < 0:
        _err(f"--keep-days must be 0 or more, got {args.keep_days}")
        return 2
    ruleset = load_ruleset(args.rules)
    if ruleset.error:
        _err(ruleset.error)
        return 2
    baseline_file = None
    if args.baseline:
        loaded = load_baseline(args.baseline, missing_ok=args.update_baseline)
        if loaded.error:
            _err(loaded.error)
            return 2
        baseline_file = loaded.file
    day, day_problem = today()
    if day is None:
        _err(day_problem or "no date")
        return 2

    paths: list[tuple[Path, str]] = []
    for arg in args.traces:
        path = resolve_trace_path(arg)
        if path is None:
            _err(f"no trace at {arg} (expected a trace.json file or a run directory containing one)")
            return 2
        paths.append((path, shown_trace_path(arg, path)))

    active = [r for r in ruleset.rules if args.profile is None or r.profile == args.profile]
    trace_rules = [r for r in active if r.per_trace]
    dist_rules = [r for r in active if not r.per_trace]
    samples: dict[str, list[dict[str, float]]] = {}  # fixture -> one sample per trace (distribution rules)
    exact_baseline = args.profile != "real"  # single-number baselines are exact: not part of the real profile

    reports = []
    updated: list[str] = []
    used_names: set[str] = set()
    for path, shown in paths:
        if path.name == "events.jsonl":  # a run directory without trace.json: trace its journal
            from tftui.trace.record import trace_of_run_dir  # the recorder: only for a journal

            traced, warnings = trace_of_run_dir(path.parent)
            for warning in warnings:
                _err(f"warning: {warning}")
            if traced is None:
                _err(f"no trace in {os.path.dirname(shown)} (no readable events)")
                return 2
            loaded_trace = ColumnsLoad(TraceColumns.from_trace(traced))
        else:
            try:
                with path.open("rb") as file:
                    head = file.read(HEAD_BYTES)
                    otlp = looks_like_otlp(head)  # it looks at the first 4 KB
                    # one parse; the schema check words what breaks it. A file in the layout tftui
                    # writes is read a block at a time (trace/fileload.py), any other whole.
                    from_file = None if otlp else read_trace_file(file, head, signature_keys(trace_rules))
                    data = head + file.read() if otlp else b""
            except OSError as exc:
                _err(f"cannot read trace {shown}: {exc.strerror}")
                return 2
            if from_file is None:  # an OpenTelemetry export: imported, then integrity as any trace
                loaded_trace = load_trace_bytes(data, fixture=otlp_fixture_name(path))
            else:
                del data
                if from_file.nonconforming is not None:
                    fixture, error = from_file.nonconforming
                    reports.append(error_report(fixture or path.stem, error, trace_rules, shown))
                    continue
                loaded_trace = ColumnsLoad(from_file.columns, from_file.error)
        if loaded_trace.columns is None:
            reports.append(
                error_report(otlp_fixture_name(path), loaded_trace.error or "trace parse: unknown", trace_rules,
                             shown)
            )
            continue
        report = evaluate_trace(
            loaded_trace.columns, trace_rules, trace_path=shown, fake_clock=True if args.fake_clock else None
        )
        reports.append(report)
        if len(loaded_trace.columns) >= _BIG_TRACE_STEPS:
            _held.extend((loaded_trace, report))
        if report.normalized is None:
            continue
        if dist_rules:
            timed = timed_columns(path) or loaded_trace.columns  # a run's journal has the wall-clock durations
            samples.setdefault(report.fixture, []).append(sample_metrics(timed))
        if args.write_normalized:
            name = report.fixture or path.stem
            stem, n = name, 2
            while name in used_names:
                name, n = f"{stem}-{n}", n + 1
            used_names.add(name)
            target = Path(args.write_normalized) / f"{_safe(name)}.trace.json"
            from tftui.trace.model import dump_trace
            from tftui.trace.normalize import columns_to_trace

            problem = _write(str(target), dump_trace(columns_to_trace(report.normalized)))
            if problem:
                _err(problem)
                return 2
            report.trace_path = str(target)
        if baseline_file is not None and exact_baseline:
            metrics = trace_metrics(report.normalized)
            tools = set(metrics.attempts_by_tool)
            previous = baseline_file.baselines.get(report.fixture)
            report.baseline = compare(previous, metrics, tools, baseline_file.slack)
            warning_ids = [r.rule_id for r in report.warnings]
            if args.update_baseline:
                new = baseline_from_metrics(report.fixture, metrics, previous)
                if previous is None or new != previous:
                    updated.append(report.fixture)
                baseline_file.baselines[report.fixture] = new
                record_warnings(baseline_file, report.fixture, warning_ids, day)
                report.baseline_updated = True
            report.warning_ages = warning_ages(baseline_file, report.fixture, warning_ids, day)

    for fixture, fixture_samples in samples.items():
        section = baseline_file.distribution if baseline_file is not None else None
        if args.update_baseline and baseline_file is not None:
            section = baseline_file.distribution or DistributionSection()
            record_distribution(section, fixture, fixture_samples)
            baseline_file.distribution = section
            updated.append(f"{fixture} distribution")
        reports.append(distribution_report(fixture, fixture_samples, section, dist_rules))

    for report in reports:
        for line in _summary(report, report.trace_path or "?", args.baseline):
            print(line)
    if len(reports) > 1:
        passed = sum(1 for r in reports if r.gate_passed)
        print(f"{_plural(len(reports), 'trace')}: {passed} passed, {len(reports) - passed} not passed")

    if args.update_baseline and baseline_file is not None:
        problem = _write(args.baseline, dump_baseline(baseline_file))
        if problem:
            _err(problem)
            return 2
        changed = ", ".join(updated) if updated else "no changes"
        print(
            f"baseline {args.baseline} updated ({changed}); review and commit it with the change that caused it"
        )

    if args.json_out:
        problem = _write(
            args.json_out, json.dumps(reports_json(reports), indent=2, ensure_ascii=False) + "\n"
        )
        if problem:
            _err(problem)
            return 2
    if args.md_out:
        problem = _write(args.md_out, reports_markdown(reports))
        if problem:
            _err(problem)
            return 2
    if args.artifacts:
        from tftui.trace.artifacts import write_artifacts

        done = write_artifacts(args.artifacts, reports, ruleset.rules, keep_days=args.keep_days, today=day)
        if done.error:
            _err(done.error)
            return 2
        print(f"artifacts {args.artifacts}: {len(done.written)} written, {len(done.removed)} expired removed")
    return max(r.exit_code for r in reports)


def _safe(name: str) -> str:
    """A fixture name as a file name (path separators and odd characters become `_`)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".") or "trace"
