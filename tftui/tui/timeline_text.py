"""The Calls tab's text (pure): every attempt of a phase and, for gates, the onBlock rounds.

Built from `tftui.engine.timeline.PhaseTimeline` (events, so re-runs and onBlock rounds
keep every attempt). Each attempt shows its prompt, output, error, whether it was
transient and why, and the wait after it (the time really waited; the planned backoff when
fast-forward cut it short). The diff view (`D`) replaces the
bodies with a unified diff of each output against the previous attempt of the same
node, and of each onBlock round's output against the previous round.
"""

from __future__ import annotations

from rich.text import Text

from tftui.engine.timeline import AttemptRow, PhaseTimeline, RoundInfo
from tftui.present.gates import round_cause
from tftui.present.timeline import (
    attempt_label,
    attempt_mark,
    evaluation_strip,
    not_retried_text,
    output_diff,
    retry_text,
    round_mark,
    transient_why,
)

PROMPT_LINES = 8  # the full prompt is in the Prompt tab


# A 1,000-item map makes 1,000+ attempts: drawing them all (3,000+ lines, rebuilt ~10 times a
# second during a run) would stall the keyboard; the latest ones are what a debugger shows.
MAX_ATTEMPTS_SHOWN = 40


def _block(label: str, text: str | None, out: Text, *, max_lines: int | None = None, style: str = "") -> None:
    if text is None:
        return
    lines = text.splitlines() or [""]
    shown = lines if max_lines is None else lines[:max_lines]
    out.append(f"   {label}: ", style="bold")
    out.append(shown[0] + "\n", style=style)
    for line in shown[1:]:
        out.append(f"      {line}\n", style=style)
    if len(lines) > len(shown):
        out.append(f"      … ({len(lines) - len(shown)} more lines; full text in the Prompt tab)\n", style="dim")


def _attempt_head(row: AttemptRow) -> str:
    where = []
    if row.run:
        where.append(f"run {row.run + 1}")
    if row.round:
        where.append(f"onBlock round {row.round}")
    extra = f"  ({', '.join(where)})" if where else ""
    return f"── {attempt_label(row)} {attempt_mark(row)}{extra}\n"


def _attempt_body(row: AttemptRow, out: Text) -> None:
    if row.error:
        out.append("   error: ", style="bold")
        out.append(row.error + "\n", style="red")
        why = transient_why(row) or ("transient" if row.transient else "not transient")
        out.append(f"   {why}\n")
    retried = retry_text(row) or not_retried_text(row)
    if retried:
        out.append(f"   {retried}\n")
    _block("prompt", row.prompt, out, max_lines=PROMPT_LINES, style="dim")
    if row.output:
        _block("output", row.output, out)


def _round_line(info: RoundInfo, previous: RoundInfo | None = None) -> str:
    text = f"   evaluation {info.number}{round_mark(info)}"
    if info.round:
        text += f" (onBlock round {info.round})"
    if info.round or info.reason:
        text += f" — started {round_cause(info.reason, previous.output if previous else None, info.number - 1)}"
    if info.rerun:
        text += f"; re-ran {', '.join(info.rerun)}"
    return text + "\n"


def _diff_text(before: str | None, after: str | None, label_a: str, label_b: str, out: Text) -> None:
    diff = output_diff(before, after, label_a=label_a, label_b=label_b)
    if not diff:
        out.append(f"   (same output as {label_a})\n", style="italic")
        return
    for line in diff.splitlines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        out.append(f"   {line}\n", style=style)


def calls(timeline: PhaseTimeline, *, diff: bool = False) -> Text:
    out = Text()
    if not timeline.attempts and not timeline.rounds:
        out.append("(no calls yet)\n", style="italic")
        return out
    mode = "diff vs the previous attempt (D: full view)" if diff else "D: diff vs the previous attempt"
    out.append(f"Calls: {len(timeline.attempts)}   ", style="bold")  # the count Info gives (`Calls: N`): one row a call
    out.append(mode + "\n", style="dim")
    if timeline.rounds:
        out.append(f"Evaluations: {evaluation_strip(timeline)}\n", style="bold")  # r1 in the tree = 1 rework round between 2 evaluations
        latest = max(r.run for r in timeline.rounds)
        shown = [info for info in timeline.rounds if info.run == latest]
        for prior, info in zip([None, *shown], shown, strict=False):
            out.append(_round_line(info, prior))
    previous: dict[str, AttemptRow] = {}
    rows = timeline.attempts
    first_shown = max(0, len(rows) - MAX_ATTEMPTS_SHOWN)
    if first_shown:
        out.append(
            f"… {first_shown} earlier attempts not shown (the latest {MAX_ATTEMPTS_SHOWN} are; "
            "every call is in the run's events.jsonl)\n",
            style="dim",
        )
    if diff:  # the base of a shown attempt's diff may be an attempt not shown: the latest before it
        wanted = {row.node_path for row in rows[first_shown:]}
        for row in reversed(rows[:first_shown]):  # from the newest back, until each shown node has one
            if row.node_path in wanted and row.node_path not in previous:
                previous[row.node_path] = row
                if len(previous) == len(wanted):
                    break
    for row in rows[first_shown:]:  # the full view reads only the rows it shows: its cost does not grow with the run
        out.append(_attempt_head(row), style="bold")
        prior_row = previous.get(row.node_path)
        if diff and prior_row is not None:
            if row.error:
                out.append(f"   error: {row.error}\n", style="red")
            _diff_text(prior_row.output or prior_row.error, row.output or row.error, attempt_label(prior_row),
                       attempt_label(row), out)
        else:
            _attempt_body(row, out)
        previous[row.node_path] = row
    if diff and len(timeline.rounds) > 1:
        out.append("── onBlock round outputs\n", style="bold")
        for a, b in zip(timeline.rounds, timeline.rounds[1:], strict=False):
            _diff_text(a.output, b.output, f"evaluation {a.number}", f"evaluation {b.number}", out)
    return out
