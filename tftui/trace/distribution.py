"""Distribution baselines for real runs (docs/trace-gates.md §6): compare many runs of a fixture, not one number.

Real model and network runs vary; their checks compare rolling distributions over enough samples.
Each trace of a fixture gives one sample of these metrics:
  wallMs          the run step's duration (the whole run)
  wallMs.<kind>   the summed duration of the steps of one kind (model, tool, policy, …)
  tokens          input + output tokens of the model steps (absent when some step lacks usage)
  modelCalls      the number of model steps
  costUSD         Σ metadata.costUSD of the steps, when the trace records it
Durations are read before normalization (normalization drops wall-clock durations).

The baseline file's `[distribution]` section holds, per fixture, the median and p95 of each metric
and the sample count, plus the minimum sample count and slack:

    [distribution]
    minSamples = 5
    [distribution.slack]
    wallMs = { abs = 50, rel = 0.25 }        # applies to wallMs and every wallMs.<kind>
    [distribution.fixtures.validate]
    samples = 20
    wallMs = { median = 41.2, p95 = 55.0 }

A statistic regresses when current − baseline exceeds both slacks (as for single-number baselines).
With fewer samples than minSamples (now or in the baseline) the check says "not enough samples"
and does not fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from tftui.trace.baseline import Slack, is_regression
from tftui.trace.columns import TraceColumns
from tftui.trace.rules import num_text

DEFAULT_MIN_SAMPLES = 5
STATS = ("median", "p95")
DEFAULT_DIST_SLACK: dict[str, Slack] = {
    "wallMs": Slack(50, 0.25),
    "tokens": Slack(200, 0.10),
    "modelCalls": Slack(1, 0.25),
    "costUSD": Slack(0.01, 0.10),
}
HISTOGRAM_BINS = 8


def metric_family(metric: str) -> str:
    return metric.split(".", 1)[0]


def sample_metrics(cols: TraceColumns) -> dict[str, float]:
    """One sample: the metrics of one (not normalized) trace."""
    out: dict[str, float] = {}
    roots = [i for i, p in enumerate(cols.parent_ids) if p is None]
    if len(roots) == 1 and (d := cols.durations[roots[0]]) is not None:
        out["wallMs"] = float(d)
    by_kind: dict[str, float] = {}
    for kind, duration in zip(cols.kinds, cols.durations, strict=True):
        if duration is not None and kind != "run":
            by_kind[kind] = by_kind.get(kind, 0.0) + float(duration)
    for kind_name, total in sorted(by_kind.items()):
        out[f"wallMs.{kind_name}"] = total
    models = [i for i, k in enumerate(cols.kinds) if k == "model"]
    out["modelCalls"] = float(len(models))
    ins = [cols.input_tokens[i] for i in models]
    outs = [cols.output_tokens[i] for i in models]
    if None not in ins and None not in outs:
        out["tokens"] = float(sum(v for v in ins if v is not None) + sum(v for v in outs if v is not None))
    costs = [m.get("costUSD") for m in cols.metadata if m and "costUSD" in m]
    numbers = [float(c) for c in costs if isinstance(c, (int, float)) and not isinstance(c, bool)]
    if numbers:
        out["costUSD"] = sum(numbers)
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1) of a non-empty list: a value that occurred."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _round(value: float) -> float | int:
    r = round(value, 3)
    return int(r) if float(r).is_integer() else r


def stats(values: list[float]) -> dict[str, float | int]:
    return {"median": _round(median(values)), "p95": _round(percentile(values, 0.95))}


@dataclass
class FixtureDistribution:
    samples: int
    metrics: dict[str, dict[str, float | int]]  # metric -> {median, p95}


@dataclass
class DistributionSection:
    min_samples: int | None = None  # None: DEFAULT_MIN_SAMPLES (not written back)
    slack_overrides: dict[str, dict[str, float]] = field(default_factory=dict)
    fixtures: dict[str, FixtureDistribution] = field(default_factory=dict)

    @property
    def minimum(self) -> int:
        return DEFAULT_MIN_SAMPLES if self.min_samples is None else self.min_samples

    def slack(self, metric: str) -> Slack:
        family = metric_family(metric)
        base = DEFAULT_DIST_SLACK.get(family, Slack(0, 0))
        override = self.slack_overrides.get(family, {})
        return Slack(override.get("abs", base.abs), override.get("rel", base.rel))

    def to_toml(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.min_samples is not None:
            out["minSamples"] = self.min_samples
        if self.slack_overrides:
            out["slack"] = self.slack_overrides
        out["fixtures"] = {
            name: {"samples": d.samples, **{m: dict(s) for m, s in sorted(d.metrics.items())}}
            for name, d in sorted(self.fixtures.items())
        }
        return out


def _num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and math.isfinite(v)


def parse_distribution(data: object, path: str) -> tuple[DistributionSection | None, str | None]:
    if data is None:
        return None, None
    if not isinstance(data, dict):
        return None, f"{path}: key 'distribution' must be a table"
    section = DistributionSection()
    for key, value in data.items():
        where = f"{path}: distribution.{key}"
        if key == "minSamples":
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
                return None, f"{where}: must be an integer ≥ 1"
            section.min_samples = value
        elif key == "slack":
            if not isinstance(value, dict):
                return None, f"{where}: must be a table of metric = {{ abs, rel }}"
            for family, pair in value.items():
                if family not in DEFAULT_DIST_SLACK:
                    return None, f"{where}: unknown metric '{family}' (allowed: {', '.join(DEFAULT_DIST_SLACK)})"
                if not isinstance(pair, dict) or set(pair) - {"abs", "rel"} or not all(map(_num, pair.values())):
                    return None, f"{where}.{family}: expected {{ abs = number ≥ 0, rel = number ≥ 0 }}"
                section.slack_overrides[family] = {k: float(v) for k, v in pair.items()}
        elif key == "fixtures":
            if not isinstance(value, dict):
                return None, f"{where}: must be a table of fixture tables"
            for name, table in value.items():
                parsed, problem = _parse_fixture(table, f"{where}.{name}")
                if parsed is None:
                    return None, problem
                section.fixtures[name] = parsed
        else:
            return None, f"{where}: unknown key (allowed: minSamples, slack, fixtures)"
    return section, None


def _parse_fixture(table: object, where: str) -> tuple[FixtureDistribution | None, str | None]:
    if not isinstance(table, dict):
        return None, f"{where}: must be a table"
    samples = table.get("samples")
    if not (isinstance(samples, int) and not isinstance(samples, bool) and samples >= 0):
        return None, f"{where}: key 'samples' must be an integer ≥ 0"
    metrics: dict[str, dict[str, float | int]] = {}
    for metric, value in table.items():
        if metric == "samples":
            continue
        if metric_family(metric) not in DEFAULT_DIST_SLACK:
            return None, f"{where}: unknown metric '{metric}'"
        if not isinstance(value, dict) or set(value) != set(STATS) or not all(map(_num, value.values())):
            return None, f"{where}.{metric}: expected {{ median = number, p95 = number }}"
        metrics[metric] = dict(value)
    return FixtureDistribution(samples, metrics), None


# --- comparison ----------------------------------------------------------------------------------


class DistributionMetricJSON(TypedDict):
    metric: str
    baseline: dict[str, float | int] | None
    current: dict[str, float | int]
    regression: bool
    message: str
    histogram: list[int]  # counts of the current samples in HISTOGRAM_BINS equal bins over [lo, hi]
    range: list[float | int]  # [lo, hi]


class DistributionJSON(TypedDict):
    fixture: str
    samples: int
    baselineSamples: int | None
    minSamples: int
    enoughSamples: bool
    metrics: list[DistributionMetricJSON]


def histogram(values: list[float], lo: float, hi: float, bins: int = HISTOGRAM_BINS) -> list[int]:
    counts = [0] * bins
    for v in values:
        counts[bin_of(v, lo, hi, bins)] += 1
    return counts


def compare_distribution(fixture: str, samples: list[dict[str, float]], section: DistributionSection | None,
                         metrics_filter: tuple[str, ...] = ()) -> DistributionJSON:
    """The current samples of a fixture against its baseline distribution."""
    base = section.fixtures.get(fixture) if section else None
    minimum = section.minimum if section else DEFAULT_MIN_SAMPLES
    enough = len(samples) >= minimum and base is not None and base.samples >= minimum
    names = sorted({m for s in samples for m in s})
    if metrics_filter:
        names = [m for m in names if m in metrics_filter or metric_family(m) in metrics_filter]
    out: list[DistributionMetricJSON] = []
    for metric in names:
        values = [s[metric] for s in samples if metric in s]
        if not values:
            continue
        current = stats(values)
        baseline = base.metrics.get(metric) if base else None
        lo = min(values + ([float(baseline["median"])] if baseline else []))
        hi = max(values + ([float(baseline["p95"])] if baseline else []))
        regression = False
        if baseline is None:
            message = f"{metric}: no baseline distribution"
        elif not enough:
            message = f"{metric}: not enough samples"
        else:
            slack = section.slack(metric) if section else DEFAULT_DIST_SLACK[metric_family(metric)]
            bad = [s for s in STATS if is_regression(float(current[s]), float(baseline[s]), slack)]
            regression = bool(bad)
            parts = [f"{s} {num_text(current[s])} vs {num_text(baseline[s])}" for s in STATS]
            verdict = f"exceeds slack (abs {num_text(slack.abs)}, rel {num_text(slack.rel)}) in {', '.join(bad)}" \
                if bad else "within slack"
            message = f"{metric}: {'; '.join(parts)} {verdict}"
        out.append({"metric": metric, "baseline": baseline, "current": current, "regression": regression,
                    "message": message, "histogram": histogram(values, lo, hi), "range": [_round(lo), _round(hi)]})
    return {"fixture": fixture, "samples": len(samples), "baselineSamples": base.samples if base else None,
            "minSamples": minimum, "enoughSamples": enough, "metrics": out}


def record_distribution(section: DistributionSection, fixture: str, samples: list[dict[str, float]]) -> None:
    names = sorted({m for s in samples for m in s})
    metrics = {m: stats([s[m] for s in samples if m in s]) for m in names}
    section.fixtures[fixture] = FixtureDistribution(len(samples), metrics)


_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(counts: list[int]) -> str:
    """Counts as block characters (for a terminal)."""
    top = max(counts, default=0)
    if top == 0:
        return " " * len(counts)
    return "".join(_BARS[round(c / top * (len(_BARS) - 1))] for c in counts)


def histogram_lines(entry: DistributionMetricJSON) -> list[str]:
    """A small text histogram of the current samples, marking the baseline's median and p95 bins."""
    lo, hi = float(entry["range"][0]), float(entry["range"][1])
    counts = entry["histogram"]
    width = (hi - lo) / len(counts) if hi > lo else 0.0
    marks: dict[int, list[str]] = {}
    for label, stats_of in (("baseline", entry["baseline"]), ("current", entry["current"])):
        if stats_of is None:
            continue
        for s in STATS:
            v = float(stats_of[s])
            index = 0 if width == 0 else min(len(counts) - 1, max(0, int((v - lo) / width)))
            marks.setdefault(index, []).append(f"{label} {s}")
    lines = []
    for i, count in enumerate(counts):
        left = lo + i * width
        right = lo + (i + 1) * width
        note = f"  ← {', '.join(marks[i])}" if i in marks else ""
        lines.append(f"{num_text(_round(left)):>10}–{num_text(_round(right)):<10} {'#' * count:<20}{note}")
    return lines


