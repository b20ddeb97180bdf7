"""What-if for score gates: change a threshold, a weight, the combine mode or a scorer
field and see whether the verdict flips — at zero tokens, without touching the file.

`what_if_gate(phase, ctx, overrides, previous=...)` re-runs the deterministic part of
SPEC §6.5 (scorers + combine) on the current upstream outputs with the overrides. When
the new decision needs an LLM (judge, or the task fallback), it reuses the previous
reply only if the prompt would be byte-identical to the one sent before (the scorer
report inside the prompt changes with thresholds and weights, so usually it is not);
otherwise it reports "judge would be asked" with the exact prompt, and — clearly
labelled as an estimate — what the previous judge score would give.

`apply_score_edit_to_source` turns the same overrides into a surgical source edit
(tftui.flow.edit) and `save_flow_text` (tftui.flow.save) writes it safely.

Nothing here calls a runner, and nothing raises on user input.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tftui.flow.edit import REMOVE, EditResult, set_phase_values
from tftui.flow.save import SaveResult, file_fingerprint, save_flow_text, text_fingerprint
from tftui.lang.condition import evaluate_eval_entry
from tftui.lang.interpolate import Context, interpolate
from tftui.lang.values import js_trim
from tftui.lang.verdict import parse_gate_verdict, parse_judge_output
from tftui.scoring.combine import Combined, combine, explain, js_to_fixed, scorer_report
from tftui.scoring.gate import REPORT_SEPARATOR, judge_prompt, task_fallback_prompt
from tftui.scoring.scorers import ScorerResult, evaluate_scorer, score_shape_errors

__all__ = [
    "REMOVE",
    "ScoreOverrides",
    "WhatIfResult",
    "what_if_gate",
    "apply_score_edit_to_source",
    "save_flow_text",
    "SaveResult",
    "text_fingerprint",
    "file_fingerprint",
]

_TARGET_HEADING = "## Target under evaluation\n"


@dataclass
class ScoreOverrides:
    """Edits to a gate's `score` block. Scorer field values may be `REMOVE` (delete the key)."""

    threshold: float | None = None
    combine: str | None = None
    weights: dict[int, float] = field(default_factory=dict)  # index in score.weights -> value
    scorers: dict[int, dict[str, Any]] = field(default_factory=dict)  # scorer index -> {field: value}
    # A combine-mode change keeps the block valid (SPEC §6.5 shape rules): leaving "weighted"
    # removes `weights`/`threshold` (only valid with it); entering it without weights gives
    # every scorer (and the judge) weight 1.
    removed: tuple[str, ...] = ()
    new_weights: list[float] | None = None

    @property
    def empty(self) -> bool:
        return (
            self.threshold is None and self.combine is None and not self.weights and not self.scorers
            and not self.removed and self.new_weights is None
        )

    def _weights(self, current: Any) -> list[Any] | None:
        """The weights array after the overrides (None: unchanged)."""
        if self.new_weights is None and not self.weights:
            return None
        base = self.new_weights if self.new_weights is not None else current
        weights = list(base) if isinstance(base, list) else []
        for index, value in sorted(self.weights.items()):
            while len(weights) <= index:
                weights.append(1)
            weights[index] = value
        return weights

    def apply(self, score: Any) -> Any:
        """A copy of `score` with the overrides applied (the original is never touched)."""
        if not isinstance(score, Mapping):
            return score
        out = copy.deepcopy(dict(score))
        if self.combine is not None:
            out["combine"] = self.combine
        for key in self.removed:
            out.pop(key, None)
        if self.threshold is not None:
            out["threshold"] = self.threshold
        weights = self._weights(out.get("weights"))
        if weights is not None:
            out["weights"] = weights
        scorers = out.get("scorers")
        for index, fields in self.scorers.items():
            if isinstance(scorers, list) and 0 <= index < len(scorers) and isinstance(scorers[index], dict):
                for key, value in fields.items():
                    if value is REMOVE:
                        scorers[index].pop(key, None)
                    else:
                        scorers[index][key] = value
        return out

    def edits(self) -> list[tuple[tuple[str | int, ...], Any]]:
        """The same overrides as `(path inside the phase, value)` source edits."""
        out: list[tuple[tuple[str | int, ...], Any]] = []
        if self.combine is not None:
            out.append((("score", "combine"), self.combine))
        for key in self.removed:
            out.append((("score", key), REMOVE))
        if self.threshold is not None:
            out.append((("score", "threshold"), self.threshold))
        if self.new_weights is not None:  # a new array: written whole (source edits cannot add entries)
            out.append((("score", "weights"), self._weights(None)))
        else:
            for index, value in sorted(self.weights.items()):
                out.append((("score", "weights", index), value))
        for index, fields in sorted(self.scorers.items()):
            for key, value in fields.items():
                out.append((("score", "scorers", index, key), value))
        return out


