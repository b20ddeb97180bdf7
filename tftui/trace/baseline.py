"""Trace baselines (docs/trace-gates.md §6): durable metric summaries instead of brittle trace snapshots.

A baseline file is TOML, either one baseline at the top level or one `[[baselines]]` table
per fixture, plus optional slack overrides:

    [[baselines]]
    fixture = "validate"
    requiredTools = ["lint"]
    maximumModelCalls = 4
    maximumTokens = 5200
    maximumAttemptsByTool = { lint = 1 }

    [slack]
    tokens = { abs = 1000, rel = 0.10 }

    # warning ages: the day each rule's warning first fired for a fixture (--update-baseline keeps it)
    staleAfterDays = 30
    [warningsSince.validate]
    "loop_signature@1" = 2026-03-01

An increase Δ = current − baseline is a regression only if Δ > abs AND Δ > rel × baseline.
"Tools" are steps of kind `tool` or `retrieval` (in a taskflow run: script phases).
`--update-baseline` rewrites the file from the current traces; review it in the same change.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

import tomli_w

from tftui.trace.columns import TraceColumns
from tftui.trace.facts import Facts
from tftui.trace.rules import num_text

if TYPE_CHECKING:
    from tftui.trace.distribution import DistributionSection

TOOL_KINDS = frozenset({"tool", "retrieval"})
METRIC_SLACK_KEYS = ("tokens", "modelCalls", "attempts")
HEADER = (
    "# tftui trace baseline (docs/trace-gates.md §6). Regenerate with `tftui gate … --update-baseline`;\n"
    "# commit it together with the behaviour change that explains the new numbers.\n"
)


class BaselineEntry(TypedDict):
    """One comparison of a trace against its baseline (the report's `baseline` list)."""

    metric: str  # modelCalls | tokens | attempts:<tool> | requiredTool:<tool> | baseline
    baseline: float | str | None
    current: float | str | None
    delta: NotRequired[float]
    absSlack: NotRequired[float]
    relSlack: NotRequired[float]
    regression: bool
    message: str


class _Deltas(TypedDict, total=False):
    delta: float
    absSlack: float
    relSlack: float


@dataclass(frozen=True)
class Slack:
    abs: float
    rel: float


DEFAULT_STALE_DAYS = 30


class WarningAgeJSON(TypedDict):
    """How long a rule's warning has been firing for a fixture (the report's `warningAges`)."""

    ruleId: str
    firstSeen: str  # YYYY-MM-DD; today when the baseline has no record of it yet
    ageDays: int
    stale: bool  # older than the baseline's staleAfterDays: remove the rule or make it a real policy
    recorded: bool  # the baseline records it (an unrecorded warning is new, or the baseline was not updated)


DEFAULT_SLACK: dict[str, Slack] = {
    "tokens": Slack(1000, 0.10),
    "modelCalls": Slack(1, 0.25),
    "attempts": Slack(0, 0),
}


@dataclass
class TraceBaseline:
    fixture: str
    required_tools: list[str] = field(default_factory=list)
    maximum_model_calls: int | None = None
    maximum_tokens: float | int | None = None
    maximum_attempts_by_tool: dict[str, int] = field(default_factory=dict)

    def to_toml(self) -> dict[str, object]:
        out: dict[str, object] = {"fixture": self.fixture, "requiredTools": list(self.required_tools)}
        if self.maximum_model_calls is not None:
            out["maximumModelCalls"] = self.maximum_model_calls
        if self.maximum_tokens is not None:
            out["maximumTokens"] = self.maximum_tokens
        if self.maximum_attempts_by_tool:
            out["maximumAttemptsByTool"] = dict(sorted(self.maximum_attempts_by_tool.items()))
        return out


@dataclass
class BaselineFile:
    baselines: dict[str, TraceBaseline] = field(default_factory=dict)  # by fixture, file order
    slack: dict[str, Slack] = field(default_factory=lambda: dict(DEFAULT_SLACK))
    slack_overrides: dict[str, dict[str, float]] = field(default_factory=dict)  # as written, for rewriting
    single: bool = False  # the file holds one top-level baseline (kept that way when rewriting one fixture)
    warnings_since: dict[str, dict[str, dt.date]] = field(default_factory=dict)  # fixture -> rule id -> day
    stale_after_days: int | None = None  # None: DEFAULT_STALE_DAYS (and not written back)
    distribution: DistributionSection | None = None  # [distribution] (distribution.py), for real runs


@dataclass
class BaselineLoad:
    file: BaselineFile | None
    error: str | None = None


@dataclass
class TraceMetrics:
    model_calls: int
    tokens: float | int | None  # None when some model step lacks usage (never counted as zero)
    missing_usage: int
    attempts_by_tool: dict[str, int]


def trace_metrics(cols: TraceColumns, facts: Facts | None = None) -> TraceMetrics:
    facts = facts or Facts(cols)
    missing, total = facts.token_usage()
    is_tool = [k in TOOL_KINDS for k in cols.kinds]
    attempts: dict[str, int] = {}
    for name, attempt in zip(compress(cols.names, is_tool), compress(cols.attempts, is_tool), strict=True):
        value = 1 if attempt is None else attempt
        if value > attempts.get(name, 0):
            attempts[name] = value
    return TraceMetrics(cols.kinds.count("model"), None if missing else total, missing, attempts)


# --- loading -----------------------------------------------------------------------------------------


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


def _parse_baseline(table: object, where: str) -> tuple[TraceBaseline | None, str | None]:
    if not isinstance(table, dict):
        return None, f"{where}: must be a table"
    allowed = ("fixture", "requiredTools", "maximumModelCalls", "maximumTokens", "maximumAttemptsByTool")
    for key in table:
        if key not in allowed:
            return None, f"{where}: unknown key '{key}' (allowed: {', '.join(allowed)})"
    fixture = table.get("fixture")
    if not isinstance(fixture, str) or not fixture:
        return None, f"{where}: key 'fixture' must be a non-empty string"
    tools = table.get("requiredTools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        return None, f"{where}: key 'requiredTools' must be an array of strings"
    calls = table.get("maximumModelCalls")
    if calls is not None and not (isinstance(calls, int) and _is_num(calls)):
        return None, f"{where}: key 'maximumModelCalls' must be an integer ≥ 0"
    tokens = table.get("maximumTokens")
    if tokens is not None and not _is_num(tokens):
        return None, f"{where}: key 'maximumTokens' must be a number ≥ 0"
    attempts = table.get("maximumAttemptsByTool", {})
    if not isinstance(attempts, dict) or not all(isinstance(v, int) and _is_num(v) for v in attempts.values()):
        return None, f"{where}: key 'maximumAttemptsByTool' must be a table of tool name = integer ≥ 0"
    return TraceBaseline(fixture, list(tools), calls, tokens, dict(attempts)), None


def _parse_slack(data: object, path: str) -> tuple[dict[str, Slack], dict[str, dict[str, float]], str | None]:
    slack = dict(DEFAULT_SLACK)
    if data is None:
        return slack, {}, None
    if not isinstance(data, dict):
        return slack, {}, f"{path}: key 'slack' must be a table"
    for metric, value in data.items():
        if metric not in METRIC_SLACK_KEYS:
            return slack, {}, f"{path}: slack: unknown metric '{metric}' (allowed: {', '.join(METRIC_SLACK_KEYS)})"
        if not isinstance(value, dict) or set(value) - {"abs", "rel"} or not all(_is_num(v) for v in value.values()):
            return slack, {}, f"{path}: slack.{metric}: expected {{ abs = number ≥ 0, rel = number ≥ 0 }}"
        base = DEFAULT_SLACK[metric]
        slack[metric] = Slack(value.get("abs", base.abs), value.get("rel", base.rel))
    return slack, {k: dict(v) for k, v in data.items()}, None


def _parse_warning_ages(
    since: object, stale: object, path: str
) -> tuple[dict[str, dict[str, dt.date]], int | None, str | None]:
    if stale is not None and not (isinstance(stale, int) and not isinstance(stale, bool) and stale >= 0):
        return {}, None, f"{path}: key 'staleAfterDays' must be an integer ≥ 0"
    if since is None:
        return {}, stale, None
    if not isinstance(since, dict):
        return {}, None, f"{path}: key 'warningsSince' must be a table of fixture = {{ rule id = date }}"
    out: dict[str, dict[str, dt.date]] = {}
    for fixture, rules in since.items():
        if not isinstance(rules, dict) or not all(
            isinstance(d, dt.date) and not isinstance(d, dt.datetime) for d in rules.values()
        ):
            return {}, None, f"{path}: warningsSince.{fixture}: expected {{ \"rule@1\" = YYYY-MM-DD }}"
        out[fixture] = dict(rules)
    return out, stale, None


def parse_baseline(text: str, path: str = "baseline.toml") -> BaselineLoad:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return BaselineLoad(None, f"{path}: invalid TOML: {exc}")
    slack, overrides, error = _parse_slack(data.pop("slack", None), path)
    if error:
        return BaselineLoad(None, error)
    since, stale, error = _parse_warning_ages(data.pop("warningsSince", None), data.pop("staleAfterDays", None), path)
    if error:
        return BaselineLoad(None, error)
    from tftui.trace.distribution import parse_distribution  # it builds on this module's Slack

    distribution, error = parse_distribution(data.pop("distribution", None), path)
    if error:
        return BaselineLoad(None, error)
    out = BaselineFile(slack=slack, slack_overrides=overrides, warnings_since=since, stale_after_days=stale,
                       distribution=distribution)
    if "baselines" in data:
        extra = [k for k in data if k != "baselines"]
        if extra:
            return BaselineLoad(None, f"{path}: unknown top-level key '{extra[0]}' beside [[baselines]]")
        tables = data["baselines"]
        if not isinstance(tables, list):
            return BaselineLoad(None, f"{path}: 'baselines' must be an array of tables ([[baselines]])")
        for i, table in enumerate(tables, start=1):
            baseline, error = _parse_baseline(table, f"{path}: baselines[{i}]")
            if baseline is None:
                return BaselineLoad(None, error)
            if baseline.fixture in out.baselines:
                return BaselineLoad(None, f"{path}: baselines[{i}]: duplicate fixture '{baseline.fixture}'")
            out.baselines[baseline.fixture] = baseline
    elif data:
        baseline, error = _parse_baseline(data, path)
        if baseline is None:
            return BaselineLoad(None, error)
        out.baselines[baseline.fixture] = baseline
        out.single = True
    return BaselineLoad(out)


def load_baseline(path: str | Path, *, missing_ok: bool = False) -> BaselineLoad:
    """Read a baseline file; with `missing_ok` (for --update-baseline) a missing file is an empty baseline."""
    p = Path(path)
    if missing_ok and not p.exists():
        return BaselineLoad(BaselineFile())
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return BaselineLoad(None, f"cannot read baseline {path}: {exc.strerror if isinstance(exc, OSError) else exc}")
    return parse_baseline(text, str(path))


# --- comparison ----------------------------------------------------------------------------------------


def is_regression(current: float, baseline: float, slack: Slack) -> bool:
    delta = current - baseline
    return delta > slack.abs and delta > slack.rel * baseline


def _entry(
    metric: str,
    baseline: float | str | None,
    current: float | str | None,
    slack: Slack | None,
    regression: bool,
    message: str,
) -> BaselineEntry:
    deltas: _Deltas = {}
    if isinstance(baseline, (int, float)) and isinstance(current, (int, float)):
        deltas["delta"] = current - baseline
    if slack is not None:
        deltas["absSlack"] = slack.abs
        deltas["relSlack"] = slack.rel
    return {
        "metric": metric,
        "baseline": baseline,
        "current": current,
        **deltas,
        "regression": regression,
        "message": message,
    }


def _numeric(metric: str, label: str, base: float, cur: float, slack: Slack) -> BaselineEntry:
    bad = is_regression(cur, base, slack)
    delta = cur - base
    sign = "+" if delta >= 0 else ""
    verdict = "exceeds" if bad else "within"
    message = (
        f"{label} {num_text(cur)} vs baseline {num_text(base)} ({sign}{num_text(delta)}) {verdict} slack "
        f"(abs {num_text(slack.abs)}, rel {num_text(slack.rel)})"
    )
    return _entry(metric, base, cur, slack, bad, message)


def compare(baseline: TraceBaseline | None, metrics: TraceMetrics, tools_present: set[str],
            slack: dict[str, Slack]) -> list[BaselineEntry]:
    """Comparison entries for one trace; `regression: true` entries fail the gate (exit 1)."""
    if baseline is None:
        return [_entry("baseline", None, None, None, False,
                       "no baseline for this fixture (run with --update-baseline to record one)")]
    entries: list[BaselineEntry] = []
    for tool in baseline.required_tools:
        present = tool in tools_present
        entries.append(_entry(f"requiredTool:{tool}", "present", "present" if present else "missing", None,
                              not present, f"required tool {tool} " + ("ran" if present else "did not run")))
    if baseline.maximum_model_calls is not None:
        entries.append(_numeric("modelCalls", "model calls", baseline.maximum_model_calls,
                                metrics.model_calls, slack["modelCalls"]))
    if baseline.maximum_tokens is not None:
        if metrics.tokens is None:
            entries.append(_entry("tokens", baseline.maximum_tokens, None, slack["tokens"], True,
                                  f"Model usage is missing on {metrics.missing_usage} model step(s); "
                                  "tokens cannot be compared"))
        else:
            entries.append(_numeric("tokens", "tokens", baseline.maximum_tokens, metrics.tokens, slack["tokens"]))
    for tool, limit in baseline.maximum_attempts_by_tool.items():
        current = metrics.attempts_by_tool.get(tool, 0)
        entries.append(_numeric(f"attempts:{tool}", f"{tool} attempts", limit, current, slack["attempts"]))
    return entries


# --- update ------------------------------------------------------------------------------------------


def baseline_from_metrics(fixture: str, metrics: TraceMetrics, previous: TraceBaseline | None) -> TraceBaseline:
    """The baseline the current run would write. Unmeasured tokens keep the previous figure (never 0)."""
    tokens = metrics.tokens if metrics.tokens is not None else (previous.maximum_tokens if previous else None)
    return TraceBaseline(
        fixture=fixture,
        required_tools=sorted(metrics.attempts_by_tool),
        maximum_model_calls=metrics.model_calls,
        maximum_tokens=tokens,
        maximum_attempts_by_tool=dict(metrics.attempts_by_tool),
    )


def warning_ages(file: BaselineFile, fixture: str, warning_ids: list[str], today: dt.date) -> list[WarningAgeJSON]:
    """The age of each firing warning: since the day the baseline recorded it, or new today."""
    recorded = file.warnings_since.get(fixture, {})
    stale_days = DEFAULT_STALE_DAYS if file.stale_after_days is None else file.stale_after_days
    out: list[WarningAgeJSON] = []
    for rule_id in warning_ids:
        since = recorded.get(rule_id, today)
        age = max((today - since).days, 0)
        out.append({"ruleId": rule_id, "firstSeen": since.isoformat(), "ageDays": age, "stale": age > stale_days,
                    "recorded": rule_id in recorded})
    return out


def record_warnings(file: BaselineFile, fixture: str, warning_ids: list[str], today: dt.date) -> None:
    """--update-baseline: keep the first day of warnings still firing, add new ones, forget the rest."""
    recorded = file.warnings_since.get(fixture, {})
    current = {rule_id: recorded.get(rule_id, today) for rule_id in warning_ids}
    if current:
        file.warnings_since[fixture] = current
    else:
        file.warnings_since.pop(fixture, None)


def dump_baseline(file: BaselineFile) -> str:
    data: dict[str, object] = {}
    if file.single and len(file.baselines) == 1:
        data.update(next(iter(file.baselines.values())).to_toml())
    else:
        data["baselines"] = [b.to_toml() for b in file.baselines.values()]
    if file.slack_overrides:
        data["slack"] = file.slack_overrides
    if file.stale_after_days is not None:
        data["staleAfterDays"] = file.stale_after_days
    if file.distribution is not None:
        data["distribution"] = file.distribution.to_toml()
    if file.warnings_since:
        data["warningsSince"] = {f: dict(sorted(r.items())) for f, r in sorted(file.warnings_since.items())}
    return HEADER + tomli_w.dumps(data)
