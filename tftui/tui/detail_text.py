"""The text of each detail tab for one phase (pure; Rich Text, no Textual widgets).

Kept apart from the widget so tests can check wording and the widget stays a
thin container.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any

from rich.text import Text

from tftui import present
from tftui.engine.state import PhaseState
from tftui.flow.model import PhaseBase
from tftui.lang.values import MISSING
from tftui.present.terminal import term_line
from tftui.verbs import key_said

LIVE_PANEL_CHARS = 2000  # of an answer streaming in, the panel shows the newest this many characters


def _plain(value: Any) -> Any:
    if value is MISSING:
        return None
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not MISSING}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def to_json_text(value: Any) -> str:
    return json.dumps(_plain(value), indent=2, ensure_ascii=False, default=str)


# Shown elsewhere in the overview (or in the prompt tab): not repeated in the field list.
_OMIT_FIELDS = {"id", "type", "task", "dependsOn", "from", "join", "optional", "final", "when", "name", "description"}


def phase_fields(spec: PhaseBase, width: int = 70) -> list[tuple[str, str]]:
    """The phase's explicitly set fields as (file key, compact JSON), long values cut with `…`."""
    data = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    rows = []
    for key, value in data.items():
        if key in _OMIT_FIELDS or value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        rows.append((key, text if len(text) <= width else text[: width - 1] + "…"))
    return rows


def overview(
    pid: str,
    spec: PhaseBase | None,
    state: PhaseState | None,
    *,
    stale: bool,
    breakpoint: bool,
    guard_override: str | None,
    show_times: bool,
    file_warnings: list[str] | None = None,
    keymap: dict[str, str] | None = None,
) -> Text:
    out = Text()
    status = present.display_status(state, stale=stale)
    ptype = spec.type if spec else (state.type if state else "?")
    out.append(f"{pid}", style="bold")
    out.append(f"  ({ptype})  ")
    out.append(present.look(status).headline, style="bold")
    if breakpoint:
        out.append("  [breakpoint]")
    out.append("\n")
    reason = present.plain_reason(state)
    if reason:
        out.append(reason + "\n", style="bold")
    if stale:
        out.append(f"Changed on disk (or downstream of a change): press {key_said('rerun_stale', keymap)} "
                   "to re-run stale phases.\n")
    if spec is not None:
        edges = spec.edges
        out.append(f"Depends on: {', '.join(edges) if edges else '(none)'}")
        if spec.join != "all":
            out.append(f"   join: {spec.join}")
        if spec.optional:
            out.append("   optional")
        if spec.final:
            out.append("   final")
        out.append("\n")
        for key, value in phase_fields(spec):
            out.append(f"{key}: ", style="dim")
            out.append(f"{value}\n")
        if spec.type == "expand" and getattr(spec, "expand_mode", "nested") == "graft":
            out.append(_graft_note(pid, state), style="italic")
    guard_expr = guard_override if guard_override is not None else (spec.when if spec else None)
    if guard_expr or (state and state.guard):
        out.append("Guard: ")
        out.append(f"when {guard_expr!r}" if guard_expr else "(none)")
        if guard_override is not None:
            out.append("  [edited in this session]")
        if state and state.guard:
            g = state.guard
            out.append(f"  → last evaluation: {'true' if g.get('value') else 'false'}")
            if g.get("error"):
                out.append(f" (error, fail-open: {g['error']})")
        out.append("\n")
    if state is not None:
        if state.attempts or state.attempt_log:
            counted = "onBlock rounds" if state.type == "gate" else "attempts"  # docs/language.md §2.2
            out.append(f"Calls: {state.calls_before + len(state.attempt_log)}")  # every round's, as Usage
            if state.calls_before:
                out.append(f" ({len(state.attempt_log)} this round)")
            if state.status.terminal:  # the count (docs/language.md §2.2) is set when the phase ends ("attempts: 0" while running)
                out.append(f"  {counted}: {state.attempts}")
            counters = present.counters_text(state, spec)
            if counters:
                out.append(f"  ({counters})")
            out.append("\n")
        if show_times:
            duration = present.phase_duration_text(state, None)
            if duration:
                out.append(f"Duration: {duration}\n")
        u = state.usage or {}
        if not present.tokens_known(u):
            out.append("Usage: unknown (the agent reported none)\n")
        elif u.get("input") or u.get("output") or u.get("cost") or not present.cost_known(u):
            cost = present.spend_cost_text(u) if (u.get("cost") or not present.cost_known(u)) else ""
            more = " (+ calls that reported none)" if present.untracked_calls(u) else ""
            out.append(
                f"Usage: {u.get('input', 0)} in / {u.get('output', 0)} out tokens{more}"
                f"{'  ' + cost if cost else ''}\n"
            )
        if state.gate:
            out.append(f"Gate verdict: {state.gate.get('verdict')}")
            if state.gate.get("reason"):
                out.append(f" — {state.gate['reason']}")
            out.append("\n")
        if state.scores:
            out.append(
                f"Score: {_num(state.scores.get('combined'))} (threshold {_num(state.scores.get('threshold'))}, "
                f"{state.scores.get('stage')})\n"
            )
        for key in ("loop", "tournament", "approval"):
            value = getattr(state, key)
            if value:
                out.append(f"{key.capitalize()}: {json.dumps(_plain(value), ensure_ascii=False)}\n")
        if state.def_error:
            out.append(f"Sub-flow definition error: {state.def_error}\n")
        if state.timed_out:
            out.append("Timed out.\n")
        if state.warnings:
            out.append("Warnings:\n", style="bold")
            for w in state.warnings:
                out.append(f"  • {w}\n")
    if file_warnings:
        out.append("Flow file warnings:\n", style="bold")
        for w in file_warnings:
            out.append(f"  • {w}\n")
    return out