def timed_columns(trace_path: Path) -> TraceColumns | None:
    """A run's trace with its wall-clock durations, rebuilt from the journal beside `trace_path`
    (trace.json drops them when normalizing); None when there is no journal to read."""
    from tftui.engine.journal import decode_events, read_journal
    from tftui.trace.record import trace_columns_from_events

    run_dir = trace_path.parent
    if not (run_dir / "events.jsonl").is_file():
        return None
    rows, meta, _warnings = read_journal(run_dir)
    if not rows:
        return None
    events, _more = decode_events(rows)
    # fake_clock=True only keeps the durations: the metrics read them, nothing else is judged here
    return trace_columns_from_events(events, "sample", fake_clock=True)


HISTORY_RUNS = 30  # the debugger's Trace tab: how many recent runs of a flow make its distribution


def recent_samples(root: Path, flow_path: str | None, *, limit: int = HISTORY_RUNS,
                   cache: dict[str, dict[str, float]] | None = None,
                   exclude: Path | None = None) -> list[dict[str, float]]:
    """The metrics of the last `limit` finished runs of the flow at `flow_path` under `root`
    (oldest first), each read from its journal, leaving out the run at `exclude` (the one being
    compared with them); `cache` (run id -> sample) spares re-reading runs already read. Never
    raises: an unreadable run is left out."""
    from tftui.engine.journal import list_runs

    if flow_path is None:
        return []
    wanted = str(Path(flow_path).resolve())
    out: list[dict[str, float]] = []
    skip = exclude.resolve() if exclude is not None else None
    entries = [e for e in list_runs(root) if e.meta.get("flowPath") == wanted and (e.run_dir / "trace.json").is_file()
               and (skip is None or e.run_dir.resolve() != skip)]
    for entry in entries[-limit:]:
        key = entry.run_dir.name  # the run id
        sample = cache.get(key) if cache is not None else None
        if sample is None:
            try:
                cols = timed_columns(entry.run_dir / "trace.json")
            except (OSError, ValueError):
                cols = None
            if cols is None:
                continue
            sample = sample_metrics(cols)
            if cache is not None:
                cache[key] = sample
        out.append(sample)
    return out


def bin_of(value: float, lo: float, hi: float, bins: int = HISTOGRAM_BINS) -> int:
    """The histogram bin `value` falls in, of `bins` equal bins from lo to hi."""
    width = (hi - lo) / bins if hi > lo else 0.0
    return 0 if width == 0 else min(bins - 1, max(0, int((value - lo) / width)))
