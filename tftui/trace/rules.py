"""Versioned trace rules (docs/trace-gates.md §2, §3): deterministic, narrow checks that return evidence.

Evaluation design: rules read a `TraceColumns` (one plain list per field), never pydantic
objects, through `Facts` (facts.py), which computes each fact once per trace and shares it
between rules, each in one C-level pass over a column.
A rule never raises: an unexpected exception becomes a failed result naming the rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from tftui.lang.values import js_number_str
from tftui.trace.columns import TraceColumns
from tftui.trace.facts import ABSENT, Facts, Signature

if TYPE_CHECKING:
    from tftui.trace.model import AgentTrace

Severity = Literal["error", "warning"]
SEVERITIES: tuple[str, ...] = ("error", "warning")
# synthetic: exact checks of scripted fixtures on a fake clock; real: distribution checks over many real runs
Profile = Literal["synthetic", "real"]
PROFILES: tuple[str, ...] = ("synthetic", "real")
EvidenceValue = str | int | float | bool
DEFAULT_SIGNATURE_KEYS: tuple[str, ...] = ("planner_state", "selected_tool", "outcome")


class RuleResultJSON(TypedDict):
    """A rule result in report.json."""

    ruleId: str
    severity: str
    passed: bool
    message: str
    evidence: NotRequired[dict[str, EvidenceValue]]
    fix: NotRequired[str]


@dataclass(frozen=True, slots=True)
class RuleResult:
    rule_id: str  # "<id>@<version>"
    severity: str
    passed: bool
    message: str
    evidence: dict[str, EvidenceValue] | None = None
    fix: str | None = None  # what to change (failing results only), shown in the Markdown report

    def to_json(self) -> RuleResultJSON:
        out: RuleResultJSON = {
            "ruleId": self.rule_id,
            "severity": self.severity,
            "passed": self.passed,
            "message": self.message,
        }
        if self.evidence is not None:
            out["evidence"] = dict(self.evidence)
        if self.fix is not None:
            out["fix"] = self.fix
        return out


def num_text(value: float | int) -> str:
    """Numbers in messages are written as JavaScript would (`1000`, not `1000.0`)."""
    return js_number_str(value)


def signature_text(parts: Signature) -> str:
    """`name|kind|status|v1|v2|…`; an absent metadata key is empty, null is `null`, numbers as in JS."""
    out: list[str] = []
    for part in parts:
        if part is ABSENT:
            out.append("")
        elif part is None:
            out.append("null")
        elif isinstance(part, bool):
            out.append("true" if part else "false")
        elif isinstance(part, (int, float)):
            out.append(num_text(part))
        else:
            out.append(str(part))
    return "|".join(out)


@dataclass(frozen=True)
class Rule:
    """A versioned rule. `id` is the parameterised id (`order:a:b`); results say `<id>@<version>`."""

    severity: Severity = "error"
    version: int = field(default=1, kw_only=True)
    profile: Profile = field(default="synthetic", kw_only=True)
    per_trace: bool = field(default=True, init=False, repr=False)  # False: judged over many traces of a fixture

    @property
    def id(self) -> str:
        raise NotImplementedError

    @property
    def rule_id(self) -> str:
        return f"{self.id}@{self.version}"

    def check(self, facts: Facts) -> RuleResult:
        raise NotImplementedError

    def evidence_steps(self, facts: Facts) -> list[int]:
        """Indices of the steps a failing result is about (what a reduced artifact trace keeps);
        [] when the evidence is an absence (a missing step). Only asked for failed rules."""
        return []

    def evaluate(self, facts: Facts) -> RuleResult:
        """`check`, but never raising: a bug in a rule fails that rule, visibly, instead of the gate."""
        try:
            return self.check(facts)
        except Exception as exc:  # noqa: BLE001 - the rule interface promises never to raise
            return self.result(False, f"Rule could not be evaluated: {type(exc).__name__}: {exc}",
                               fix="This is a tftui bug; report it with the trace.")

    def result(self, passed: bool, message: str, evidence: dict[str, EvidenceValue] | None = None,
               fix: str | None = None) -> RuleResult:
        return RuleResult(self.rule_id, self.severity, passed, message, evidence, None if passed else fix)


@dataclass(frozen=True)
class RequiredSteps(Rule):
    names: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return "required_steps"

    def check(self, facts: Facts) -> RuleResult:
        missing = [n for n in self.names if facts.first_index(n) is None]
        if not missing:
            return self.result(True, "All required steps ran", {"missingCount": 0})
        return self.result(
            False,
            f"Missing required steps: {', '.join(missing)}",
            {"missingCount": len(missing)},
            fix="Make these steps run (check their `when` guards and the failures upstream of them), "
            "or remove them from the rule's `names` if they are no longer required.",
        )


@dataclass(frozen=True)
class Order(Rule):
    before: str = ""
    after: str = ""

    @property
    def id(self) -> str:
        return f"order:{self.before}:{self.after}"

    def check(self, facts: Facts) -> RuleResult:
        left = facts.first_index(self.before)
        right = facts.first_index(self.after)
        if left is None or right is None:
            gone = [n for n, i in ((self.before, left), (self.after, right)) if i is None]
            return self.result(
                False,
                "Cannot evaluate order: step missing",
                fix=f"No step named {' or '.join(gone)} ran: make it run or fix the step name in the rule.",
            )
        seqs = facts.cols.sequences
        before_seq, after_seq = seqs[left], seqs[right]
        evidence: dict[str, EvidenceValue] = {"beforeSequence": before_seq, "afterSequence": after_seq}
        if before_seq < after_seq:
            return self.result(True, f"{self.before} occurred before {self.after}", evidence)
        return self.result(
            False,
            f"{self.after} occurred before required dependency {self.before}",
            evidence,
            fix=f"Make {self.after} depend on {self.before} (dependsOn), so it cannot start first.",
        )

    def evidence_steps(self, facts: Facts) -> list[int]:
        return [i for i in (facts.first_index(self.before), facts.first_index(self.after)) if i is not None]


@dataclass(frozen=True)
class NoExternalWorkAfterBlock(Rule):
    """The first blocked step, then every model/tool step with a greater sequence is forbidden.

    tftui decision: `run` steps are not candidates for "the block". A run step's status is the
    outcome of the whole run (docs/trace-gates.md §8 gives a blocked run's root `blocked` at sequence 0), so
    taking it literally would flag every step of every blocked run; the block itself is the
    policy step that decided it.
    """

    @property
    def id(self) -> str:
        return "no_external_work_after_block"

    def check(self, facts: Facts) -> RuleResult:
        block = facts.first_blocked()
        if block is None:
            return self.result(True, "Run was not blocked")
        cols = facts.cols
        forbidden = facts.external_after(block)
        if not forbidden:
            return self.result(True, "No model or tool work occurred after the block", {"forbiddenCount": 0})
        return self.result(
            False,
            f"External work continued after block: {', '.join(forbidden)}",
            {"forbiddenCount": len(forbidden)},
            fix=f"A block at {cols.names[block]} must stop the run: no phase may start after it (docs/scheduling.md §3). "
            "Check the scheduler's block handling.",
        )

    def evidence_steps(self, facts: Facts) -> list[int]:
        block = facts.first_blocked()
        return [] if block is None else [block, *facts.external_indices_after(block)]


@dataclass(frozen=True)
class MaxAttempts(Rule):
    name: str = ""
    limit: int = 1

    @property
    def id(self) -> str:
        return f"max_attempts:{self.name}"

    def check(self, facts: Facts) -> RuleResult:
        maximum = facts.max_attempt(self.name)
        evidence: dict[str, EvidenceValue] = {"maximumAttempt": maximum, "limit": self.limit}
        limit = num_text(self.limit)
        if maximum <= self.limit:
            return self.result(True, f"{self.name} stayed within {limit} attempts", evidence)
        return self.result(
            False,
            f"{self.name} reached attempt {num_text(maximum)}; limit is {limit}",
            evidence,
            fix=(f"{self.name} must not run at all under this rule: find out why it ran, or raise the limit "
                 "if it now may." if self.limit == 0 else
                 f"Fix the cause of {self.name}'s failed attempts or lower its retry.max; "
                 "raise the limit only with a reviewed reason."),
        )

    def evidence_steps(self, facts: Facts) -> list[int]:
        attempts = facts.cols.attempts
        return [i for i in facts.indices(self.name) if (attempts[i] or 1) > self.limit]


@dataclass(frozen=True)
class MaxTotalTokens(Rule):
    limit: float | int = 0

    @property
    def id(self) -> str:
        return "max_total_tokens"

    def check(self, facts: Facts) -> RuleResult:
        missing, total = facts.token_usage()
        if missing:
            return self.result(
                False,
                "Model usage is missing",
                {"missingUsageCount": missing},
                fix="Record input and output tokens on every model step (use an adapter that reports usage); "
                "unmeasured usage never counts as zero.",
            )
        evidence: dict[str, EvidenceValue] = {"totalTokens": total, "limit": self.limit}
        if total <= self.limit:
            return self.result(True, f"Token usage {num_text(total)} is within budget {num_text(self.limit)}", evidence)
        return self.result(
            False,
            f"Token usage {num_text(total)} exceeds budget {num_text(self.limit)}",
            evidence,
            fix="Cut prompt or output size or the number of model calls, or raise the budget in the rule set "
            "in the same change that needs it.",
        )

    def evidence_steps(self, facts: Facts) -> list[int]:
        """The model steps missing usage, or else every model step (the ones that add up to the total)."""
        cols = facts.cols
        models = [i for i, k in enumerate(cols.kinds) if k == "model"]
        missing = [i for i in models if cols.input_tokens[i] is None or cols.output_tokens[i] is None]
        return missing or models


@dataclass(frozen=True)
class LoopSignature(Rule):
    keys: tuple[str, ...] = DEFAULT_SIGNATURE_KEYS
    limit: int = 1

    @property
    def id(self) -> str:
        return "loop_signature"

    def check(self, facts: Facts) -> RuleResult:
        worst, maximum = facts.worst_signature(self.keys)
        evidence: dict[str, EvidenceValue] = {"maximumRepeat": maximum, "limit": self.limit}
        limit = num_text(self.limit)
        if maximum <= self.limit or worst is None:
            return self.result(True, f"No state signature repeated more than {limit} times", evidence)
        sig = signature_text(worst)
        return self.result(
            False,
            f"Signature {sig} repeated {maximum} times; limit is {limit}",
            evidence,
            fix="The run kept returning to the same state: add a stop condition (until / maxIterations) "
            "or make each iteration change its state.",
        )

    def evidence_steps(self, facts: Facts) -> list[int]:
        worst, _ = facts.worst_signature(self.keys)
        return [] if worst is None else facts.signature_indices(self.keys, worst)


@dataclass(frozen=True)
class MaxDuration(Rule):
    """An exact latency bound (synthetic: needs the durations of a fake clock). `name` empty: the run step."""

    name: str = ""
    limit: float | int = 0

    @property
    def id(self) -> str:
        return f"max_duration:{self.name}" if self.name else "max_duration"

    def _targets(self, facts: Facts) -> list[int]:
        if self.name:
            return facts.indices(self.name)
        return [i for i, p in enumerate(facts.cols.parent_ids) if p is None]

    def check(self, facts: Facts) -> RuleResult:
        targets = self._targets(facts)
        what = self.name or "the run"
        if not targets:
            return self.result(False, f"Cannot evaluate duration: no step named {self.name}",
                               fix="Make the step run or fix the step name in the rule.")
        durations = [facts.cols.durations[i] for i in targets]
        if any(d is None for d in durations):
            return self.result(False, f"Duration of {what} is missing",
                               {"missingDurationCount": sum(1 for d in durations if d is None)},
                               fix="An exact latency rule needs a fake clock's durations (tftui gate --fake-clock, "
                               "or a run with a fake clock); for real runs use a distribution rule (profile real).")
        longest = max(d for d in durations if d is not None)
        evidence: dict[str, EvidenceValue] = {"maximumDurationMs": longest, "limit": self.limit}
        if longest <= self.limit:
            return self.result(True, f"{what} took at most {num_text(longest)} ms (limit {num_text(self.limit)})",
                               evidence)
        return self.result(False, f"{what} took {num_text(longest)} ms; limit is {num_text(self.limit)} ms", evidence,
                           fix="On a fake clock a slower step is a behaviour change: find what added the time.")

    def evidence_steps(self, facts: Facts) -> list[int]:
        return [i for i in self._targets(facts) if (d := facts.cols.durations[i]) is not None and d > self.limit]


@dataclass(frozen=True)
class Distribution(Rule):
    """Compare the distribution of many runs of a fixture with the baseline's [distribution] (profile real).

    Judged by the gate over every trace of a fixture (distribution.py), never per trace."""

    metrics: tuple[str, ...] = ()  # empty: every metric the samples have
    profile: Profile = field(default="real", kw_only=True)
    per_trace: bool = field(default=False, init=False, repr=False)

    @property
    def id(self) -> str:
        return "distribution"

    def check(self, facts: Facts) -> RuleResult:
        return self.result(True, "judged over all the traces of the fixture")


def signature_keys(rules: list[Rule] | tuple[Rule, ...]) -> tuple[tuple[str, ...], ...]:
    """The metadata keys of each loop_signature rule: what a trace reader can compute the signature
    buckets of while it reads (`tftui.trace.fileload.load_trace_file`)."""
    return tuple(dict.fromkeys(r.keys for r in rules if isinstance(r, LoopSignature)))


def evaluate_rules(trace: TraceColumns | AgentTrace, rules: list[Rule] | tuple[Rule, ...]) -> list[RuleResult]:
    """Every rule's result, in rule order. Expects a normalized trace that passed integrity."""
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    facts = Facts(cols)
    return [rule.evaluate(facts) for rule in rules if rule.per_trace]
