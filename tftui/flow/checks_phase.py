"""Per-phase checks (docs/language.md §1.4, §1.6, §2.3): requirement matrix, limits, misplaced keys.

Messages are taskflow 0.2.4's byte for byte (docs/language.md §1.6); tftui's own additions are
warnings. Each diagnostic carries the phase id and the JSON path of the value.
"""

from __future__ import annotations

import re
from typing import Any

from tftui.flow import closed
from tftui.flow.diagnostics import (
    Diagnostic,
    JsonPath,
    Severity,
    existing_prefix,
    json_type,
    named_path,
    suggestion,
)
from tftui.flow.model import PHASE_CLASSES, PhaseBase
from tftui.flow.score_shape import is_num, score_shape_errors
from tftui.lang.condition import syntax_error
from tftui.lang.contract import contract_shape_errors
from tftui.lang.jsregex import compile_js_regex, fix_hint
from tftui.lang.values import JSONObject, JSONValue

AGENT_RUNNING = {"agent", "gate", "reduce", "map", "parallel", "loop", "tournament", "race"}
EXPECT_TYPES = ("agent", "gate", "reduce", "loop")
LOOP_ONLY_WARN = ("until", "maxIterations", "convergence")
CACHE_SCOPES = ("run-only", "cross-run", "off")
CACHE_CROSS_RUN_BLOCKED = ("gate", "approval", "loop", "tournament", "script", "race", "expand")
_PLACEHOLDER = re.compile(r"\{[a-zA-Z0-9_-]+(?:\.[a-zA-Z0-9_-]+)*\}")
_REFERENCEABLE_ID = re.compile(r"[A-Za-z0-9_-]+")
_SHARED_ID = re.compile(r"[A-Za-z0-9._-]+")
_LOOSE_SHARED_KEYS = ("contextLimit", "concurrency", "tools", "shareContext")


def _aliases(cls: type[PhaseBase]) -> list[str]:
    return [f.alias or name for name, f in cls.model_fields.items()]


OWN_KEYS: dict[str, list[str]] = {t: _aliases(cls) for t, cls in PHASE_CLASSES.items()}


def field_of(model: PhaseBase, attr: str) -> Any:
    """A model attribute, or None where the phase type has no such field (its type is that field's:
    `Any`, as the attribute name is only known at run time).

    Reads the instance dict: `getattr(model, missing, None)` goes through pydantic's
    slow `__getattr__` and an exception, which dominates checking a 1,000-phase flow.
    """
    return model.__dict__.get(attr)


_FIELD_BY_ALIAS: dict[type[PhaseBase], dict[str, str]] = {}


def field_by_alias(cls: type[PhaseBase]) -> dict[str, str]:
    if cls not in _FIELD_BY_ALIAS:
        _FIELD_BY_ALIAS[cls] = {(f.alias or n): n for n, f in cls.model_fields.items()}
    return _FIELD_BY_ALIAS[cls]


_ALIAS_OF: dict[type[PhaseBase], dict[str, str]] = {}


def _alias_of(cls: type[PhaseBase]) -> dict[str, str]:
    """Field name -> the file's key (`field_by_alias` the other way round)."""
    if cls not in _ALIAS_OF:
        _ALIAS_OF[cls] = {n: a for a, n in field_by_alias(cls).items()}
    return _ALIAS_OF[cls]