def _graft_note(pid: str, state: PhaseState | None) -> str:
    """Why the run has more phases than the file: the header's n/m and `tftui run` count them."""
    sub = (state.extra or {}).get("subflow") if state is not None else None
    grafted = sub.get("grafted") if isinstance(sub, dict) else None
    names = ", ".join(grafted) if isinstance(grafted, list) and grafted else f"{pid}-<child id>"
    return (
        f"Graft mode: its sub-flow's phases join this run as top-level phases ({names}), "
        "shown under it (marked as run inside it) and counted in the header's n/m progress, as `tftui run` counts them.\n"
    )


def prompt(spec: PhaseBase | None, state: PhaseState | None, *, max_calls: int | None = None) -> Text:
    """The prompt each node path was last sent. `max_calls`: stop after that many (the panel
    draws a few hundred lines anyway; a 1,000-item map's full text is for the `o` viewer)."""
    out = Text()
    calls = state.attempt_log if state else []
    if not calls:
        out.append("(not sent yet — the template:)\n\n", style="italic")
        task = spec.task if spec is not None else None
        out.append(task if isinstance(task, str) else "(no task)")
        return out
    latest: dict[str, Any] = {}
    for call in calls:
        latest[call.node_path] = call
    for i, (path, call) in enumerate(latest.items()):
        if max_calls is not None and i >= max_calls:
            out.append(f"\n\n… {len(latest) - i:,} more calls", style="dim italic")
            break
        if i:
            out.append("\n\n")
        out.append(f"── {path}  attempt {call.attempt + 1} ──\n", style="bold")
        out.append(call.prompt or "(empty prompt)")
    return out


def streaming(state: PhaseState | None) -> bool:
    """The Output tab shows the text streaming in (not yet the phase's output or error)."""
    return state is None or (state.output is None and not state.error)


def live_tail(live: str) -> str:
    """The newest LIVE_PANEL_CHARS characters of an answer streaming in (`…` before them when cut)."""
    return live if len(live) <= LIVE_PANEL_CHARS else "…" + live[-LIVE_PANEL_CHARS:]


def streaming_note(total: int, shown: int) -> str:
    """The line above an answer streaming in: how much has arrived, and how much of it is shown."""
    more = f"; the newest {shown:,} shown" if shown < total else ""
    return f"(streaming: {total:,} characters so far{more})"


def output(spec: PhaseBase | None, state: PhaseState | None, live: str = "") -> Text:
    """The phase's output; while its call streams (`live`: README "Real agents"), the text so far."""
    out = Text()
    if state is None or streaming(state):
        if live:
            # the newest text only: re-wrapping a 100 KB answer ten times a second would hold the keys
            shown = live_tail(live)
            out.append(streaming_note(len(live), len(shown) - (shown is not live)) + "\n", style="italic dim")
            out.append(shown)
            return out
        out.append("(no output yet)", style="italic")
        return out
    if state.error:
        out.append(f"error: {state.error}\n\n", style="bold")
    wants_json = spec is not None and spec.output == "json"
    if wants_json and state.json is not MISSING:
        out.append(to_json_text(state.json))
    elif state.output is not None:
        out.append(state.output)
    return out


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value == value else "NaN"
    return str(value)