@dataclass
class WhatIfResult:
    before_verdict: str | None
    before_source: str
    before_line: str
    after_verdict: str | None  # None: an LLM would have to be asked to know
    after_source: str  # eval | score | judge | task | fail-open
    after_line: str  # the arithmetic (or the reason) of the new decision
    flips: bool | None  # None when unknown (an LLM would be asked)
    results: list[ScorerResult] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)  # per scorer, as used (weighted mode)
    combined: Combined | None = None
    needs_llm: bool = False
    llm_node_path: str | None = None
    llm_prompt: str | None = None  # exactly what would be sent
    reused_reply: bool = False  # the previous judge/task reply was reused (identical prompt)
    estimate_verdict: str | None = None  # with the previous judge score (when an LLM would be asked)
    estimate_line: str | None = None
    errors: list[str] = field(default_factory=list)  # shape errors of the edited score block

    @property
    def summary(self) -> str:
        if self.errors:
            return f"invalid: {self.errors[0]}"
        if self.needs_llm:
            who = "judge" if (self.llm_node_path or "").endswith("#judge") else "gate task"
            text = f"{who} would be asked (the prompt differs from the one sent before)"
            if self.estimate_verdict is not None:
                text += f"; with the previous judge score it would {self.estimate_verdict}"
            return text
        if self.flips:
            return f"verdict flips: {self.before_verdict} → {self.after_verdict} ({self.after_source})"
        return f"verdict unchanged: {self.after_verdict} ({self.after_source})"


@dataclass
class _Previous:
    verdict: str | None = None
    source: str = ""
    line: str = ""
    judge_prompt: str | None = None
    judge_reply: str | None = None
    task_prompt: str | None = None
    task_reply: str | None = None
    results: list[Any] = field(default_factory=list)


def _previous_facts(previous: Any, phase_id: str) -> _Previous | None:
    """Accepts a scoring GateOutcome or a gate_history.GateRecord."""
    if previous is None:
        return None
    facts = _Previous(verdict=getattr(previous, "verdict", None), source=getattr(previous, "source", "") or "")
    facts.line = getattr(previous, "arithmetic", None) or ""
    if hasattr(previous, "judge_prompt"):  # GateRecord
        facts.judge_prompt, facts.judge_reply = previous.judge_prompt, previous.judge_reply
        facts.task_prompt, facts.task_reply = previous.task_prompt, previous.task_reply
        facts.results = list(getattr(previous, "rows", []) or [])
        return facts
    for node, prompt in getattr(previous, "prompts", []) or []:
        if node.endswith("#judge"):
            facts.judge_prompt = prompt
        elif node == phase_id:
            facts.task_prompt = prompt
    judge = getattr(previous, "judge", None)
    facts.judge_reply = getattr(judge, "raw", None) if judge is not None else None
    if facts.task_prompt is not None and facts.source == "task":
        facts.task_reply = getattr(previous, "output", None)
    scores = getattr(previous, "scores", None)
    facts.results = list(getattr(scores, "results", []) or []) if scores is not None else []
    return facts


def _preread(prev_prompt: str | None, marker: str) -> str:
    """The context pre-read prefix of a previous prompt (what came before the task text)."""
    if not prev_prompt or not marker:
        return ""
    at = prev_prompt.find(marker)
    return prev_prompt[:at] if at > 0 else ""


def _scorer_results(scorers: list, target: str, prev: _Previous | None, touched: set[int]) -> list[ScorerResult]:
    results: list[ScorerResult] = []
    for index, scorer in enumerate(scorers):
        if isinstance(scorer, Mapping) and scorer.get("type") == "code-compiles":
            # Running a compiler is not "zero cost": reuse the recorded result when unchanged.
            old = prev.results[index] if prev is not None and index < len(prev.results) else None
            if old is not None and index not in touched:
                get = old.get if isinstance(old, Mapping) else lambda k, o=old: getattr(o, k, None)
                results.append(
                    ScorerResult(get("name"), "code-compiles", get("passed") is True, 1 if get("passed") else 0,
                                 get("detail"))
                )
            else:
                name = js_trim(scorer.get("name") or "") or f"code-compiles-{index}"
                results.append(ScorerResult(name, "code-compiles", False, 0, "not re-run in what-if (runs a compiler)"))
        else:
            results.append(evaluate_scorer(scorer, index, target))
    return results


def what_if_gate(
    phase: Any,
    ctx: Context,
    overrides: ScoreOverrides | None,
    *,
    previous: Any = None,
    preread: str | None = None,
) -> WhatIfResult:
    """Re-decide a score gate with `overrides` at zero tokens (see the module docstring).

    `previous`: the evaluation to compare against (a GateOutcome, or a GateRecord from
    tftui.engine.gate_history); without it the unmodified gate is re-decided the same way.
    """
    overrides = overrides or ScoreOverrides()
    prev = _previous_facts(previous, phase.id)
    if prev is None:
        base = _decide(phase, ctx, phase.score, None, preread, set())
        before = (base.after_verdict, base.after_source, base.after_line)
    else:
        before = (prev.verdict, prev.source, prev.line)
    if not isinstance(getattr(phase, "score", None), Mapping):
        return WhatIfResult(*before, None, "", "", None, errors=["this gate has no score block to change"])
    score = overrides.apply(phase.score)
    errors = score_shape_errors(score)
    if errors:
        return WhatIfResult(*before, None, "", "", None, errors=errors)
    touched = set(overrides.scorers)
    result = _decide(phase, ctx, score, prev, preread, touched)
    result.before_verdict, result.before_source, result.before_line = before
    if result.after_verdict is not None and before[0] is not None:
        result.flips = result.after_verdict != before[0]
    return result