class PhaseChecker:
    """Collects the diagnostics of one phase."""

    def __init__(
        self,
        phase: PhaseBase,
        base: JsonPath,
        flow_incremental: bool,
        out: list[Diagnostic],
        *,
        arg_types: dict[str, str | None] | None = None,
        flow_idle_timeout: JSONValue = None,
        context_sharing: bool = False,
    ):
        self.p = phase
        self.id = phase.id
        self.type = phase.type
        self.base = base
        self.incremental = flow_incremental
        self.out = out
        self.extra: JSONObject = dict(phase.model_extra or {})
        # the model fields the file set, by their keys: `has` is asked ~10 times a phase
        alias_of = _alias_of(type(phase))
        self._set_keys = {alias_of[n] for n in phase.model_fields_set if n in alias_of}
        self.arg_types = arg_types or {}  # declared args -> their type (None: untyped)
        self.flow_idle_timeout = flow_idle_timeout
        self.context_sharing = context_sharing

    def err(self, message: str, *path: str | int, at_key: bool = False, severity: Severity = "error") -> None:
        field = str(path[0]) if path else None
        self.out.append(
            Diagnostic(
                severity, message, phase_id=self.id, field=field, path=(*self.base, *path), at_key=at_key
            )
        )

    def warn(self, message: str, *path: str | int, at_key: bool = False) -> None:
        self.err(message, *path, at_key=at_key, severity="warning")

    def has(self, key: str) -> bool:
        """The file set `key` (even to null), whether it is a model field or an extra."""
        return key in self.extra or key in self._set_keys

    # -- the checks, in taskflow's order ---------------------------------------------

    def run(self) -> None:
        pid, ptype = self.id, self.type
        known_type = ptype in PHASE_CLASSES
        if not known_type:
            # the documented message, plus a hint for a near miss ("mapp" -> "map") like unknown fields get
            self.err(f"Phase '{pid}': unknown type '{ptype}'" + suggestion(str(ptype), PHASE_CLASSES), "type")
        if self.p.task is not None and not isinstance(self.p.task, str):
            self.err(f"Phase '{pid}': 'task' must be a string, got {json_type(self.p.task)}", "task")
        for key in _LOOSE_SHARED_KEYS:  # shared fields the model keeps loose: taskflow's value rules
            if self.has(key):
                problem = closed.flat_value_error(key, field_of(self.p, field_by_alias(type(self.p))[key]))
                if problem is not None:
                    self.err(f"Phase '{pid}': {problem}", key)
        if (self.p.share_context is True or self.context_sharing) and not _SHARED_ID.fullmatch(pid):
            self.err(
                f"Phase '{pid}': ids used with context sharing must match [A-Za-z0-9._-]+ — rename the phase",
                "id",
            )
        self._branch_tasks()
        if known_type:
            self._score()
            self._misplaced_keys()
            self._idempotent()
            getattr(self, f"_type_{ptype}")()
            self._timeout()
            self._idle_timeout()
            self._idle_zero()
        self._retry()
        if self.p.join and self.p.join not in ("all", "any"):
            self.err(f"Phase '{pid}': unknown join mode '{self.p.join}'", "join")
        if known_type:
            self._expect()
        self._cache()
        self._thinking()
        self._cwd()
        agent = self.p.agent
        if isinstance(agent, str) and "_" in agent:
            self.err(
                f"Phase '{pid}': agent name '{agent}' uses underscores — use hyphens "
                "(e.g. 'executor-code' not 'executor_code')",
                "agent",
            )
        if "_" in pid:
            self.err(
                f"Phase '{pid}': id uses underscores — use hyphens for consistency with interpolation "
                "placeholders (e.g. {steps.audit-each.output})",
                "id",
            )
        elif not _REFERENCEABLE_ID.fullmatch(pid):
            self.warn(f"Phase '{pid}': id contains characters that placeholders cannot reference", "id")
        self._guards()
        if known_type:
            self._unknown_keys()

    def _branch_tasks(self) -> None:
        for i, branch in enumerate(field_of(self.p, "branches") or []):
            if not isinstance(branch.task, str):
                self.err(f"Phase '{self.id}': branches[{i}].task must be a string", "branches", i, "task")
            for key in branch.model_extra or {}:
                self.err(
                    f"Phase '{self.id}': branches[{i}] has {closed.unknown_field(key, closed.BRANCH_KEYS)}",
                    "branches",
                    i,
                    key,
                    at_key=True,
                )
            problem = closed.branch_cwd_error(self.type, i, branch.cwd, self.p.cwd)
            if problem is not None:
                self.err(f"Phase '{self.id}': {problem}", "branches", i, "cwd")

    def _score(self) -> None:
        if not self.has("score"):
            return
        pid, ptype = self.id, self.type
        score = self.extra.pop("score") if "score" in self.extra else field_of(self.p, "score")
        if ptype != "gate":
            self.err(f"Phase '{pid}' ({ptype}): 'score' is only valid for gate phases", "score", at_key=True)
            return
        self._shape_errors(score_shape_errors(score), "score", score)
        self._regex_patterns(score)
        evals = field_of(self.p, "eval")
        if isinstance(evals, list) and evals:
            self.warn(
                f"Phase '{pid}' (gate): both 'eval' and 'score' are set — eval runs first (all-pass skips the "
                "gate entirely), then score. This is valid but usually one of the two suffices.",
                "eval",
                at_key=True,
            )
        judge = score.get("judge") if isinstance(score, dict) else None
        agent = judge.get("agent") if isinstance(judge, dict) else None
        if isinstance(agent, str) and "_" in agent:
            self.err(
                f"Phase '{pid}': score.judge.agent '{agent}' uses underscores — use hyphens",
                "score",
                "judge",
                "agent",
            )

    def _shape_errors(self, messages: list[str], root: str, value: JSONValue, field: str | None = None) -> None:
        """Report shape errors of the nested value at `field` (default: `root`) where each one
        points: at the most specific part of `value` its message names (`score.weights: …`
        -> the weights array), or the nearest part that exists (a missing key -> its object)."""
        for message in messages:
            named = named_path(message, root) or ()
            path = existing_prefix(value, named)
            # an unknown/misplaced key: point at the key itself, like unknown phase fields
            at_key = (
                bool(path) and path == named and (": unknown " in message or ": not applicable " in message)
            )
            self.err(f"Phase '{self.id}': {message}", field or root, *path, at_key=at_key)

    def _regex_patterns(self, score: JSONValue) -> None:
        """A regex scorer whose pattern does not compile fails on every run (docs/gates.md §4). This is
        a warning, not an error: it is not a shape error (docs/gates.md §4.3), the reference
        accepts the flow (conformance sh033) and runs it, failing only that scorer."""
        scorer_list = score.get("scorers") if isinstance(score, dict) else None
        if not isinstance(scorer_list, list):
            return
        for i, scorer in enumerate(scorer_list):
            if not isinstance(scorer, dict) or scorer.get("type") != "regex":
                continue
            pattern = scorer.get("pattern")
            if not isinstance(pattern, str):
                continue  # a shape error already
            error = compile_js_regex(pattern).error  # the scorer's own compile: check == run
            if error is None:
                continue
            hint = fix_hint(pattern, error)
            self.warn(
                f"Phase '{self.id}': score.scorers[{i}].pattern: {error} — this scorer fails on every run"
                + (f"; {hint}" if hint else ""),
                "score",
                "scorers",
                i,
                "pattern",
            )

    def _misplaced_keys(self) -> None:
        pid, ptype = self.id, self.type
        if "reflexion" in self.extra:
            value = self.extra.pop("reflexion")
            if not isinstance(value, bool):
                self.err(f"Phase '{pid}': 'reflexion' must be a boolean, got {json_type(value)}", "reflexion")
            elif value:
                self.err(f"Phase '{pid}' ({ptype}): 'reflexion' is only valid for loop phases", "reflexion")
        for key in LOOP_ONLY_WARN:
            if key in self.extra:
                problem = closed.flat_value_error(key, self.extra.pop(key))
                if problem is not None:
                    self.err(f"Phase '{pid}': {problem}", key)
                self.warn(
                    f"Phase '{pid}' ({ptype}): '{key}' is only meaningful on loop phases and is ignored here",
                    key,
                    at_key=True,
                )
        for key in ("run", "input"):
            if key in self.extra:
                self.extra.pop(key)
                self.err(
                    f"Phase '{pid}' ({ptype}): '{key}' is only valid for script phases", key, at_key=True
                )

    def _idempotent(self) -> None:
        if self.p.idempotent is not False:
            return
        pid, ptype = self.id, self.type
        if ptype in ("approval", "flow"):
            self.warn(
                f"Phase '{pid}' ({ptype}): 'idempotent: false' is a no-op here — {ptype} phases run no subagent "
                "(no transient retry) and are already excluded from cross-run cache. The flag has no effect.",
                "idempotent",
            )
        scope = self.p.cache.get("scope") if isinstance(self.p.cache, dict) else None
        if scope == "cross-run":
            self.warn(
                f"Phase '{pid}': idempotent:false overrides cache.scope 'cross-run' — a side-effecting phase is "
                "never cached (it will re-run every time).",
                "idempotent",
            )
        elif self.incremental and scope is None:
            self.warn(
                f"Phase '{pid}': idempotent:false under an incremental flow — this phase is excluded from caching "
                "and will re-run every invocation (this is the safe behavior for side effects).",
                "idempotent",
            )

    # -- per-type requirement matrix (docs/language.md §2.3) ---------------------------------------

    def _type_agent(self) -> None:
        if not self.p.task:
            self.err(f"Phase '{self.id}' (agent) requires 'task'")

    def _type_approval(self) -> None:
        pass

    def _type_gate(self) -> None:
        p = self.p
        if not p.task and field_of(p, "score") is None:
            self.err(f"Phase '{self.id}' (gate) requires 'task' (or 'score')")
        for i, entry in enumerate(field_of(p, "eval") or []):
            if not isinstance(entry, str):
                self.err(
                    f"Phase '{self.id}' (gate): eval[{i}] must be a string condition, got {json_type(entry)}",
                    "eval",
                    i,
                )

    def _type_map(self) -> None:
        over = field_of(self.p, "over")
        if not over:
            self.err(f"Phase '{self.id}' (map) requires 'over'")
        elif not isinstance(over, str):
            shown = "a literal array" if isinstance(over, list) else f"a {json_type(over)}"
            self.err(
                f"Phase '{self.id}' (map): 'over' must be a string interpolation ref (e.g. "
                f'"{{steps.scan.json}}"), not {shown} — to fan out over a fixed list, emit it from an '
                "upstream phase and reference that phase's .json",
                "over",
            )
        if not self.p.task:
            self.err(f"Phase '{self.id}' (map) requires 'task'")

    def _type_parallel(self) -> None:
        if not field_of(self.p, "branches"):
            self.err(f"Phase '{self.id}' (parallel) requires non-empty 'branches'")

    def _type_race(self) -> None:
        branches = field_of(self.p, "branches")
        if not branches:
            self.err(f"Phase '{self.id}' (race) requires non-empty 'branches'")
        elif len(branches) < 2:
            self.err(f"Phase '{self.id}' (race): needs at least 2 branches", "branches")

    def _type_expand(self) -> None:
        if not self.has("def"):
            self.err(f"Phase '{self.id}' (expand) requires 'def' (fragment Taskflow or {{steps.X.json}})")
        max_nodes = field_of(self.p, "max_nodes")
        if self.has("maxNodes") and not (is_num(max_nodes) and 1 <= max_nodes <= 100):
            self.err(f"Phase '{self.id}' (expand): maxNodes must be 1..100", "maxNodes")

    def _type_reduce(self) -> None:
        p = self.p
        if not p.from_:
            self.err(f"Phase '{self.id}' (reduce) requires 'from'")
        if not p.task:
            self.err(f"Phase '{self.id}' (reduce) requires 'task'")
        batch = field_of(p, "batch_size")
        if self.has("batchSize"):
            if not (is_num(batch) and batch >= 2 and (isinstance(batch, int) or batch.is_integer())):
                self.err(f"Phase '{self.id}' (reduce): batchSize must be an integer >= 2", "batchSize")
            elif field_of(p, "reduce_strategy") != "tree":
                self.warn(
                    f"Phase '{self.id}' (reduce): batchSize is only used with reduceStrategy 'tree' — "
                    "ignored for one-shot",
                    "batchSize",
                )
        if field_of(p, "reduce_strategy") == "tree":
            size = int(batch) if is_num(batch) and batch >= 2 and float(batch).is_integer() else 2
            if closed.tree_reduce_calls(len(p.from_ or []), size) > closed.TREE_REDUCE_MAX_CALLS:
                self.err(
                    f"Phase '{self.id}' (reduce): the tree strategy would make more than "
                    f"{closed.TREE_REDUCE_MAX_CALLS} calls — raise batchSize or split the reduction",
                    "batchSize" if self.has("batchSize") else "reduceStrategy",
                )

    def _type_flow(self) -> None:
        use = field_of(self.p, "use")
        has_use = isinstance(use, str) and len(use) > 0
        has_def = self.has("def")
        if not has_use and not has_def:
            self.err(
                f"Phase '{self.id}' (flow) requires 'use' (a saved flow name) or 'def' (an inline definition)"
            )
        elif has_use and has_def:
            self.err(
                f"Phase '{self.id}' (flow): 'use' and 'def' are mutually exclusive — provide exactly one",
                "def",
            )

    def _type_loop(self) -> None:
        p = self.p
        if not p.task:
            self.err(f"Phase '{self.id}' (loop) requires 'task' (the iteration body)")
        if not field_of(p, "until"):
            self.err(f"Phase '{self.id}' (loop) requires 'until' (the stop condition)")
        if self.has("maxIterations"):
            value = field_of(p, "max_iterations")
            if not (is_num(value) and value >= 1):
                self.err(f"Phase '{self.id}' (loop): maxIterations must be a number >= 1", "maxIterations")
            elif value > 100:
                self.err(f"Phase '{self.id}' (loop): maxIterations must be <= 100", "maxIterations")

    def _type_tournament(self) -> None:
        p = self.p
        branches = field_of(p, "branches") or []
        if not branches and not p.task:
            self.err(
                f"Phase '{self.id}' (tournament) requires 'task' (the competitor prompt) or non-empty 'branches'"
            )
        if self.has("variants"):
            value = field_of(p, "variants")
            if not (is_num(value) and value >= 2):
                self.err(f"Phase '{self.id}' (tournament): variants must be a number >= 2", "variants")
            elif value > 20:
                self.err(f"Phase '{self.id}' (tournament): variants must be <= 20", "variants")
        if branches and len(branches) < 2:
            self.err(f"Phase '{self.id}' (tournament): 'branches' needs at least 2 competitors", "branches")
        mode = field_of(p, "mode")
        if mode and mode not in ("best", "aggregate"):
            self.err(f"Phase '{self.id}' (tournament): unknown mode '{mode}'", "mode")

    def _type_script(self) -> None:
        p = self.p
        run = field_of(p, "run")
        if not run:
            self.err(f"Phase '{self.id}' (script) requires 'run' (the shell command)")
        if isinstance(run, list) and (not run or not run[0]):
            self.err(
                f"Phase '{self.id}' (script): 'run' array must be non-empty with a valid first element", "run"
            )
        if isinstance(run, str) and _PLACEHOLDER.search(run):
            self.err(
                f"Phase '{self.id}' (script): string 'run' must not contain interpolation placeholders "
                "(use array form or pipe through 'input')",
                "run",
            )
        if p.retry is not None:
            self.err(
                f"Phase '{self.id}' (script): 'retry' is not supported for script phases",
                "retry",
                at_key=True,
            )
        if p.output == "json":
            self.err(
                f"Phase '{self.id}' (script): 'output:\"json\"' is not supported for script phases", "output"
            )

    def _timeout(self) -> None:
        if not self.has("timeout"):
            return
        pid, ptype, value = self.id, self.type, self.p.timeout
        if ptype == "script":
            if not (is_num(value) and 1000 <= value <= 300000):
                self.err(
                    f"Phase '{pid}' (script): 'timeout' must be a number between 1000 and 300000 ms",
                    "timeout",
                )
        elif ptype in ("approval", "flow"):
            self.err(f"Phase '{pid}' ({ptype}): 'timeout' is not supported for {ptype} phases", "timeout")
        elif not (is_num(value) and value >= 1000):
            self.err(f"Phase '{pid}' ({ptype}): 'timeout' must be a number >= 1000 ms", "timeout")

    def _idle_timeout(self) -> None:
        if not self.has("idleTimeout"):
            return
        pid, ptype, value = self.id, self.type, self.p.idle_timeout
        if ptype not in AGENT_RUNNING:
            self.warn(
                f"Phase '{pid}' ({ptype}): 'idleTimeout' only applies to agent-running phases "
                f"({'/'.join(sorted(AGENT_RUNNING))}) — ignored here",
                "idleTimeout",
            )
        elif not is_num(value) or value < 0:
            shown = value if is_num(value) else json_type(value)
            self.err(
                f"Phase '{pid}': 'idleTimeout' must be a non-negative finite number (ms), got {shown}",
                "idleTimeout",
            )
        elif 0 < value < 1000:
            self.err(
                f"Phase '{pid}': 'idleTimeout' must be 0 (disable) or >= 1000 ms, got {value}", "idleTimeout"
            )

    def _idle_zero(self) -> None:
        """An effective idleTimeout 0 (the phase's, else the flow's) needs a finite wall timeout."""
        if self.type not in AGENT_RUNNING:
            return
        phase_idle = self.p.idle_timeout if self.has("idleTimeout") else None
        problem = closed.idle_zero_error(phase_idle, self.flow_idle_timeout, self.p.timeout)
        if problem is not None:
            self.err(f"Phase '{self.id}': {problem}", "idleTimeout" if phase_idle is not None else "timeout")

    def _retry(self) -> None:
        retry = self.p.retry
        if retry is None:
            return
        pid = self.id
        if not is_num(retry.max) or retry.max < 0:
            self.err(f"Phase '{pid}': retry.max must be a number >= 0", "retry", "max")
        elif retry.max > 20:
            self.err(f"Phase '{pid}': retry.max must be <= 20", "retry", "max")
        if retry.backoff_ms is not None and not (is_num(retry.backoff_ms) and 0 <= retry.backoff_ms <= 60000):
            self.err(f"Phase '{pid}': retry.backoffMs must be between 0 and 60000", "retry", "backoffMs")
        if retry.factor is not None:
            if not (is_num(retry.factor) and 1 <= retry.factor <= 10):
                self.err(f"Phase '{pid}': retry.factor must be between 1 and 10", "retry", "factor")
            elif retry.backoff_ms is None:
                self.warn(
                    f"Phase '{pid}': retry.factor has no effect without retry.backoffMs", "retry", "factor"
                )
        for key in retry.model_extra or {}:
            self.err(f"Phase '{pid}': retry has {closed.unknown_field(key, closed.RETRY_KEYS)}", "retry", key, at_key=True)

    def _expect(self) -> None:
        if not self.has("expect"):
            return
        pid, ptype = self.id, self.type
        if ptype not in EXPECT_TYPES:
            self.err(
                f"Phase '{pid}' ({ptype}): 'expect' is only valid for agent/gate/reduce/loop phases", "expect"
            )
        elif self.p.output != "json":
            self.err(
                f"Phase '{pid}': 'expect' requires 'output': \"json\" (the contract validates the parsed JSON output)",
                "expect",
                at_key=True,
            )
        else:
            self._shape_errors(contract_shape_errors(self.p.expect), "$", self.p.expect, "expect")

    def _cache(self) -> None:
        cache = self.p.cache
        if cache is None:
            return
        pid = self.id
        if not isinstance(cache, dict):
            self.err(f"Phase '{pid}': 'cache' must be an object", "cache")
            return
        scope = cache.get("scope", "run-only")
        if scope not in CACHE_SCOPES:
            self.err(
                f"Phase '{pid}': unknown cache.scope '{scope}' (expected one of {', '.join(CACHE_SCOPES)})",
                "cache",
                "scope",
            )
        elif scope == "cross-run" and self.type in CACHE_CROSS_RUN_BLOCKED:
            self.err(
                f"Phase '{pid}' ({self.type}): cache.scope 'cross-run' is not allowed for "
                f"{'/'.join(CACHE_CROSS_RUN_BLOCKED)} phases — they must produce a fresh result each run. "
                "Use 'run-only'.",
                "cache",
                "scope",
            )
        for message, path in closed.cache_errors(cache):
            unknown_key = len(path) == 1 and path[0] not in closed.CACHE_KEYS
            self.err(f"Phase '{pid}': {message}", "cache", *path, at_key=unknown_key)

    def _thinking(self) -> None:
        problem = closed.thinking_error(self.p.thinking)
        if problem is not None:
            self.err(f"Phase '{self.id}': {problem}", "thinking")

    def _cwd(self) -> None:
        retry = self.p.retry
        scope = self.p.cache.get("scope") if isinstance(self.p.cache, dict) else None
        for message, field in closed.cwd_errors(self.p.cwd, self.arg_types, retry.max if retry else None, scope):
            self.err(f"Phase '{self.id}': {message}", field)

    # -- tftui additions: guard syntax and unknown keys (warnings) ----------------------

    def _guards(self) -> None:
        pid = self.id
        guards: list[tuple[tuple[str | int, ...], str, str, str]] = []  # (path, label, expr, consequence)
        if isinstance(self.p.when, str):
            guards.append((("when",), "when", self.p.when, "the guard fails open (the phase will run)"))
        until = field_of(self.p, "until") if self.type == "loop" else None
        if isinstance(until, str):
            guards.append((("until",), "until", until, "the loop stops after its first successful iteration"))
        evals = field_of(self.p, "eval") if self.type == "gate" else None
        for i, entry in enumerate(evals or []):
            # `left contains right` entries are not conditions (docs/language.md §4.8)
            if isinstance(entry, str) and entry.find(" contains ") <= 0:
                guards.append(
                    (("eval", i), f"eval[{i}]", entry, "this check always fails (the gate falls through)")
                )
        for path, label, expr, consequence in guards:
            if not expr.strip():
                continue
            problem = syntax_error(expr)
            if problem is not None:
                message = getattr(problem, "message", None) or str(problem)
                position = getattr(problem, "position", None)
                where = f" at position {position}" if position is not None else ""
                self.out.append(
                    Diagnostic(
                        "warning",
                        f"Phase '{pid}': {label}: {message}{where} — {consequence}",
                        phase_id=pid,
                        field=str(path[0]),
                        path=(*self.base, *path),
                        char=position if isinstance(position, int) else None,
                    )
                )

    def _unknown_keys(self) -> None:
        """Keys the phase's type does not model: outside taskflow's flat key set they are errors
        (its schema is closed); a key of another type is checked against the flat schema's value
        rules and otherwise only noted, as taskflow accepts and ignores it."""
        pid, ptype = self.id, self.type
        for key, value in self.extra.items():
            if key not in closed.PHASE_KEYS or closed.phase_mode_is_expand_mode(ptype, value):
                message = closed.unknown_field(key, closed.PHASE_KEYS, phase_type=ptype, value=value)
                self.err(f"Phase '{pid}': {message}", key, at_key=True)
                continue
            problem = closed.flat_value_error(key, value)
            if problem is not None:
                self.err(f"Phase '{pid}': {problem}", key)
            elif not (ptype == "expand" and key == "mode"):  # taskflow's flat `mode` (best/aggregate)
                self.warn(
                    f"Phase '{pid}' ({ptype}): '{key}' is not used by {ptype} phases and is ignored",
                    key,
                    at_key=True,
                )
