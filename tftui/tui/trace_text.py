"""The Trace tab's body (pure; no Textual): a run's normalized trace and its rule results.

The trace is `tftui.trace.record.trace_from_events` over the run's live events — the same
function that writes `trace.json` at the end of a journaled run — and the rules are the
ones `tftui gate` evaluates (`tftui.trace.report.evaluate_trace`), so what the tab shows
while debugging is what CI will say about the recorded run.

Which rule set: `--rules FILE`, else `<flow stem>.rules.toml`, else `rules.toml` beside the
flow (a directory of flows often shares one rule set; a flow-specific file wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from tftui.present.numbers import format_tokens
from tftui.present.status import glyph
from tftui.trace.columns import TraceColumns
from tftui.trace.report import GateReport, evaluate_trace, evidence_text
from tftui.trace.ruleset import RuleSetLoad, load_ruleset
from tftui.verbs import run_keys

if TYPE_CHECKING:  # the validation models: the tab itself reads the trace's columns
    from tftui.trace.model import AgentTrace

STATUS_STYLE = {"ok": "green", "error": "red", "blocked": "yellow", "cancelled": "dim"}
# A Static with thousands of lines takes ~200 ms to lay out: the tab shows at most this many
# steps (the selected phase's first when the trace is longer; trace.json has them all).
MAX_STEPS = 200


def find_rules(flow_path: str | None, explicit: str | None) -> Path | None:
    """The rule set for a flow (see the module docstring); None when there is none."""
    if explicit:
        return Path(explicit)
    if not flow_path:
        return None
    flow = Path(flow_path)
    for candidate in (flow.with_name(f"{flow.stem}.rules.toml"), flow.with_name("rules.toml")):
        if candidate.is_file():
            return candidate
    return None


@dataclass
class RulesCache:
    """A rule set, re-read only when its file changes (edit rules.toml, see the tab update)."""

    path: Path | None
    _stamp: tuple[int, int] | None = None
    _loaded: RuleSetLoad | None = None

    @property
    def stamp(self) -> tuple[int, int] | None:
        """The file's (mtime, size) when it was last read: changes when the rules are re-read."""
        return self._stamp

    def get(self) -> RuleSetLoad | None:
        if self.path is None:
            return None
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if self._loaded is None or stamp != self._stamp:
            self._stamp = stamp
            self._loaded = load_ruleset(self.path)  # never raises; a missing file is its `error`
        return self._loaded


def evaluate(trace: AgentTrace | TraceColumns, rules: RuleSetLoad | None) -> GateReport | None:
    if rules is None or rules.error:
        return None
    return evaluate_trace(trace, rules.rules)


def _tokens(input_tokens: float | None, output_tokens: float | None, short: bool = False) -> str:
    if input_tokens is None and output_tokens is None:
        return ""
    return f"{_num(input_tokens, short)}+{_num(output_tokens, short)}"


def _num(value: float | None, short: bool = False) -> str:
    """A token count; `short` (the narrow table, where every column counts): `123.5k`."""
    if value is None:
        return "?"
    if short and float(value).is_integer():
        return format_tokens(value)
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _depth(cols: TraceColumns, parents: dict[str, str | None], index: int) -> int:
    depth, seen, cur = 0, set(), cols.parent_ids[index]
    while cur is not None and cur not in seen and depth < 32:  # a bad link never loops
        seen.add(cur)
        depth += 1
        cur = parents.get(cur)
    return depth


def _mine(cols: TraceColumns, index: int, selected: str | None) -> bool:
    if selected is None:
        return False
    name = cols.names[index]
    phase = (cols.metadata[index] or {}).get("phase")
    return phase == selected or name == selected or name.startswith(selected + "/")


NARROW = 60  # below this many columns the steps table puts attempt and tokens after the name
# a trace step's status, as the tree's glyph of the phase status it means
NARROW_STATUS = {step: glyph(status) for step, status in
                 (("ok", "done"), ("error", "failed"), ("blocked", "blocked"), ("cancelled", "skipped"))}
NARROW_LEGEND = " ".join(f"{shown} {step}" for step, shown in NARROW_STATUS.items())