def scorer_table(scores: dict[str, Any]) -> Text:
    """One line per scorer: pass mark, name, type, score, detail; then the combined score."""
    out = Text()
    for row in scores.get("results") or []:
        if not isinstance(row, dict):
            continue
        passed = row.get("passed")
        out.append(f"{present.mark('ok' if passed else 'no')} ", style="bold")
        out.append(term_line(str(row.get("name", "?"))), style="bold")
        out.append(f" ({term_line(str(row.get('type', '?')))}) {_num(row.get('score'))}")
        if row.get("detail"):
            out.append(f" — {row['detail']}", style="dim")
        out.append("\n")
    threshold = scores.get("threshold")
    out.append(f"combined {_num(scores.get('combined'))}")
    if threshold is not None:
        out.append(f" vs threshold {_num(threshold)}")
    if scores.get("stage"):
        out.append(f" ({scores['stage']})")
    out.append("\n")
    return out


def gate(state: PhaseState | None) -> tuple[Text, Text]:
    """(scorer report, judge prompt) for the side-by-side gate tab."""
    report = Text()
    judge = Text()
    if state is None:
        return Text("(not evaluated)"), Text("")
    scores = state.scores or (state.gate_history[-1].scores if state.gate_history else None)
    if scores:
        report.append("Scorers\n", style="bold")
        report.append_text(scorer_table(scores))
        if scores.get("report"):
            report.append("\n")
            report.append(scores["report"])
    else:
        report.append("(no scorers evaluated)", style="italic")
    for ev in state.gate_history:
        report.append(f"\nround {ev.round}: {ev.verdict} ({ev.source})")
        if ev.reason:
            report.append(f" — {ev.reason}")
    if state.judge_prompt:
        judge.append("Judge prompt\n", style="bold")
        judge.append(state.judge_prompt)
    else:
        judge.append("(no judge call)", style="italic")
    return report, judge


def attempts(state: PhaseState | None) -> Text:
    out = Text()
    if state is None or not state.attempt_log:
        out.append("(no calls yet)", style="italic")
        return out
    for call in state.attempt_log:
        out.append(f"{call.node_path}  attempt {call.attempt + 1}: {call.status}")
        if call.error:
            out.append(f" — {call.error}")
            if call.transient:
                out.append(" (transient)")
        if call.delay_ms is not None:
            out.append(f"  → backoff {call.delay_ms}ms")
            if call.retry_after_ms is not None:
                out.append(f" (Retry-After {call.retry_after_ms}ms)")
        out.append("\n")
    for ev in state.gate_history:
        out.append(f"onBlock round {ev.round}: {ev.verdict}" + (f" — {ev.reason}" if ev.reason else "") + "\n")
    return out


def raw(state: PhaseState | None, *, max_items: int | None = None) -> Text:
    """The phase's state as JSON. `max_items`: longer lists (a map's attempt log) show their
    first entries and a `… N more` line, long strings their start (the panel; the `o` viewer
    gets the whole JSON)."""
    if state is None:
        return Text("(no state: the phase has not been reached)", style="italic")
    return Text(state_json_text(state, max_items=max_items))


def _json_default(value: Any) -> Any:
    """What the C encoder cannot encode itself: our dataclasses, enums, MISSING (JS undefined)."""
    if value is MISSING:
        return None
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return str(value)


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, default=_json_default)
PANEL_STRING_CHARS = 4000  # with `max_items` (the panel): longer strings are cut (the `o` viewer has them whole)


def state_json_text(value: Any, levels: int = 2, *, max_items: int | None = None) -> str:
    """JSON indented for the first `levels` levels, each deeper value on one line (an attempt per line).

    The Raw tab of a 1,000-item map holds thousands of attempts: fully indented that is 16,000
    lines built by json's pure-Python indenting encoder (~100 ms on the UI thread); this way each
    attempt is one line, built by the C encoder."""
    value = _json_default(value) if dataclasses.is_dataclass(value) or isinstance(value, Enum) else value
    if levels > 0 and isinstance(value, dict) and value:
        items = [f"{_COMPACT_JSON.encode(str(k))}: {state_json_text(v, levels - 1, max_items=max_items)}"
                 for k, v in value.items() if v is not MISSING]
    elif levels > 0 and isinstance(value, (list, tuple)) and value:
        shown = value if max_items is None else value[:max_items]
        items = [state_json_text(v, levels - 1, max_items=max_items) for v in shown]
        if len(shown) < len(value):
            items.append(f"… {len(value) - len(shown):,} more (o shows the whole JSON)")
    else:
        if max_items is not None and isinstance(value, str) and len(value) > PANEL_STRING_CHARS:
            # the panel shows a few hundred lines: a map's merged output need not be encoded whole
            value = value[:PANEL_STRING_CHARS] + f"… ({len(value) - PANEL_STRING_CHARS:,} more characters)"
        return _COMPACT_JSON.encode(value)
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    body = ",\n".join(items).replace("\n", "\n  ")
    return f"{opening}\n  {body}\n{closing}"
