"""Combining scorer results: all / any / weighted, early cutoff, judge merge, report text.

docs/gates.md §5 and §6. `combine` is pure and is called twice by a scoring gate: first
with the judge only *configured* (`judge_configured=True`, `judge=None`) to decide
whether the judge must be asked at all, then, if `needs_judge`, with the judge's
parsed output. `explain` renders the arithmetic in one line for the TUI.

Weighted mode with a judge configured: the judge's weight is the last entry of
`weights` (or 1 when `len(weights) != n + 1`) and sits in the denominator of the
deterministic score, which is therefore a *lower bound*; if that already clears the
threshold the gate passes without the judge (stage `early-cutoff`). Otherwise the
merged score is `(Σ s_i·w_i + clamp(judge)·w_j) / Σ w`, with all weights 1 when the
array length is not `n + 1` (the reference's inconsistency, kept: conformance cb035).
all/any: passing scorers pass the gate (the judge never runs, D7); otherwise the
judge's verdict alone decides and the combined score stays the deterministic 0/1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from tftui.lang.values import JSONValue, js_number_str
from tftui.lang.verdict import JudgeOutput
from tftui.scoring.scorers import ScorerResult

DEFAULT_THRESHOLD = 0.5
MODES = ("all", "any", "weighted")
REPORT_HEADER = "## Deterministic scorer report"

# A scorer result as the evaluator returns it, or in its JSON form (`ScorerResult.to_json`, a trace).
ResultLike = ScorerResult | Mapping[str, object]
# The judge's parsed output, or its JSON form ({score, verdict}).
JudgeLike = JudgeOutput | Mapping[str, object]


@dataclass(slots=True)
class Combined:
    mode: str
    score: float  # the combined score (judge-weighted: merged; all/any: deterministic 0/1)
    passed: bool
    stage: str  # deterministic | early-cutoff | judge-weighted | judge-authoritative
    judge_ran: bool = False
    threshold: float | None = None  # weighted only
    lower_bound: float | None = None  # weighted with a judge configured: the deterministic score
    deterministic: float = 0.0  # the score before any judge (what the scorer report shows)
    needs_judge: bool = False  # judge configured, not yet asked, scorers did not pass
    scores: list[int] = field(default_factory=list)  # 1/0 per scorer
    weights: list[float] = field(default_factory=list)  # scorer weights used for `score`
    judge_weight: float | None = None  # the judge's weight used for `score` (or the lower bound)
    judge_score: float | None = None  # clamped, when the judge ran
    judge_verdict: str | None = None


def _passed(result: object) -> bool:
    if isinstance(result, Mapping):
        return result.get("passed") is True
    return getattr(result, "passed", False) is True


def _weight(value: JSONValue) -> float:
    """Missing, non-numeric or non-positive weights count as 1 (an int weight stays an int)."""
    kind = type(value)
    if (kind is float or kind is int) and 0 < value < math.inf:
        weight: float = value
        return weight
    return 1


def _clamp01(value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return 0
    return min(1, max(0, value))


def _judge_fields(judge: object) -> tuple[float, str]:
    if isinstance(judge, Mapping):
        return _clamp01(judge.get("score")), str(judge.get("verdict", "pass"))
    return _clamp01(getattr(judge, "score", 0)), str(getattr(judge, "verdict", "pass"))


def combine(
    results: Sequence[ResultLike],
    mode: str = "all",
    weights: JSONValue = None,
    threshold: JSONValue = None,
    judge: JudgeLike | None = None,
    *,
    judge_configured: bool | None = None,
) -> Combined:
    """Combine scorer results (objects or mappings with `passed`); `judge` = the parsed judge output."""
    has_judge = judge is not None if judge_configured is None else (judge_configured or judge is not None)
    mode = mode if mode in MODES else "all"
    scores = [
        (1 if r.passed is True else 0) if type(r) is ScorerResult else (1 if _passed(r) else 0)
        for r in results
    ]
    n = len(scores)
    if mode == "weighted":
        return _weighted(scores, weights, threshold, judge, has_judge)
    ok = n > 0 and (all(scores) if mode == "all" else any(scores))
    det = 1 if ok else 0
    if ok or not has_judge:
        return Combined(mode, det, ok, "deterministic", deterministic=det, scores=scores)
    if judge is None:
        return Combined(mode, det, False, "deterministic", deterministic=det, needs_judge=True, scores=scores)
    judge_score, verdict = _judge_fields(judge)
    return Combined(
        mode,
        det,
        verdict == "pass",
        "judge-authoritative",
        judge_ran=True,
        deterministic=det,
        scores=scores,
        judge_score=judge_score,
        judge_verdict=verdict,
    )


def _weighted(
    scores: list[int], weights: JSONValue, threshold: JSONValue, judge: JudgeLike | None, has_judge: bool
) -> Combined:
    n = len(scores)
    thr: float = (
        threshold
        if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and threshold > 0
        else DEFAULT_THRESHOLD
    )
    given = list(weights) if isinstance(weights, (list, tuple)) else []
    scorer_w: list[float] = [_weight(w) for w in given[:n]] if len(given) >= n else [1] * n
    judge_w: float = (_weight(given[n]) if len(given) == n + 1 else 1) if has_judge else 0
    numerator = sum(s * w for s, w in zip(scores, scorer_w, strict=True))
    denominator = sum(scorer_w) + judge_w
    det = numerator / denominator if n and denominator > 0 else 0
    ok = n > 0 and det >= thr
    if not has_judge:
        return Combined(
            "weighted", det, ok, "deterministic", weights=scorer_w, threshold=thr, deterministic=det, scores=scores
        )
    if ok:
        return Combined(
            "weighted",
            det,
            True,
            "early-cutoff",
            lower_bound=det,
            weights=scorer_w,
            judge_weight=judge_w,
            threshold=thr,
        deterministic=det,
        scores=scores,
        )
    if judge is None:
        return Combined(
            "weighted",
            det,
            False,
            "deterministic",
            lower_bound=det,
            needs_judge=True,
            weights=scorer_w,
            judge_weight=judge_w,
            threshold=thr,
        deterministic=det,
        scores=scores,
        )
    judge_score, verdict = _judge_fields(judge)
    if len(given) == n + 1:
        merge_w: list[float] = [_weight(w) for w in given[:n]]
        merge_jw = _weight(given[n])
    else:
        merge_w, merge_jw = [1] * n, 1
    total = sum(s * w for s, w in zip(scores, merge_w, strict=True)) + judge_score * merge_jw
    final = total / (sum(merge_w) + merge_jw)
    return Combined(
        "weighted",
        final,
        final >= thr,
        "judge-weighted",
        judge_ran=True,
        lower_bound=det,
        weights=merge_w,
        judge_weight=merge_jw,
        judge_score=judge_score,
        judge_verdict=verdict,
        threshold=thr,
        deterministic=det,
        scores=scores,
    )


# --- text -------------------------------------------------------------------------------------


def js_to_fixed(value: float, digits: int) -> str:
    """`Number.prototype.toFixed`: exact binary value, ties away from zero (Python rounds half-even);
    from 1e21 up (and for non-finite values) the number's own string, as in JavaScript."""
    if not math.isfinite(value) or abs(value) >= 1e21:
        return js_number_str(value)
    text = str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    return "0" + text[2:] if text.startswith("-0") and set(text[2:]) <= {".", "0"} else text


