"""The gate tab's text (pure; Rich Text, no widgets): one evaluation of a gate.

Left pane: where we are in the history (`evaluation 2/3 (re-run 1 · first evaluation)`),
the verdict and its source, the arithmetic line, why an onBlock round started, then
the scorer table. Right pane: the exact judge (or gate task) prompt sent and the raw
reply. Records come from `tftui.engine.gate_history.GateHistoryBuilder`.
"""

from __future__ import annotations

from rich.text import Text

from tftui.engine.gate_history import GateRecord
from tftui.lang.values import js_number_str
from tftui.present.gates import arithmetic_line, evaluation_label, round_cause, verdict_line
from tftui.present.status import mark
from tftui.present.terminal import term_line
from tftui.verbs import key_said


def keys_hint(keymap: dict[str, str] | None = None) -> str:
    """`, . history · r re-run · w what-if`, with the keys as bound."""
    return (f"{key_said('gate_prev', keymap)} {key_said('gate_next', keymap)} history · "
            f"{key_said('rerun_gate', keymap)} re-run · {key_said('what_if', keymap)} what-if")


VERDICT_TYPES = ("gate", "approval")  # the phase types whose evaluations emit a gate verdict
NAME_WIDTH = 22
TYPE_WIDTH = 12
NARROW = 56  # pane width under which the scorer table drops its type/pass columns


def history_label(records: list[GateRecord], index: int) -> str:
    """`evaluation 2/3 (re-run 1 · first evaluation)`."""
    rec = records[index]
    return f"evaluation {index + 1}/{len(records)} ({evaluation_label(rec)})"


def _weight(value: float | None) -> str:
    return "" if value is None else js_number_str(value)


def _cut(text: str, width: int) -> str:
    """A table cell: one line (a newline in a scorer's name cannot break the row), cut to `width`."""
    text = term_line(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def scorer_table(rec: GateRecord, width: int = 80) -> Text:
    """Aligned columns: mark, name, type, passed, score, weight; each detail on its own line.

    Under NARROW columns (the detail pane at 80 columns) the type and pass columns are
    dropped (the mark says pass/fail) and a failing row's detail names its type.
    """
    out = Text()
    if not rec.rows:
        out.append("(no scorers evaluated)\n", style="italic")
        return out
    if width < NARROW:
        return _narrow_table(rec, width)
    name_w = min(NAME_WIDTH, max(4, *(len(term_line(r.name)) for r in rec.rows)))
    type_w = min(TYPE_WIDTH, max(4, *(len(term_line(r.type)) for r in rec.rows)))
    weighted = any(r.weight is not None for r in rec.rows)
    head = f"  {'name':<{name_w}} {'type':<{type_w}} pass score" + (" weight" if weighted else "")
    out.append(head + "\n", style="bold")
    for row in rec.rows:
        out.append(f"{mark('ok' if row.passed else 'no')} ", style="bold green" if row.passed else "bold red")
        out.append(f"{_cut(row.name, name_w):<{name_w}} {_cut(row.type, type_w):<{type_w}} ")
        out.append(f"{'yes' if row.passed else 'no':<4} {row.score:<5}")
        if weighted:
            out.append(f" {_weight(row.weight)}")
        out.append("\n")
        if row.detail:
            out.append(f"    {row.detail}\n", style="dim")
    return out


def _narrow_table(rec: GateRecord, width: int) -> Text:
    out = Text()
    name_w = max(4, min(max(len(term_line(r.name)) for r in rec.rows), width - 14))
    weighted = any(r.weight is not None for r in rec.rows)
    out.append(f"  {'name':<{name_w}} score" + (" weight" if weighted else "") + "\n", style="bold")
    for row in rec.rows:
        out.append(f"{mark('ok' if row.passed else 'no')} ", style="bold green" if row.passed else "bold red")
        out.append(f"{_cut(row.name, name_w):<{name_w}} {row.score:<5}")
        if weighted:
            out.append(f" {_weight(row.weight)}")
        out.append("\n")
        if row.detail:
            out.append(f"    {term_line(row.type)}: {row.detail}\n", style="dim")
    return out


def summary(rec: GateRecord, records: list[GateRecord], index: int) -> Text:
    """Header, verdict, arithmetic and (for onBlock rounds) why the round started."""
    out = Text()
    out.append(f"{rec.phase_id} · {history_label(records, index)}\n", style="bold")
    verdict_style = "bold green" if rec.verdict == "pass" else "bold red"
    out.append(verdict_line(rec) + "\n", style=verdict_style)
    out.append(arithmetic_line(rec) + "\n")
    if rec.round or rec.block_reason:
        before = records[index - 1] if index > 0 else None
        cause = round_cause(rec.block_reason, before.output if before is not None else None, index)
        out.append(f"round started {cause}\n", style="italic")
    if rec.rerun:
        out.append(f"re-ran upstream first: {', '.join(rec.rerun)}\n", style="italic")
    return out


def model_call(rec: GateRecord) -> Text:
    """The judge's (or the gate task's) exact prompt and raw reply."""
    out = Text()
    if rec.judge_prompt is not None:
        out.append(f"Judge prompt sent ({rec.phase_id}#judge)\n", style="bold")
        out.append(rec.judge_prompt + "\n\n")
        out.append("Judge reply\n", style="bold")
        out.append(rec.judge_reply if rec.judge_reply is not None else "(no reply: the call failed)")
    elif rec.task_prompt is not None:
        out.append(f"Gate task prompt sent ({rec.phase_id})\n", style="bold")
        out.append(rec.task_prompt + "\n\n")
        out.append("Gate task reply\n", style="bold")
        out.append(rec.task_reply if rec.task_reply is not None else "(no reply: the call failed)")
    else:
        out.append("No judge call", style="bold")
        out.append(f" — decided by {rec.source or 'the scorers'} (zero tokens).", style="italic")
    return out


def panes(
    pid: str, records: list[GateRecord], index: int | None, width: int = 80, phase_type: str | None = None,
    keymap: dict[str, str] | None = None,
) -> tuple[Text, Text]:
    """(left, right) for the gate tab; `index` None shows the latest evaluation."""
    if not records and phase_type is not None and phase_type not in VERDICT_TYPES:
        # "not evaluated yet … r re-runs this gate" on an agent phase sent people looking for a gate run
        return Text(f"{pid} is a phase of type {phase_type}: it has no gate verdict. Select a gate "
                    "(or approval) phase to see its scorers, judge and evaluation history.\n", style="italic"), Text("")
    if not records:
        left = Text(f"{pid}: not evaluated yet — {key_said('run', keymap)} runs the flow, "
                    f"{key_said('rerun_gate', keymap)} re-runs this gate.\n", style="italic")
        left.append(keys_hint(keymap), style="dim")
        return left, Text("")
    at = len(records) - 1 if index is None else max(0, min(index, len(records) - 1))
    rec = records[at]
    left = summary(rec, records, at)
    left.append("\n")
    left.append("Scorers\n", style="bold")
    left.append_text(scorer_table(rec, width))
    left.append("\n" + keys_hint(keymap), style="dim")
    return left, model_call(rec)
