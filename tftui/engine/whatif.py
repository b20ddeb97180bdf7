"""What-if for gates: change a threshold, a weight, the combine mode or a scorer field and
see whether the verdict flips — at zero tokens, without touching the file.

`what_if_gate(phase, ctx, overrides, previous=...)` runs the real gate pipeline
(`tftui.scoring.gate.evaluate_gate`, docs/gates.md §1-§7) on the current upstream outputs with
the overrides applied to a copy of the phase. Its model calls go to a `ReplayRunner` that
answers only from the calls recorded in `previous` (keyed by node path and exact prompt:
the scorer report inside a judge prompt changes with thresholds and weights, so a recorded
reply is reused only when the prompt is byte-identical). Any other call is not made: the
answer is a typed `WouldCall` (the node and the exact prompt), and — when the judge
answered before — an estimate with its previous reply. `code-compiles` scorers are
answered from their recorded result (what-if never runs a compiler).

`apply_score_edit_to_source` turns the same overrides into a surgical source edit
(tftui.flow.edit) and `save_flow_text` (tftui.flow.save) writes it safely. The words the
TUI shows for a result are in tftui.present.whatif_text.

Nothing here calls a model, and nothing raises on user input.
"""

from __future__ import annotations

import copy
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from tftui.agents.base import AgentRequest, AgentResult
from tftui.engine.gate_history import GateRecord
from tftui.flow.edit import REMOVE, EditResult, set_phase_values
from tftui.flow.model import PhaseBase
from tftui.flow.save import SaveResult, file_fingerprint, save_flow_text, text_fingerprint
from tftui.lang.interpolate import Context
from tftui.lang.values import js_trim
from tftui.scoring.combine import Combined
from tftui.scoring.gate import GateOutcome, evaluate_gate, skips_eval
from tftui.scoring.scorers import ScorerResult, score_shape_errors

__all__ = [
    "REMOVE",
    "ScoreOverrides",
    "WhatIfResult",
    "Decision",
    "WouldCall",
    "RecordedCalls",
    "ReplayRunner",
    "what_if_gate",
    "apply_score_edit_to_source",
    "save_flow_text",
    "SaveResult",
    "text_fingerprint",
    "file_fingerprint",
]

@dataclass
class ScoreOverrides:
    """Edits to a gate's `score` block. Scorer field values may be `REMOVE` (delete the key)."""

    threshold: float | None = None
    combine: str | None = None
    weights: dict[int, float] = field(default_factory=dict)  # index in score.weights -> value
    scorers: dict[int, dict[str, Any]] = field(default_factory=dict)  # scorer index -> {field: value}
    # A combine-mode change keeps the block valid (docs/gates.md §5 shape rules): leaving "weighted"
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


@dataclass(frozen=True)
class WouldCall:
    """A model call what-if did not make: no call with this exact prompt was recorded."""

    node_path: str  # `<gate>` (the gate task) or `<gate>#judge`
    prompt: str  # exactly what would be sent

    @property
    def judge(self) -> bool:
        return self.node_path.endswith("#judge")


class RecordedCalls:
    """The replies of a gate's recorded model calls, keyed by node path and exact prompt."""

    def __init__(self) -> None:
        self._replies: dict[tuple[str, str], str] = {}
        self._by_node: dict[str, str] = {}  # node path -> its latest recorded reply (estimates)
        self._prompts: dict[str, list[str]] = {}  # node path -> recorded prompts, in order
        self.scorers: list[ScorerResult] = []  # the recorded scorer results (code-compiles reuse)

    def add(self, node_path: str, prompt: str | None, reply: str | None) -> None:
        if prompt is None:
            return
        seen = self._prompts.setdefault(node_path, [])
        if prompt not in seen:
            seen.append(prompt)
        if reply is not None:
            self._replies[(node_path, prompt)] = reply
            self._by_node[node_path] = reply

    def reply(self, node_path: str, prompt: str) -> str | None:
        return self._replies.get((node_path, prompt))

    def latest_reply(self, node_path: str) -> str | None:
        return self._by_node.get(node_path)

    def prompts(self, node_path: str) -> list[str]:
        return list(self._prompts.get(node_path, []))

    @classmethod
    def of(cls, previous: GateRecord | GateOutcome | None, phase_id: str) -> RecordedCalls:
        """The calls of a previous evaluation: a gate_history.GateRecord or a scoring GateOutcome."""
        calls = cls()
        if isinstance(previous, GateRecord):
            for call in previous.calls:  # the last attempt of each node is the one that counted
                calls.add(call.node_path, call.prompt, call.output if call.error is None else None)
            calls.add(f"{phase_id}#judge", previous.judge_prompt, previous.judge_reply)
            calls.add(phase_id, previous.task_prompt, previous.task_reply)
            calls.scorers = [
                ScorerResult(row.name, row.type, row.passed, row.score, row.detail) for row in previous.rows
            ]
        elif isinstance(previous, GateOutcome):
            for node, prompt in previous.prompts:
                if node.endswith("#judge"):
                    calls.add(node, prompt, previous.judge.raw if previous.judge is not None else None)
                elif node == phase_id and previous.source == "task" and previous.status == "done":
                    calls.add(node, prompt, previous.output)
                else:
                    calls.add(node, prompt, None)
            calls.scorers = list(previous.scores.results) if previous.scores is not None else []
        return calls