def _num(value: float) -> str:
    """A weight or denominator, short: integral sums keep one decimal (`1.0`), others ≤ 6 places."""
    if not math.isfinite(value) or abs(value) >= 1e21:  # no decimals to keep (and int(inf) would raise)
        return js_number_str(value)
    rounded = round(value, 6)
    if rounded == int(rounded):
        return f"{int(rounded)}.0"
    text = repr(rounded)
    return js_number_str(rounded) if "e" in text else text


def explain(c: Combined) -> str:
    """The arithmetic behind a decision, in one line (TUI scorer panel)."""
    n, k = len(c.scores), sum(c.scores)
    if n == 0:
        return "no scorer results (score.target did not resolve) → combined 0" + (
            " → judge" if c.needs_judge else ""
        )
    if c.mode != "weighted":
        head = f"{c.mode}: {k}/{n} scorers passed → combined {c.deterministic}"
        if c.stage == "judge-authoritative":
            outcome = "pass" if c.passed else "block"
            return f"{head}; judge verdict {c.judge_verdict} (score {js_to_fixed(c.judge_score or 0, 2)}) decides → {outcome}"
        return head + (" → pass" if c.passed else " → judge" if c.needs_judge else " → fail")
    thr = js_to_fixed(c.threshold or DEFAULT_THRESHOLD, 2)
    terms = " + ".join(f"{_num(w)}·{s}" for s, w in zip(c.scores, c.weights, strict=False))
    if c.stage == "judge-weighted":
        terms += f" + {_num(c.judge_weight or 1)}·{js_to_fixed(c.judge_score or 0, 2)} judge"
        den = _num(sum(c.weights) + (c.judge_weight or 0))
        cmp = "≥" if c.passed else "<"
        return f"combined {js_to_fixed(c.score, 2)} = ({terms})/{den} {cmp} threshold {thr} → {'pass' if c.passed else 'block'}"
    if c.judge_weight is not None:  # judge configured: the deterministic score is a lower bound
        den = f"({_num(sum(c.weights))} + {_num(c.judge_weight)} judge)"
        lb = js_to_fixed(c.deterministic, 2)
        if c.stage == "early-cutoff":
            return f"early cutoff: lower bound {lb} = ({terms})/{den} ≥ {thr}, judge skipped"
        return f"lower bound {lb} = ({terms})/{den} < threshold {thr} → judge"
    cmp = "≥" if c.passed else "<"
    return (
        f"combined {js_to_fixed(c.score, 2)} = ({terms})/{_num(sum(c.weights))} {cmp} threshold {thr}"
        f" → {'pass' if c.passed else 'fail'}"
    )


def scorer_report(
    results: Sequence[ResultLike],
    combined: float = 0.0,
    threshold: float | None = None,
    *,
    unresolved: Sequence[str] | None = None,
) -> str:
    """docs/gates.md §6 report text (appended to judge and task-fallback prompts).

    `threshold` is given only in weighted mode; `unresolved` lists the missing refs of
    `score.target` (the scorers were then skipped).
    """
    if unresolved:
        paths = ", ".join(dict.fromkeys(unresolved))
        return f"{REPORT_HEADER}\n(scorers skipped — score.target did not resolve: {paths})"
    lines = [REPORT_HEADER]
    for r in results:
        get = r.get if isinstance(r, Mapping) else lambda key, r=r: getattr(r, key, None)
        mark = "PASS" if get("passed") is True else "FAIL"
        line = f"- [{mark}] {get('name')} ({get('type')})"
        detail = get("detail")
        if mark == "FAIL" and detail:
            line += f": {detail}"
        lines.append(line)
    tail = f"Combined score: {js_to_fixed(combined, 3)}"
    if threshold is not None:
        tail += f" (threshold {js_number_str(threshold)})"
    lines.append(tail)
    return "\n".join(lines)
