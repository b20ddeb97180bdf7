"""Gate reports (docs/trace-gates.md §5): evaluate a trace, then write the result as JSON and Markdown.

`evaluate_trace` is the whole pipeline for one trace: integrity (docs/trace-gates.md §4) → normalize (docs/trace-gates.md §1)
→ rules (docs/trace-gates.md §3). An integrity failure yields a report with `error` set and no results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NotRequired, TypedDict

from tftui.trace.baseline import BaselineEntry, WarningAgeJSON
from tftui.trace.columns import TraceColumns
from tftui.trace.distribution import (
    DistributionJSON,
    DistributionSection,
    compare_distribution,
    histogram_lines,
    sparkline,
)
from tftui.trace.integrity import check_columns, integrity_error
from tftui.trace.normalize import normalize_columns
from tftui.trace.rules import EvidenceValue, Rule, RuleResult, RuleResultJSON, evaluate_rules, num_text

if TYPE_CHECKING:
    from tftui.trace.model import AgentTrace

REPORT_SCHEMA_VERSION = 1
_TABLE_MESSAGE_MAX = 160  # the table stays readable; the bullets and the JSON keep the whole message


class GateReportJSON(TypedDict):
    """report.json for one trace (docs/trace-gates.md §5)."""

    schemaVersion: int
    fixture: str
    passed: bool
    failures: list[RuleResultJSON]
    warnings: list[RuleResultJSON]
    results: list[RuleResultJSON]
    rules: list[str]
    tracePath: str | None
    baseline: list[BaselineEntry] | None
    error: str | None
    baselinePassed: NotRequired[bool]
    warningAges: NotRequired[list[WarningAgeJSON]]
    distribution: NotRequired[DistributionJSON]


class GateReportsJSON(TypedDict):
    """report.json for several traces."""

    schemaVersion: int
    passed: bool
    reports: list[GateReportJSON]


@dataclass
class GateReport:
    fixture: str
    results: list[RuleResult] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # "<id>@<version>", in evaluation order
    trace_path: str | None = None
    error: str | None = None  # instrumentation error: "trace integrity: …" / "trace parse: …"
    baseline: list[BaselineEntry] | None = None  # comparison entries (baseline.py), None without --baseline
    normalized: TraceColumns | None = None  # the trace the rules saw (not serialized into the report)
    baseline_updated: bool = False  # --update-baseline accepted the current metrics: no regression fails
    warning_ages: list[WarningAgeJSON] | None = None  # with a baseline: how long each warning has fired
    distribution: DistributionJSON | None = None  # a fixture's distribution report (many traces, profile real)

    def warning_age(self, rule_id: str) -> WarningAgeJSON | None:
        return next((a for a in self.warning_ages or [] if a["ruleId"] == rule_id), None)

    @property
    def failures(self) -> list[RuleResult]:
        return [r for r in self.results if not r.passed and r.severity == "error"]

    @property
    def warnings(self) -> list[RuleResult]:
        return [r for r in self.results if not r.passed and r.severity == "warning"]

    @property
    def passed(self) -> bool:
        """docs/trace-gates.md §5: no error-severity failure (and, tftui, the trace could be evaluated at all)."""
        return self.error is None and not self.failures

    @property
    def regressions(self) -> list[BaselineEntry]:
        """Baseline regressions that fail the gate (none once the baseline was just updated)."""
        if self.baseline_updated:
            return []
        return [e for e in self.baseline or [] if e.get("regression")]

    @property
    def gate_passed(self) -> bool:
        """What CI acts on: rules passed and no baseline regression."""
        return self.passed and not self.regressions

    @property
    def exit_code(self) -> int:
        """docs/trace-gates.md §7 for this one trace: 3 instrumentation error, 1 failure or regression, 0 pass."""
        if self.error is not None:
            return 3
        return 0 if self.gate_passed else 1

    def to_json(self) -> GateReportJSON:
        out: GateReportJSON = {
            "schemaVersion": REPORT_SCHEMA_VERSION,
            "fixture": self.fixture,
            "passed": self.passed,
            "failures": [r.to_json() for r in self.failures],
            "warnings": [r.to_json() for r in self.warnings],
            "results": [r.to_json() for r in self.results],
            "rules": list(self.rules),
            "tracePath": self.trace_path,
            "baseline": self.baseline,
            "error": self.error,
        }
        if self.baseline is not None:
            out["baselinePassed"] = not self.regressions
        if self.warning_ages is not None:
            out["warningAges"] = list(self.warning_ages)
        if self.distribution is not None:
            out["distribution"] = self.distribution
        return out


def evaluate_trace(
    trace: AgentTrace | TraceColumns,
    rules: list[Rule] | tuple[Rule, ...],
    *,
    trace_path: str | None = None,
    fake_clock: bool | None = None,
) -> GateReport:
    """Integrity → normalize → rules. Never raises; an untrustworthy trace gives `error`, not results."""
    rule_ids = [r.rule_id for r in rules]
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    problems = check_columns(cols)
    if problems:
        return GateReport(cols.fixture, rules=rule_ids, trace_path=trace_path, error=integrity_error(problems))
    normalized = normalize_columns(cols, fake_clock=fake_clock)
    results = evaluate_rules(normalized, rules)
    return GateReport(cols.fixture, results, rule_ids, trace_path, normalized=normalized)


def distribution_report(fixture: str, samples: list[dict[str, float]], section: DistributionSection | None,
                        rules: list[Rule]) -> GateReport:
    """One report for all the traces of a fixture: each distribution rule compares their samples
    with the baseline's [distribution] entry. Too few samples: "not enough samples", passing."""
    results: list[RuleResult] = []
    shown: DistributionJSON | None = None
    for rule in rules:
        metrics = getattr(rule, "metrics", ())
        dist = compare_distribution(fixture, samples, section, tuple(metrics))
        shown = shown or dist
        n, base, minimum = dist["samples"], dist["baselineSamples"], dist["minSamples"]
        bad = [m for m in dist["metrics"] if m["regression"]]
        evidence: dict[str, EvidenceValue] = {"samples": n, "minSamples": minimum, "regressions": len(bad)}
        if base is None:
            results.append(rule.result(True, f"No distribution baseline for {fixture}: nothing compared "
                                             "(record one with --update-baseline)", evidence))
        elif not dist["enoughSamples"]:
            results.append(rule.result(True, f"Not enough samples: {n} runs now, {base} in the baseline, "
                                             f"{minimum} needed; the distribution is not checked", evidence))
        elif bad:
            first = bad[0]
            evidence.update({"metric": first["metric"], "currentP95": first["current"]["p95"],
                             "baselineP95": (first["baseline"] or {}).get("p95", 0)})
            results.append(rule.result(False, "Distribution regressed: " + "; ".join(m["message"] for m in bad),
                                       evidence, fix="Find what made these runs slower or costlier; if the change "
                                       "is accepted, record the new distribution with --update-baseline."))
        else:
            results.append(rule.result(True, f"{len(dist['metrics'])} metrics within slack over {n} runs", evidence))
    return GateReport(fixture, results, [r.rule_id for r in rules], f"{len(samples)} traces", distribution=shown)