class ReplayRunner:
    """An AgentRunner that answers only from recorded calls and never calls a model.

    A request whose exact prompt was recorded gets the recorded reply; any other request is
    noted in `unanswered` and fails (so the gate pipeline stops there). `any_prompt` lists
    node paths answered with their latest recorded reply whatever the prompt (an estimate).
    """

    def __init__(self, calls: RecordedCalls, *, any_prompt: tuple[str, ...] = ()) -> None:
        self.calls = calls
        self.any_prompt = any_prompt
        self.unanswered: list[WouldCall] = []
        self.reused = 0  # requests answered by a recorded reply to the identical prompt

    async def run(self, request: AgentRequest) -> AgentResult:
        reply = self.calls.reply(request.node_path, request.task)
        if reply is not None:
            self.reused += 1
        elif request.node_path in self.any_prompt:
            reply = self.calls.latest_reply(request.node_path)
        if reply is None:
            self.unanswered.append(WouldCall(request.node_path, request.task))
            return AgentResult(error="not recorded", exit_code=1)
        return AgentResult(output=reply)


class _RecordedCompiles:
    """Answers `code-compiles` scorers from the recorded results (what-if never runs a compiler)."""

    def __init__(self, calls: RecordedCalls, touched: set[int]) -> None:
        self.calls = calls
        self.touched = touched
        self.unknown: list[int] = []

    async def __call__(self, scorer: Mapping[str, Any], index: int, target: str) -> ScorerResult:
        old = self.calls.scorers[index] if index < len(self.calls.scorers) else None
        if old is not None and old.type == "code-compiles" and index not in self.touched:
            return ScorerResult(old.name, old.type, old.passed, old.score, old.detail)
        self.unknown.append(index)
        return ScorerResult(js_trim(str(scorer.get("name") or "")) or f"code-compiles-{index}",
                            "code-compiles", False, 0, None)


@dataclass
class Decision:
    """One answer of the real gate pipeline (scoring.gate.evaluate_gate) on recorded calls."""

    outcome: GateOutcome
    would_call: WouldCall | None = None  # the first call whose prompt was not recorded
    would_compile: tuple[int, ...] = ()  # code-compiles scorers without a recorded result
    reused: bool = False  # a recorded reply answered an identical prompt

    @property
    def known(self) -> bool:
        return self.would_call is None and not self.would_compile and self.outcome.status == "done"

    @property
    def verdict(self) -> str | None:
        return self.outcome.verdict if self.known else None

    @property
    def source(self) -> str:
        return self.outcome.source

    @property
    def score(self) -> float | None:
        """The combined score the gate would record (`gate.scores.combined`)."""
        return self.outcome.scores.combined if self.outcome.scores is not None else None


@dataclass
class WhatIfResult:
    """Before (the recorded evaluation, or the unchanged gate re-decided) and after the edit."""

    before: Decision | None  # None when a recorded evaluation was given (see `previous`)
    previous: GateRecord | GateOutcome | None
    after: Decision | None  # None when the edited score block is invalid
    errors: list[str] = field(default_factory=list)  # shape errors of the edited score block
    estimate: Decision | None = None  # the judge answered with its previous reply (an estimate)

    @property
    def before_verdict(self) -> str | None:
        if self.previous is not None:
            return self.previous.verdict
        return self.before.verdict if self.before is not None else None

    @property
    def before_source(self) -> str:
        if self.previous is not None:
            return self.previous.source or ""
        return self.before.source if self.before is not None else ""

    @property
    def after_verdict(self) -> str | None:
        """None: an LLM would have to be asked (or the block is invalid)."""
        return self.after.verdict if self.after is not None else None

    @property
    def after_source(self) -> str:
        return self.after.source if self.after is not None else ""

    @property
    def after_score(self) -> float | None:
        return self.after.score if self.after is not None else None

    @property
    def flips(self) -> bool | None:
        """None when unknown (an LLM would be asked, or there is nothing to compare)."""
        if self.after_verdict is None or self.before_verdict is None:
            return None
        return self.after_verdict != self.before_verdict

    @property
    def would_call(self) -> WouldCall | None:
        return self.after.would_call if self.after is not None else None

    @property
    def needs_llm(self) -> bool:
        return self.would_call is not None

    @property
    def llm_node_path(self) -> str | None:
        return self.would_call.node_path if self.would_call is not None else None

    @property
    def llm_prompt(self) -> str | None:
        return self.would_call.prompt if self.would_call is not None else None

    @property
    def reused_reply(self) -> bool:
        return self.after is not None and self.after.reused

    @property
    def estimate_verdict(self) -> str | None:
        return self.estimate.verdict if self.estimate is not None else None

    @property
    def combined(self) -> Combined | None:
        return self.after.outcome.combined if self.after is not None else None

    @property
    def results(self) -> list[ScorerResult]:
        scores = self.after.outcome.scores if self.after is not None else None
        return list(scores.results) if scores is not None else []

    @property
    def weights(self) -> list[float]:
        """Per scorer, as used (weighted mode)."""
        combined = self.combined
        return list(combined.weights) if combined is not None else []