def _decide(
    phase: Any, ctx: Context, score: Any, prev: _Previous | None, preread: str | None, touched: set[int]
) -> WhatIfResult:
    out = WhatIfResult(None, "", "", None, "", "", None)
    entries = getattr(phase, "eval", None)
    if isinstance(entries, list) and entries:
        checks = [evaluate_eval_entry(entry, ctx) for entry in entries]
        if all(check.passed for check in checks):
            out.after_verdict, out.after_source = "pass", "eval"
            out.after_line = f"eval: all {len(checks)} checks passed → pass (score not evaluated)"
            return out
    if not isinstance(score, Mapping):
        out.after_source, out.after_line = "task", "no score block: the gate task decides"
        out.needs_llm, out.llm_node_path = True, phase.id
        return out
    filled = interpolate(score.get("target") or "{previous.output}", ctx)
    missing = list(dict.fromkeys(filled.missing))
    results = [] if missing else _scorer_results(list(score.get("scorers") or []), filled.text, prev, touched)
    mode, weights, threshold = score.get("combine", "all"), score.get("weights"), score.get("threshold")
    judge_cfg = score.get("judge")
    det = combine(results, mode, weights, threshold, judge_configured=judge_cfg is not None)
    out.results, out.combined, out.weights = results, det, list(det.weights)
    if not missing and det.passed:
        out.after_verdict, out.after_source, out.after_line = "pass", "score", explain(det)
        return out
    shown = det.threshold if det.mode == "weighted" else None
    report = scorer_report(results, det.deterministic, shown, unresolved=missing)
    if judge_cfg is not None:
        return _judge_step(phase, ctx, out, det, judge_cfg, score, filled.text, report, prev, preread)
    task = phase.task if isinstance(getattr(phase, "task", None), str) else ""
    if js_trim(task):
        rendered = interpolate(task, ctx).text
        pre = preread if preread is not None else _preread(prev.task_prompt if prev else None,
                                                            rendered + REPORT_SEPARATOR)
        prompt = task_fallback_prompt(pre, rendered, report, phase)
        out.after_source = "task"
        if prev is not None and prev.task_prompt == prompt and prev.task_reply is not None:
            parsed = parse_gate_verdict(prev.task_reply)
            out.after_verdict, out.reused_reply = parsed.verdict, True
            out.after_line = f"{explain(det)}; gate task (same prompt, previous reply reused) → {parsed.verdict}"
        else:
            out.needs_llm, out.llm_node_path, out.llm_prompt = True, phase.id, prompt
            out.after_line = f"{explain(det)} → gate task would be asked"
        return out
    if missing:
        out.after_verdict, out.after_source = "pass", "fail-open"
        out.after_line = f"score.target did not resolve ({', '.join(missing)}) → pass (fail-open)"
        return out
    out.after_verdict, out.after_source = "block", "score"
    out.after_line = explain(det) + " (no judge, no task → block)"
    return out


def _judge_step(
    phase: Any, ctx: Context, out: WhatIfResult, det: Combined, judge_cfg: Any, score: Mapping,
    target: str, report: str, prev: _Previous | None, preread: str | None,
) -> WhatIfResult:
    judge_task = interpolate(judge_cfg.get("task"), ctx).text if isinstance(judge_cfg.get("task"), str) else ""
    pre = preread if preread is not None else _preread(
        prev.judge_prompt if prev else None, judge_task + REPORT_SEPARATOR + _TARGET_HEADING
    )
    prompt = judge_prompt(pre, judge_task, target, report)
    out.after_source = "judge"
    mode, weights, threshold = score.get("combine", "all"), score.get("weights"), score.get("threshold")
    reply = prev.judge_reply if prev is not None else None
    if reply is not None:
        final = combine(out.results, mode, weights, threshold, judge=parse_judge_output(reply))
        line = explain(final)
        verdict = "pass" if final.passed else "block"
        if prev is not None and prev.judge_prompt == prompt:
            out.after_verdict, out.after_line, out.reused_reply, out.combined = verdict, line, True, final
            out.weights = list(final.weights)
            return out
        out.estimate_verdict = verdict
        out.estimate_line = f"with the previous judge score {js_to_fixed(final.judge_score or 0, 2)}: {line}"
    out.needs_llm, out.llm_node_path, out.llm_prompt = True, f"{phase.id}#judge", prompt
    out.after_line = explain(det)
    return out


def apply_score_edit_to_source(text: str, phase_id: str, overrides: ScoreOverrides) -> EditResult:
    """Write the overrides into the flow source, changing only the edited values' bytes.

    Returns `EditResult(text)` or `EditResult(None, error)` (e.g. a shorthand flow, an
    unknown phase, or a weight index the file's `weights` array does not have).
    """
    if overrides.empty:
        return EditResult(text)
    return set_phase_values(text, phase_id, overrides.edits())