def error_report(fixture: str, error: str, rules: list[Rule] | tuple[Rule, ...], trace_path: str | None) -> GateReport:
    """A report for a trace that could not even be read (parse or schema error)."""
    return GateReport(fixture, rules=[r.rule_id for r in rules], trace_path=trace_path, error=error)


# --- Markdown ------------------------------------------------------------------------------------------


def _value_text(value: EvidenceValue | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return num_text(value)
    return str(value)


def evidence_text(evidence: Mapping[str, EvidenceValue | None] | None) -> str:
    """`key=value, key=value` (docs/trace-gates.md §5)."""
    if not evidence:
        return ""
    return ", ".join(f"{k}={_value_text(v)}" for k, v in evidence.items())


def _cell(text: str) -> str:
    """A Markdown table cell: one line, pipes escaped (signatures contain `|`), long text cut."""
    text = " ".join(text.split())
    if len(text) > _TABLE_MESSAGE_MAX:
        text = text[: _TABLE_MESSAGE_MAX - 1] + "…"
    return text.replace("|", "\\|")


def age_text(age: WarningAgeJSON) -> str:
    """`firing for 12 days (since 2026-03-01), stale` — shown beside a warning."""
    days = age["ageDays"]
    text = "new today" if days == 0 else f"firing for {days} day{'' if days == 1 else 's'} (since {age['firstSeen']})"
    if age["stale"]:
        text += ", STALE: act on it (fix, make it an error, or remove the rule)"
    return text


def _status_word(report: GateReport) -> str:
    if report.error is not None:
        return "ERROR"
    return "PASS" if report.gate_passed else "FAIL"


def report_markdown(report: GateReport, *, heading: str = "###") -> str:
    """Short Markdown for a pull request or CI log."""
    lines = [f"{heading} tftui gate: {report.fixture} — {_status_word(report)}", ""]
    if report.error is not None:
        lines.append(f"**Instrumentation error:** {report.error}")
        lines.append("")
        lines.append("The trace is not trustworthy, so no rule was evaluated. Fix the recorder, not the rules.")
    else:
        lines.append("| Rule | Severity | Result | Message |")
        lines.append("|---|---|---|---|")
        for r in report.results:
            result = "pass" if r.passed else ("**FAIL**" if r.severity == "error" else "warn")
            lines.append(f"| `{r.rule_id}` | {r.severity} | {result} | {_cell(r.message)} |")
        problems = report.failures + report.warnings
        if problems:
            lines.append("")
            for r in problems:
                label = "failure" if r.severity == "error" else "warning"
                bullet = f"- **{r.rule_id}** ({label}): {r.message}"
                evidence = evidence_text(r.evidence)
                if evidence:
                    bullet += f" — evidence: {evidence}"
                if r.fix:
                    bullet += f". Fix: {r.fix}"
                age = report.warning_age(r.rule_id) if r.severity == "warning" else None
                if age is not None:
                    bullet += f" — age: {age_text(age)}"
                lines.append(bullet)
    if report.baseline:
        lines.append("")
        lines.append("| Baseline metric | Baseline | Current | Result |")
        lines.append("|---|---|---|---|")
        for e in report.baseline:
            if not e.get("regression"):
                result = "ok"
            else:
                result = "accepted (baseline updated)" if report.baseline_updated else "**REGRESSION**"
            lines.append(
                f"| {_cell(str(e['metric']))} | {_cell(_value_text(e.get('baseline')))} | "
                f"{_cell(_value_text(e.get('current')))} | {result} |"
            )
        for e in report.regressions:
            lines.append(f"- **baseline {e['metric']}**: {e['message']}")
    if report.distribution is not None:
        lines.extend(_distribution_markdown(report.distribution))
    lines.append("")
    if report.distribution is not None:
        lines.append(f"Traces: {report.trace_path}")
    else:
        lines.append(f"Normalized trace: `{report.trace_path}`" if report.trace_path
                     else "Normalized trace: (not written)")
    return "\n".join(lines) + "\n"


def _distribution_markdown(dist: DistributionJSON) -> list[str]:
    lines = ["", f"Distribution of {dist['samples']} runs (baseline: {dist['baselineSamples'] or 0} runs, "
             f"at least {dist['minSamples']} needed)", "",
             "| Metric | Baseline median / p95 | Current median / p95 | Runs | Result |", "|---|---|---|---|---|"]
    for m in dist["metrics"]:
        base = m["baseline"]
        base_text = f"{num_text(base['median'])} / {num_text(base['p95'])}" if base else "—"
        result = "**REGRESSION**" if m["regression"] else ("not enough samples" if base and not dist["enoughSamples"]
                                                           else "ok" if base else "no baseline")
        lines.append(f"| {m['metric']} | {base_text} | {num_text(m['current']['median'])} / "
                     f"{num_text(m['current']['p95'])} | `{sparkline(m['histogram'])}` | {result} |")
    for m in dist["metrics"]:
        if m["regression"]:
            lines.append("")
            lines.append(f"{m['metric']}: where the current runs fall")
            lines.append("```")
            lines.extend(histogram_lines(m))
            lines.append("```")
    return lines


def reports_markdown(reports: list[GateReport]) -> str:
    if len(reports) == 1:
        return report_markdown(reports[0])
    passed = sum(1 for r in reports if r.gate_passed)
    head = f"## tftui gate — {passed}/{len(reports)} fixtures passed\n\n"
    return head + "\n".join(report_markdown(r) for r in reports)


def reports_json(reports: list[GateReport]) -> GateReportJSON | GateReportsJSON:
    """One trace: the report itself. Several: `{schemaVersion, passed, reports: [...]}`."""
    if len(reports) == 1:
        return reports[0].to_json()
    return {
        "schemaVersion": REPORT_SCHEMA_VERSION,
        "passed": all(r.gate_passed for r in reports),
        "reports": [r.to_json() for r in reports],
    }