def steps_text(
    trace: AgentTrace | TraceColumns, *, selected: str | None = None, running: bool = False,
    max_steps: int = MAX_STEPS, width: int | None = None,
) -> Text:
    """One line per step: sequence, kind, status, attempt, tokens (in+out), name (indented by depth).
    Narrower than NARROW columns (the detail panel at 80x24): `seq ✓ kind name  a1 30+20`,
    so a row stays on one line (the status legend on a line of its own). Each column is as wide
    as its widest cell shown, so the header stands over its values.

    Read from the trace's columns (the Trace tab has them as the run goes: no model object per
    step), and only the steps shown are formatted, so a 10,000-step trace costs what 200 do but
    for one scan for the selected phase's steps."""
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    count = len(cols)
    text = Text(no_wrap=True, overflow="ellipsis")
    root_meta = cols.metadata[0] if count else None
    run_status = (root_meta or {}).get("runStatus") if count else None
    head = f"Trace {cols.fixture} · {count} steps · {cols.status}"
    if run_status:
        head += f" (run {run_status})"
    text.append(head + "\n", style="bold")
    if running:
        text.append("live: the run is in progress (unfinished steps show as cancelled)\n", style="dim")
    shown: Sequence[int] = range(count)
    if count > max_steps:
        selected_steps: list[int] = []
        if selected is not None:
            for index in range(count):
                if _mine(cols, index, selected):
                    selected_steps.append(index)
                    if len(selected_steps) == max_steps:
                        break
        shown = (selected_steps or shown)[:max_steps]
        whose = f" of {selected}" if selected_steps else ""
        word = "step" if len(shown) == 1 else "steps"
        # a live run has no trace.json yet: it is written when the run ends
        where = "the run's trace.json, once the run ends" if running else "the run's trace.json"
        text.append(f"showing {len(shown)} {word}{whose} of {count} (all of them: {where})\n", style="dim")
    narrow = width is not None and width < NARROW
    parents = dict(zip(cols.ids, cols.parent_ids, strict=True)) if shown else {}
    rows = []
    for index in shown:
        step_attempt = cols.attempts[index]
        attempt = "" if step_attempt is None else (f"a{step_attempt}" if narrow else str(step_attempt))
        name = "  " * _depth(cols, parents, index) + cols.names[index]
        tokens = _tokens(cols.input_tokens[index], cols.output_tokens[index], short=narrow)
        rows.append((index, cols.kinds[index], cols.statuses[index], attempt, tokens, name))
    # Every column as wide as its widest cell among the rows shown (and its header), so the header
    # stands over its values whatever the kinds, attempts and token counts are.
    kind_w = max([4, *(len(kind) for _, kind, *_ in rows)])
    att_w = max([3, *(len(attempt) for *_, attempt, _, _ in rows)])
    tok_w = max([6, *(len(tokens) for *_, tokens, _ in rows)])
    seq_w = max([3 if narrow else 4, *(len(str(cols.sequences[row[0]])) for row in rows)])  # a long run: 4-6 digits
    if narrow:
        # `seq ✓ kind name att tokens`: the name before the numbers, padded to one width so the
        # numbers line up; a name too long for the panel is cut (the tree has it whole), so no
        # row wraps.
        fixed = seq_w + 3 + kind_w + 1 + 2 + att_w + 1 + tok_w
        # at least 8: a panel too narrow for that gets rows a little wider than it, not "..." names
        name_w = min(max([4, *(len(row[-1]) for row in rows)]), max(8, (width or 0) - fixed))
        text.append(f"({NARROW_LEGEND})\n", style="dim")  # its own line: with the header it wraps at 80x24
        text.append(f"{'seq':>{seq_w}}   {'kind':<{kind_w}} {'name':<{name_w}}  {'att':>{att_w}} {'tokens':>{tok_w}}\n",
                    style="dim")
    else:
        text.append(f"{'seq':>{seq_w}} {'kind':<{kind_w}} {'status':<9} {'att':>{att_w}} {'tokens':>{tok_w}}  name\n",
                    style="dim")
    for index, kind, status, attempt, tokens, name in rows:
        mine = _mine(cols, index, selected)
        if narrow:
            # "..." rather than "…": --ascii folds "…" to three characters, which would push
            # this row's numbers out of their columns
            numbers = f"  {attempt:>{att_w}} {tokens:>{tok_w}}" if attempt or tokens else ""
            room = name_w if numbers else max(name_w, (width or 0) - (seq_w + 3 + kind_w + 1))  # no numbers: the row's end
            shown_name = name if len(name) <= room else name[: room - 3] + "..."
            text.append(f"{cols.sequences[index]:>{seq_w}} ")
            text.append(NARROW_STATUS.get(status, "?"), style=STATUS_STYLE.get(status, ""))
            text.append(f" {kind:<{kind_w}} ")
            text.append(f"{shown_name:<{name_w}}" if numbers else shown_name, style="bold" if mine else "")
            text.append(numbers + "\n", style="dim")
            continue
        text.append(f"{cols.sequences[index]:>{seq_w}} {kind:<{kind_w}} ")
        text.append(f"{status:<9}", style=STATUS_STYLE.get(status, ""))
        text.append(f" {attempt:>{att_w}} {tokens:>{tok_w}}  ")
        text.append(name + "\n", style="bold" if mine else "")
    return text


