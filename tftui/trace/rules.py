"""Versioned trace rules (SPEC §9.2, §9.3): deterministic, narrow checks that return evidence.

Evaluation design (a million steps in well under a second):
- rules read a `TraceColumns` (one plain list per field), never pydantic objects;
- the facts rules need are computed once per trace by `Facts` and shared: the set of names,
  first index of a name, the token sums of model steps, max attempt per name, signature counts;
- each fact is one pass over a column using C-level list operations (`list.index`, `set`,
  `itertools.compress`, `collections.Counter`) instead of a Python loop per step.
A rule never raises: an unexpected exception becomes a failed result naming the rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Literal

from tftui.lang.values import js_number_str
from tftui.trace.model import AgentTrace, TraceColumns

Severity = Literal["error", "warning"]
SEVERITIES: tuple[str, ...] = ("error", "warning")
EvidenceValue = str | int | float | bool
DEFAULT_SIGNATURE_KEYS: tuple[str, ...] = ("planner_state", "selected_tool", "outcome")
EXTERNAL_KINDS = frozenset({"model", "tool"})
_ABSENT = object()  # a metadata key that is not there (distinct from null)


@dataclass(frozen=True, slots=True)
class RuleResult:
    rule_id: str  # "<id>@<version>"
    severity: str
    passed: bool
    message: str
    evidence: dict[str, EvidenceValue] | None = None
    fix: str | None = None  # what to change (failing results only), shown in the Markdown report

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
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


def _clean(value: float | int) -> float | int:
    """Integral floats become ints, so JSON evidence reads `1500`, not `1500.0`."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def signature_text(parts: tuple[Any, ...]) -> str:
    """`name|kind|status|v1|v2|…`; an absent metadata key is empty, null is `null`, numbers as in JS."""
    out: list[str] = []
    for part in parts:
        if part is _ABSENT:
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


# Step kinds as one byte each: `bytes.translate` then gives any kind mask at C speed.
_KIND_CODE = {"run": 0, "model": 1, "tool": 2, "retrieval": 3, "policy": 4, "fallback": 5}


def _kind_table(*kinds: str) -> bytes:
    wanted = {_KIND_CODE[k] for k in kinds}
    return bytes(1 if i in wanted else 0 for i in range(256))


_MODEL_MASK = _kind_table("model")
_EXTERNAL_MASK = _kind_table(*EXTERNAL_KINDS)


