"""The gate decision pipeline (docs/gates.md §1–§7), independent of the engine.

`evaluate_gate` runs eval → score (scorers, combine, auto-pass / judge / task fallback /
fail-open / deterministic block) → plain task verdict, and returns everything the
engine stores and the TUI shows: verdict, reason, output, the docs/gates.md §6 structured result,
scores, the judge's reply, the combine arithmetic, every prompt exactly as sent, usage,
warnings. Model calls go through `runner.run(AgentRequest)`; the engine passes a runner
that already applies retries, timeouts, `expect` and emits events. A failed call makes
the gate `failed` (never blocked). Nothing here raises on user input.

onBlock rounds: score gates re-run docs/gates.md §5 entirely, other gates re-run only the task —
call with `skip_eval=skips_eval(phase, round)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from _json import make_encoder
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import NotRequired, TypedDict

import msgspec

from tftui.agent_types import AgentRequest, AgentResult, AgentRunner, Usage
from tftui.flow.model import PhaseBase
from tftui.flow.score_shape import ScorerSpec
from tftui.lang.condition import EvalCheck, evaluate_eval_entry
from tftui.lang.interpolate import Context, interpolate, missing_warning
from tftui.lang.jsonish import lenient_parse
from tftui.lang.jsregex import default_budget
from tftui.lang.values import JS_WS_CLASS, MISSING, JSONObject, JSONValue, js_trim
from tftui.lang.verdict import GATE_UNPARSEABLE, JUDGE_UNPARSEABLE, parse_gate_verdict, parse_judge_output
from tftui.scoring.combine import Combined, combine, explain, scorer_report
from tftui.scoring.compile import run_code_compiles
from tftui.scoring.scorers import (
    ScorerResult,
    ScorerResultJSON,
    evaluate_scorer,
    score_shape_errors,
)

EVAL_PASS_OUTPUT = "PASS (eval checks passed — no LLM call)"
SCORE_PASS_OUTPUT = "PASS (scorers passed — no LLM call)"
UNRESOLVED_OUTPUT = "PASS (score.target did not resolve — fail-open)"
BLOCK_OUTPUT = "BLOCK (deterministic scorers failed — no LLM fallback)"
BLOCK_REASON = "deterministic scorers below threshold"
GATE_FORMAT_SUFFIX = (
    "\n\n--- Required output format ---\n"
    "End your response with exactly one line in this exact form (no Markdown, no bold, no extra words):\n"
    "VERDICT: PASS\nor\nVERDICT: BLOCK"
)
JUDGE_INSTRUCTION = 'Return JSON {"score": 0.0-1.0, "verdict": "pass"|"block", "reason": "..."} (or end with VERDICT: PASS|BLOCK).'
REPORT_SEPARATOR = "\n\n---\n\n"
_VERDICT_MARKER = re.compile("VERDICT" + JS_WS_CLASS + "*[:=]", re.ASCII | re.IGNORECASE)
_ZWSP_FENCE = "`\u200b``"
REGEX_INLINE_S = 0.01  # a regex match tried in place on the event loop before it moves to a thread

# How a `code-compiles` scorer is checked: (scorer, index, target) -> its result. The engine
# runs the compiler (the default); what-if answers from the recorded result instead.
CompileCheck = Callable[[ScorerSpec, int, str], Awaitable[ScorerResult]]
# A gate's `score` block and its `judge` entry, as the flow file has them (shape-checked first).
ScoreBlock = Mapping[str, JSONValue]


class JudgeJSON(TypedDict):
    score: float
    reason: NotRequired[str]


class ScoreJSON(TypedDict):
    """The docs/gates.md §6 structured result of a score gate (the phase's `json`)."""

    verdict: str
    combined: float
    results: list[ScorerResultJSON]
    threshold: NotRequired[float]
    judge: NotRequired[JudgeJSON]  # when the judge ran


@dataclass
class ScoreInfo:
    """`gate.scores` for the TUI: `{results, combined, threshold?}`."""

    results: list[ScorerResult]
    combined: float
    threshold: float | None = None
    # `[r.to_json() for r in results]` when it was already built (the gate's json holds it too)
    results_json: list[ScorerResultJSON] | None = None

    def to_json(self) -> JSONObject:
        """`{results: [ScorerResultJSON…], combined, threshold?}` (plain JSON: the engine's
        ScorersEvaluated event and the journal carry it as such; read-only, it may be shared
        with the gate's json)."""
        results = self.results_json if self.results_json is not None else [r.to_json() for r in self.results]
        data: JSONObject = {"results": results, "combined": self.combined}
        if self.threshold is not None:
            data["threshold"] = self.threshold
        return data


@dataclass
class JudgeInfo:
    score: float
    verdict: str
    reason: str | None
    raw: str  # the judge's reply, verbatim
    parsed: bool


@dataclass
class GateOutcome:
    status: str  # "done" | "failed"
    verdict: str | None  # "pass" | "block"; None when the gate failed
    reason: str | None
    output: str
    source: str  # "eval" | "score" | "judge" | "task" | "fail-open"
    json: JSONValue = MISSING  # the docs/gates.md §6 structured result for score gates (or the parsed output:"json")
    scores: ScoreInfo | None = None
    judge: JudgeInfo | None = None
    combined: Combined | None = None  # the final combine (for the arithmetic line)
    report: str | None = None  # the docs/gates.md §6 report text, when one was built
    target: str | None = None  # the interpolated score.target
    unresolved: list[str] = field(default_factory=list)  # score.target paths that did not resolve
    eval_checks: list[EvalCheck] = field(default_factory=list)
    prompts: list[tuple[str, str]] = field(default_factory=list)  # (node_path, prompt) as sent
    usage: list[tuple[str, Usage | None]] = field(default_factory=list)  # (node_path, usage) per call
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def arithmetic(self) -> str | None:
        """The combine arithmetic in one line (`explain`), built only when shown."""
        return explain(self.combined) if self.combined is not None else None


# Shape errors of `score` blocks, cached by content: a flow often repeats one block on many
# gates, and the key (one C-level JSON dump) is far cheaper than the check. Keying by
# content rather than object identity also means an in-place edit is always re-checked.
_SHAPES: dict[str | bytes, list[str]] = {}


def _not_json(value: object) -> object:
    raise TypeError(f"not JSON data: {type(value).__name__}")


# What `json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode`
# builds on every call (its C encoder), built once: the key was most of the cost of a gate's check.
_SHAPE_KEY = make_encoder(None, _not_json, encode_basestring, None, ":", ",", False, False, True)


_FAST_KEY = msgspec.json.Encoder().encode  # ~7x cheaper again; it writes NaN and infinities as null


def _shape_key(score: JSONValue) -> str | bytes:
    try:
        key = _FAST_KEY(score)
    except Exception:  # noqa: BLE001 - anything msgspec refuses (a lone surrogate, an odd type): the C encoder says
        key = b"null"
    if b"null" not in key:
        return key
    return "".join(_SHAPE_KEY(score, 0))  # null, NaN and infinities told apart (a str key: never equal to bytes)


def _score_shape_errors(score: JSONValue) -> list[str]:
    try:
        key = _shape_key(score)
    except (TypeError, ValueError, RecursionError):  # not plain JSON data: check it uncached
        return score_shape_errors(score)
    errors = _SHAPES.get(key)
    if errors is None:
        errors = score_shape_errors(score)
        if len(_SHAPES) >= 1024:
            _SHAPES.clear()
        _SHAPES[key] = errors
    return errors


def skips_eval(phase: PhaseBase, round_: int) -> bool:
    """docs/gates.md §9: an onBlock round re-runs a score gate entirely, any other gate only its task."""
    return round_ > 0 and getattr(phase, "score", None) is None


def gate_format_suffix(task: str, phase: PhaseBase) -> str:
    """docs/gates.md §2: the suffix to append to a gate task ("" when not applicable)."""
    if getattr(phase, "output", "text") == "json" and getattr(phase, "expect", None) is not None:
        return ""
    if _VERDICT_MARKER.search(task):
        return ""
    return GATE_FORMAT_SUFFIX


def judge_prompt(preread: str, judge_task: str, target: str, report: str) -> str:
    """docs/gates.md §7 judge prompt; ``` inside the target cannot close the fence."""
    fenced = target.replace("```", _ZWSP_FENCE)
    return (
        f"{preread}{judge_task}{REPORT_SEPARATOR}## Target under evaluation\n```\n{fenced}\n```\n\n"
        f"{report}\n\n{JUDGE_INSTRUCTION}"
    )


def task_fallback_prompt(preread: str, task: str, report: str, phase: PhaseBase) -> str:
    """docs/gates.md §5 task fallback: task, separator, report, then the format suffix."""
    return preread + task + REPORT_SEPARATOR + report + gate_format_suffix(task, phase)


def _render(template: JSONValue, ctx: Context, warnings: list[str]) -> str:
    if not isinstance(template, str):
        return "" if template is None else str(template)
    filled = interpolate(template, ctx)
    if filled.missing:
        warnings.append(missing_warning(list(filled.missing)))
    return filled.text


def _warn(warnings: list[str], text: str) -> None:
    if text not in warnings:
        warnings.append(text)


async def _call(runner: AgentRunner, request: AgentRequest, out: GateOutcome) -> AgentResult:
    out.prompts.append((request.node_path, request.task))
    try:
        result = await runner.run(request)
    except Exception as exc:  # a runner bug fails the gate; it must not crash the run
        result = AgentResult(error=f"runner error: {type(exc).__name__}: {exc}", exit_code=1)
    out.usage.append((request.node_path, result.usage))
    return result


def _failed(out: GateOutcome, result: AgentResult) -> GateOutcome:
    error = result.error or result.stderr or f"Agent exited with code {result.exit_code}"
    out.status, out.verdict, out.output, out.error = "failed", None, error, error
    return out


def _score_json(
    verdict: str, combined: float, results: list[ScorerResult], threshold: float | None,
    results_json: list[ScorerResultJSON] | None = None,
) -> ScoreJSON:
    data: ScoreJSON = {
        "verdict": verdict,
        "combined": combined,
        "results": results_json if results_json is not None else [r.to_json() for r in results],
    }
    if threshold is not None:
        data["threshold"] = threshold
    return data


async def evaluate_gate(
    phase: PhaseBase,
    ctx: Context,
    runner: AgentRunner,
    *,
    preread: str = "",
    node_path: str | None = None,
    compile_timeout_s: float = 30,
    skip_eval: bool = False,
    code_compiles: CompileCheck | None = None,
    offload_regex: bool = True,
    regex_released: bool = False,
) -> GateOutcome:
    """One evaluation of a gate phase (docs/gates.md §1): eval → score → task.

    `code_compiles` replaces the compiler run of `code-compiles` scorers (what-if answers
    them from the recorded results); by default the compiler runs with `compile_timeout_s`.
    `offload_regex`: a long regex match moves to a worker thread (docs/trust.md §3); what-if,
    which drives the pipeline without an event loop, matches in place (still within the budget);
    `regex_released`: the caller already runs in a worker thread (the debugger's what-if), so an
    in-place match releases the interpreter lock as the offloaded one does.
    """
    path = node_path or phase.id
    out = GateOutcome("done", None, None, "", "eval")  # status, verdict, reason, output, source (positional: cheaper)
    entries = getattr(phase, "eval", None)
    if not skip_eval and isinstance(entries, list) and entries:
        out.eval_checks = [evaluate_eval_entry(entry, ctx) for entry in entries]
        if all(check.passed for check in out.eval_checks):
            out.verdict, out.output = "pass", EVAL_PASS_OUTPUT
            return out
    score = getattr(phase, "score", None)
    if score is not None:
        errors = _score_shape_errors(score)
        if not errors:
            if code_compiles is None:
                code_compiles = _compiler(compile_timeout_s)
            return await _evaluate_score(phase, score, ctx, runner, out, preread, path, code_compiles, offload_regex,
                                         regex_released)
        _warn(out.warnings, f"gate 'score' is malformed and was ignored: {errors[0]}")
    return await _plain_task(phase, ctx, runner, out, preread, path)


async def _plain_task(
    phase: PhaseBase, ctx: Context, runner: AgentRunner, out: GateOutcome, preread: str, path: str
) -> GateOutcome:
    """docs/gates.md §1 step 3: the gate's own LLM call, verdict by docs/gates.md §3."""
    out.source = "task"
    if not isinstance(phase.task, str) or not js_trim(phase.task):
        # only reachable for unchecked flows (validation requires task unless score)
        _warn(out.warnings, "gate has no usable 'task' or 'score' — passed (fail-open)")
        out.verdict, out.source, out.output = "pass", "fail-open", "PASS (nothing to evaluate — fail-open)"
        return out
    task = _render(phase.task, ctx, out.warnings)
    request = _request(
        phase, path, phase.agent or "default", preread + task + gate_format_suffix(task, phase)
    )
    request.output = "json" if getattr(phase, "output", "text") == "json" else "text"
    result = await _ask_verdict(runner, request, out)
    if result.failed:
        return _failed(out, result)
    if request.output == "json":
        out.json = lenient_parse(result.output)
    return out


async def _ask_verdict(runner: AgentRunner, request: AgentRequest, out: GateOutcome) -> AgentResult:
    """Run a gate's own task call and, when it answered, parse its verdict into `out` (docs/gates.md §3)."""
    result = await _call(runner, request, out)
    if not result.failed:
        parsed = parse_gate_verdict(result.output)
        if not parsed.parsed:
            _warn(out.warnings, GATE_UNPARSEABLE)
        out.verdict, out.reason, out.output = parsed.verdict, parsed.reason, result.output
    return result


def _request(phase: PhaseBase, node_path: str, agent: str, task: str) -> AgentRequest:
    return AgentRequest(
        node_path=node_path,
        phase_id=phase.id,
        agent=agent,
        task=task,
        model=getattr(phase, "model", None),
        thinking=getattr(phase, "thinking", None),
    )


def _compiler(timeout_s: float) -> CompileCheck:
    async def check(scorer: ScorerSpec, index: int, target: str) -> ScorerResult:
        return await run_code_compiles(scorer, index, target, timeout_s=timeout_s)

    return check


async def _run_scorers(
    scorers: list[JSONValue], target: str, code_compiles: CompileCheck, offload_regex: bool, released: bool
) -> list[ScorerResult]:
    results: list[ScorerResult] = []
    for index, scorer in enumerate(scorers):
        kind = scorer.get("type") if isinstance(scorer, Mapping) else None
        if kind == "code-compiles":
            results.append(await code_compiles(scorer, index, target))
        elif kind == "regex" and offload_regex:
            results.append(await _bounded_regex(scorer, index, target))
        else:
            results.append(evaluate_scorer(scorer, index, target, offload=released))
    return results


async def _bounded_regex(scorer: JSONValue, index: int, target: str) -> ScorerResult:
    """A regex scorer that cannot block the event loop (docs/trust.md §3): a short try in place (the
    normal case ends here, in microseconds); a match still going after it is re-run in a worker
    thread with the whole budget, releasing the GIL, so the loop and signal handlers keep running."""
    budget = default_budget()
    inline = min(REGEX_INLINE_S, budget)
    quick = evaluate_scorer(scorer, index, target, regex_budget_s=inline)
    if inline >= budget or not quick.timed_out:
        return quick
    return await _in_daemon_thread(scorer, index, target)


async def _in_daemon_thread(scorer: JSONValue, index: int, target: str) -> ScorerResult:
    """`evaluate_scorer` in a daemon thread: a run that is cancelled or interrupted meanwhile
    neither waits for the match nor keeps tftui from exiting (the default executor would)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[ScorerResult] = loop.create_future()

    def settle(result: ScorerResult) -> None:
        if not done.done():
            done.set_result(result)

    def work() -> None:
        result = evaluate_scorer(scorer, index, target, offload=True)  # never raises
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, result)

    threading.Thread(target=work, name="tftui-regex", daemon=True).start()
    return await done


async def _evaluate_score(
    phase: PhaseBase,
    score: ScoreBlock,
    ctx: Context,
    runner: AgentRunner,
    out: GateOutcome,
    preread: str,
    path: str,
    code_compiles: CompileCheck,
    offload_regex: bool,
    regex_released: bool = False,
) -> GateOutcome:
    """docs/gates.md §5."""
    out.source = "score"
    filled = interpolate(score.get("target") or "{previous.output}", ctx)
    missing = list(dict.fromkeys(filled.missing))
    out.target, out.unresolved = filled.text, missing
    results = [] if missing else await _run_scorers(score["scorers"], filled.text, code_compiles, offload_regex,
                                                      regex_released)
    mode = score.get("combine", "all")
    weights, threshold = score.get("weights"), score.get("threshold")
    judge_cfg = score.get("judge")
    det = combine(results, mode, weights, threshold, judge_configured=judge_cfg is not None)
    shown_threshold = det.threshold if det.mode == "weighted" else None
    out.combined = det
    out.scores = ScoreInfo(results, det.score, shown_threshold)

    if not missing and det.passed:  # auto-pass (incl. the weighted early cutoff)
        out.verdict, out.output = "pass", SCORE_PASS_OUTPUT
        # the results' JSON built once, for the gate's json and its scores (both read-only)
        results_json = [r.to_json() for r in results]
        out.scores.results_json = results_json
        out.json = _score_json("pass", det.score, results, shown_threshold, results_json)
        return out

    out.report = scorer_report(results, det.deterministic, shown_threshold, unresolved=missing)
    if judge_cfg is not None:
        return await _judge(phase, judge_cfg, ctx, runner, out, preread, path, results, score)
    if isinstance(phase.task, str) and js_trim(phase.task):
        out.source = "task"
        task = _render(phase.task, ctx, out.warnings)
        request = _request(
            phase, path, phase.agent or "default", task_fallback_prompt(preread, task, out.report, phase)
        )
        result = await _ask_verdict(runner, request, out)
        if result.failed:
            return _failed(out, result)
        out.json = _score_json(out.verdict or "pass", det.score, results, shown_threshold)
        return out
    if missing:
        paths = ", ".join(missing)
        out.source, out.verdict, out.output = "fail-open", "pass", UNRESOLVED_OUTPUT
        out.reason = f"score.target unresolved: {paths}"
        _warn(out.warnings, f"gate score.target did not resolve ({paths}) — fail-open PASS")
        out.json = {"verdict": "pass", "combined": 0, "results": []}
        out.scores = ScoreInfo([], 0, None)
        return out
    out.verdict, out.reason = "block", BLOCK_REASON
    out.output = f"{BLOCK_OUTPUT}\n\n{out.report}"
    out.json = _score_json("block", det.score, results, shown_threshold)
    return out


async def _judge(
    phase: PhaseBase,
    judge_cfg: ScoreBlock,
    ctx: Context,
    runner: AgentRunner,
    out: GateOutcome,
    preread: str,
    path: str,
    results: list[ScorerResult],
    score: ScoreBlock,
) -> GateOutcome:
    """docs/gates.md §7: ask the judge with the task, the fenced target and the scorer report."""
    out.source = "judge"
    agent_name = judge_cfg.get("agent")
    own_agent = not (isinstance(agent_name, str) and agent_name)
    agent = str(phase.agent or "default") if own_agent else str(agent_name)
    judge_task = _render(judge_cfg.get("task"), ctx, out.warnings)
    request = _request(
        phase, f"{path}#judge", agent, judge_prompt(preread, judge_task, out.target or "", out.report or "")
    )
    if not own_agent:
        request.model = None  # the gate's `model` belongs to the gate's agent, not the judge's
    result = await _call(runner, request, out)
    if result.failed:
        return _failed(out, result)
    parsed = parse_judge_output(result.output)
    if not parsed.parsed:
        _warn(out.warnings, JUDGE_UNPARSEABLE)
    out.judge = JudgeInfo(parsed.score, parsed.verdict, parsed.reason, result.output, parsed.parsed)
    final = combine(
        results, score.get("combine", "all"), score.get("weights"), score.get("threshold"), judge=parsed
    )
    verdict = "pass" if final.passed else "block"
    # weighted: the merged score; all/any: the judge decides and `combined` is the judge score
    combined = final.score if final.mode == "weighted" else parsed.score
    threshold = final.threshold if final.mode == "weighted" else None
    out.combined = final
    out.scores = ScoreInfo(results, combined, threshold)
    out.verdict, out.reason, out.output = verdict, parsed.reason, result.output
    data = _score_json(verdict, combined, results, threshold)
    judge: JudgeJSON = {"score": parsed.score}
    if parsed.reason:
        judge["reason"] = parsed.reason
    data["judge"] = judge
    out.json = data
    return out