def rules_text(report: GateReport | None, rules: RuleSetLoad | None, rules_path: Path | None) -> Text:
    """Each rule's result: PASS/FAIL (WARN for a failing warning), rule id, severity, message, evidence."""
    text = Text()
    if rules_path is None:
        text.append("No rule set: put FLOW.rules.toml (or rules.toml) beside the flow, or open it with --rules FILE.\n", style="dim")
        return text
    if rules is not None and rules.error:
        text.append(f"Rules {rules_path}: {rules.error}\n", style="red")
        return text
    if report is None:
        return text
    if report.error is not None:
        text.append(f"Rules {rules_path}: ERROR {report.error}\n", style="red")
        return text
    failures, warnings = len(report.failures), len(report.warnings)
    verdict = "PASS" if report.passed else "FAIL"
    text.append(f"Rules {rules_path} · {verdict} · {len(report.results)} rules, ", style="bold")
    text.append(f"{failures} failure{'s' if failures != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}\n",
                style="bold")
    for result in report.results:
        if result.passed:
            word, style = "PASS", "green"
        else:
            word, style = ("FAIL", "bold red") if result.severity == "error" else ("WARN", "yellow")
        text.append(f"{word:<4}", style=style)
        text.append(f" {result.rule_id} ({result.severity}) — {result.message}\n")
        evidence = evidence_text(result.evidence)
        if evidence:
            text.append(f"     evidence: {evidence}\n", style="dim")
    return text


def history_text(history: list[dict[str, float]], current: dict[str, float] | None, *, width: int | None = None
                 ) -> Text:
    """Where this run falls among the flow's recent runs: one sparkline per metric (the
    distribution `tftui gate --profile real` judges, docs/trace-gates.md), this run's bin
    shown reversed. Empty when fewer than two recent runs have the metric."""
    from tftui.trace.distribution import bin_of, histogram, sparkline

    def num_text(value: float) -> str:
        return f"{value:.4g}"

    text = Text()
    if current is None:
        return text
    lines: list[tuple[str, str, int, str]] = []
    for metric in sorted(current):
        values = [s[metric] for s in history if metric in s]
        if len(values) < 2:
            continue
        lo, hi = min([*values, current[metric]]), max([*values, current[metric]])
        bars = sparkline(histogram(values, lo, hi))
        lines.append((metric, bars, bin_of(current[metric], lo, hi),
                      f"{num_text(lo)}–{num_text(hi)}  this run {num_text(current[metric])}"))
    if not lines:
        return text
    narrow = width is not None and width < NARROW  # the detail panel at 80x24: no range, short head
    head = f"Recent runs ({len(history)}), this run marked" if narrow \
        else f"Recent runs of this flow ({len(history)}): where this run falls"
    text.append(head + "\n", style="bold")
    name_width = max(len(metric) for metric, *_ in lines)
    for metric, bars, mine, note in lines:
        text.append(f"  {metric:<{name_width}} ")
        for i, ch in enumerate(bars):
            text.append(ch if ch != " " else "·" if i == mine else " ", style="reverse bold" if i == mine else "")
        text.append(f" {note.rsplit('this run ', 1)[-1]}\n" if narrow else f"  {note}\n", style="dim")
    return text


def trace_tab(
    trace: AgentTrace | TraceColumns | None,
    report: GateReport | None,
    rules: RuleSetLoad | None,
    rules_path: Path | None,
    *,
    selected: str | None = None,
    running: bool = False,
    width: int | None = None,
    history: Text | None = None,
    keymap: dict[str, str] | None = None,
) -> Text:
    if trace is None:
        return Text(f"No run yet: the trace appears here as the run goes ({run_keys(keymap)}).")
    body = rules_text(report, rules, rules_path)
    body.append("\n")
    if history is not None and history.plain:
        body.append_text(history)
        body.append("\n")
    body.append_text(steps_text(trace, selected=selected, running=running, width=width))
    return body