class Facts:
    """What the rules need from one trace, each computed at most once (lazily, on first use).

    Per-step work is done by C-level primitives: `list.index` scans (first step of a name, all
    steps of a name), one byte per step for kinds (masks via `bytes.translate`, selection via
    `itertools.compress`), and a `Counter` over zipped columns for signatures.
    """

    def __init__(self, cols: TraceColumns) -> None:
        self.cols = cols
        self._first: dict[str, int | None] = {}
        self._indices: dict[str, list[int]] = {}
        self._kind_codes: bytes | None = None
        self._sorted: bool | None = None
        self._tokens: tuple[int, float | int] | None = None
        self._block: tuple[int | None] | None = None
        self._signatures: dict[tuple[str, ...], Counter[tuple[Any, ...]]] = {}

    def kind_codes(self) -> bytes:
        if self._kind_codes is None:
            self._kind_codes = bytes(map(_KIND_CODE.__getitem__, self.cols.kinds))
        return self._kind_codes

    def is_sorted(self) -> bool:
        """Sequences ascending in array order (always true for a normalized trace)."""
        if self._sorted is None:
            seqs = self.cols.sequences
            self._sorted = seqs == sorted(seqs)
        return self._sorted

    def first_index(self, name: str) -> int | None:
        """Index of the first step named `name` in array order (sequence order once normalized)."""
        if name not in self._first:
            try:
                self._first[name] = self.cols.names.index(name)
            except ValueError:
                self._first[name] = None
        return self._first[name]

    def indices(self, name: str) -> list[int]:
        """Every index of a step named `name` (C-level scans between matches)."""
        if name not in self._indices:
            names = self.cols.names
            found: list[int] = []
            i = self.first_index(name)
            while i is not None:
                found.append(i)
                try:
                    i = names.index(name, i + 1)
                except ValueError:
                    i = None
            self._indices[name] = found
        return self._indices[name]

    def max_attempt(self, name: str) -> int:
        """max(attempt ?? 1) over steps named `name`; 0 when there is none."""
        attempts = self.cols.attempts
        return max((1 if attempts[i] is None else attempts[i] for i in self.indices(name)), default=0)

    def token_usage(self) -> tuple[int, float | int]:
        """(model steps missing input or output tokens, Σ input+output over model steps)."""
        if self._tokens is None:
            mask = self.kind_codes().translate(_MODEL_MASK)
            ins = list(compress(self.cols.input_tokens, mask))
            outs = list(compress(self.cols.output_tokens, mask))
            if None in ins or None in outs:
                missing = sum(1 for a, b in zip(ins, outs, strict=True) if a is None or b is None)
                self._tokens = (missing, 0)
            else:
                self._tokens = (0, _clean(sum(ins) + sum(outs)))
        return self._tokens

    def first_blocked(self) -> int | None:
        """Index of the first blocked step that is not a `run` step (see NoExternalWorkAfterBlock)."""
        if self._block is None:
            statuses, kinds = self.cols.statuses, self.cols.kinds
            found: int | None = None
            start = 0
            while True:
                try:
                    i = statuses.index("blocked", start)
                except ValueError:
                    break
                if kinds[i] != "run":
                    found = i
                    break
                start = i + 1
            self._block = (found,)
        return self._block[0]

    def external_after(self, block: int) -> list[str]:
        """Names of model/tool steps whose sequence is greater than the step at `block`."""
        cols = self.cols
        mask = self.kind_codes().translate(_EXTERNAL_MASK)
        if self.is_sorted():  # sequence order = array order: only the tail can follow the block
            tail = range(block + 1, len(cols.names))
            return [cols.names[j] for j in compress(tail, mask[block + 1 :])]
        block_seq = cols.sequences[block]
        return [
            name
            for name, seq in zip(compress(cols.names, mask), compress(cols.sequences, mask), strict=True)
            if seq > block_seq
        ]

    def signature_counts(self, keys: tuple[str, ...]) -> Counter[tuple[Any, ...]]:
        if keys not in self._signatures:
            cols = self.cols
            metas = cols.metadata
            # one column per metadata key (a comprehension per key is far cheaper than a tuple per step)
            key_cols = [[m.get(k, _ABSENT) if m else _ABSENT for m in metas] for k in keys]
            self._signatures[keys] = Counter(zip(cols.names, cols.kinds, cols.statuses, *key_cols, strict=True))
        return self._signatures[keys]


@dataclass(frozen=True)
class Rule:
    """A versioned rule. `id` is the parameterised id (`order:a:b`); results say `<id>@<version>`."""

    severity: Severity = "error"
    version: int = field(default=1, kw_only=True)

    @property
    def id(self) -> str:
        raise NotImplementedError

    @property
    def rule_id(self) -> str:
        return f"{self.id}@{self.version}"

    def check(self, facts: Facts) -> RuleResult:
        raise NotImplementedError

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


@dataclass(frozen=True)
class NoExternalWorkAfterBlock(Rule):
    """The first blocked step, then every model/tool step with a greater sequence is forbidden.

    tftui decision: `run` steps are not candidates for "the block". A run step's status is the
    outcome of the whole run (SPEC §9.8 gives a blocked run's root `blocked` at sequence 0), so
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
            fix=f"A block at {cols.names[block]} must stop the run: no phase may start after it (SPEC §3.4). "
            "Check the scheduler's block handling.",
        )


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
            fix=f"Fix the cause of {self.name}'s failed attempts or lower its retry.max; "
            "raise the limit only with a reviewed reason.",
        )


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


@dataclass(frozen=True)
class LoopSignature(Rule):
    keys: tuple[str, ...] = DEFAULT_SIGNATURE_KEYS
    limit: int = 1

    @property
    def id(self) -> str:
        return "loop_signature"

    def check(self, facts: Facts) -> RuleResult:
        counts = facts.signature_counts(self.keys)
        worst: tuple[Any, ...] | None = None
        maximum = 0
        for sig, n in counts.items():  # first signature (in sequence order) wins ties
            if n > maximum:
                worst, maximum = sig, n
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


def evaluate_rules(trace: TraceColumns | AgentTrace, rules: list[Rule] | tuple[Rule, ...]) -> list[RuleResult]:
    """Every rule's result, in rule order. Expects a normalized trace that passed integrity."""
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    facts = Facts(cols)
    return [rule.evaluate(facts) for rule in rules]