def _settle(coro: Coroutine[Any, Any, GateOutcome]) -> GateOutcome | None:
    """Drive a pipeline coroutine that never waits (every answer is recorded) to its end."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()  # it waited on real I/O: impossible with the recorded runner and compile check
    return None


def _decide(
    phase: PhaseBase, ctx: Context, calls: RecordedCalls, preread: str, touched: set[int],
    *, skip_eval: bool = False, any_prompt: tuple[str, ...] = (), in_worker: bool = False,
) -> Decision:
    runner = ReplayRunner(calls, any_prompt=any_prompt)
    compiles = _RecordedCompiles(calls, touched)
    outcome = _settle(
        evaluate_gate(phase, ctx, runner, preread=preread, node_path=phase.id, skip_eval=skip_eval,
                      code_compiles=compiles, offload_regex=False, regex_released=in_worker)
    )
    if outcome is None:  # pragma: no cover - guarded by _settle's contract
        outcome = GateOutcome(status="failed", verdict=None, reason=None, output="", source="",
                              error="what-if pipeline waited on I/O")
    would = runner.unanswered[0] if runner.unanswered else None
    return Decision(outcome, would, tuple(compiles.unknown), would is None and runner.reused > 0)


def _derive_preread(phase: PhaseBase, ctx: Context, calls: RecordedCalls, skip_eval: bool, in_worker: bool) -> str:
    """The context pre-read prefix the recorded prompts were sent with.

    The pipeline is run once without a prefix on the unchanged gate; a recorded prompt of
    the node it would call ends with that prompt, and what comes before is the prefix."""
    bare = ReplayRunner(RecordedCalls())
    _settle(evaluate_gate(phase, ctx, bare, preread="", node_path=phase.id, skip_eval=skip_eval,
                          code_compiles=_RecordedCompiles(calls, set()), offload_regex=False,
                          regex_released=in_worker))
    for would in bare.unanswered:
        for recorded in calls.prompts(would.node_path):
            if recorded.endswith(would.prompt):
                return recorded[: len(recorded) - len(would.prompt)]
    return ""


def what_if_gate(
    phase: PhaseBase,
    ctx: Context,
    overrides: ScoreOverrides | None,
    *,
    previous: GateRecord | GateOutcome | None = None,
    preread: str | None = None,
    in_worker: bool = False,
) -> WhatIfResult:
    """Re-decide a gate with `overrides` through the real pipeline, at zero tokens.

    `previous`: the evaluation to compare against (a GateOutcome, or a GateRecord from
    tftui.engine.gate_history); its recorded calls answer identical prompts. Without it the
    unmodified gate is re-decided the same way (and any model call would have to be made).
    A regex scorer matches in place within the run's budget (docs/trust.md §3); `in_worker`: the
    caller runs this in a worker thread (the debugger does), so a match releases the interpreter lock.
    """
    overrides = overrides or ScoreOverrides()
    calls = RecordedCalls.of(previous, phase.id)
    # an onBlock round of a gate without a score block re-ran only its task (docs/gates.md §9)
    skip_eval = skips_eval(phase, previous.round if isinstance(previous, GateRecord) else 0)
    pre = preread if preread is not None else _derive_preread(phase, ctx, calls, skip_eval, in_worker)
    before = _decide(phase, ctx, calls, pre, set(), skip_eval=skip_eval, in_worker=in_worker) if previous is None else None
    score = getattr(phase, "score", None)
    if overrides.empty:
        edited_phase = phase
    elif not isinstance(score, Mapping):
        return WhatIfResult(before, previous, None, errors=["this gate has no score block to change"])
    else:
        edited = overrides.apply(score)
        errors = score_shape_errors(edited)
        if errors:
            return WhatIfResult(before, previous, None, errors=errors)
        edited_phase = phase.model_copy(update={"score": edited})
    touched = set(overrides.scorers)
    after = _decide(edited_phase, ctx, calls, pre, touched, skip_eval=skip_eval, in_worker=in_worker)
    result = WhatIfResult(before, previous, after)
    judge = f"{phase.id}#judge"
    if after.would_call is not None and after.would_call.judge and calls.latest_reply(judge) is not None:
        estimate = _decide(edited_phase, ctx, calls, pre, touched, skip_eval=skip_eval, any_prompt=(judge,),
                           in_worker=in_worker)
        result.estimate = estimate if estimate.known else None
    return result


def apply_score_edit_to_source(text: str, phase_id: str, overrides: ScoreOverrides) -> EditResult:
    """Write the overrides into the flow source, changing only the edited values' bytes.

    Returns `EditResult(text)` or `EditResult(None, error)` (e.g. a shorthand flow, an
    unknown phase, or a weight index the file's `weights` array does not have).
    """
    if overrides.empty:
        return EditResult(text)
    return set_phase_values(text, phase_id, overrides.edits())
