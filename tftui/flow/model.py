"""Pydantic models of the taskflow flow format (docs/language.md §1–2).

Field names are the file's camelCase keys (via aliases); Python attributes are
snake_case. Phases are a discriminated union on `type` (default `agent`).

Typing policy: structural types (strings, string lists, booleans, enums) are
enforced here, so a wrong type is reported at the value's line:col by the loader.
Values whose limits have messages of their own (retry numbers, timeouts,
maxIterations, variants, `score`, `expect`, eval entries, branch tasks) are typed
loosely and checked in `tftui.flow.checks`, which emits those messages (docs/language.md §1.6).

Phases allow keys their own type does not model (`model_extra`): taskflow's phase keys are one
flat set (`tftui.flow.closed.PHASE_KEYS`), so a key of another type is accepted with a warning
(or the documented error, such as `score` on an agent), and a key outside the set is an error.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from tftui.lang.values import JSONObject, JSONValue

PHASE_TYPES = (
    "agent",
    "parallel",
    "map",
    "reduce",
    "gate",
    "approval",
    "loop",
    "tournament",
    "script",
    "flow",
    "race",
    "expand",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=False)


class ArgSpec(_Model):
    default: JSONValue = Field(
        default=None,
        description="Value used when the caller does not supply the arg (any JSON; type not enforced).",
    )
    description: str | None = Field(default=None, description="Shown to the user; display only.")
    required: bool | None = Field(
        default=None, description="Advisory for untyped args (a runtime check warns that it stays advisory)."
    )
    type: str | None = Field(
        default=None,
        description="Informational type of the arg (taskflow typed args: string, relative-path, number, boolean, enum).",
    )  # informational (typed args are a taskflow extension)
    values: list[JSONValue] | None = Field(
        default=None, description="Allowed values of an enum-typed arg (informational)."
    )  # enum values of a typed arg (informational)
    minimum: float | None = Field(
        default=None, description="Lower bound of a number-typed arg (informational)."
    )
    maximum: float | None = Field(
        default=None, description="Upper bound of a number-typed arg (informational)."
    )


class Budget(_Model):
    max_usd: float | None = Field(
        default=None,
        alias="maxUSD",
        description="Halt the run once accumulated cost exceeds this many USD (strict >).",
    )
    max_tokens: float | None = Field(
        default=None,
        alias="maxTokens",
        description="Halt the run once accumulated input+output tokens exceed this (strict >).",
    )


class Retry(BaseModel):
    """`{max, backoffMs?, factor?}`; numeric limits are checked by checks.py (docs/language.md §1.6)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    max: JSONValue = Field(default=None, description="Retries after the first try, 0-20 (docs/retry.md).")
    backoff_ms: JSONValue = Field(
        default=None,
        alias="backoffMs",
        description="Base delay before a retry in ms, 0-60000. Absent: 2000 ms doubling.",
    )
    factor: JSONValue = Field(
        default=None, description="Backoff multiplier per attempt, 1-10 (only with backoffMs)."
    )


class Branch(BaseModel):
    """One parallel/race/tournament branch: `{task, agent?, cwd?}`."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task: JSONValue = Field(default=None, description="Prompt template of this branch (supports {placeholders}).")
    agent: str | None = Field(
        default=None, description="Agent for this branch (defaults to the phase agent)."
    )
    cwd: str | None = Field(default=None, description="Working directory for this branch (a literal path).")


class PhaseBase(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = Field(
        description="Unique phase id, referenced as {steps.<id>.output}. Use letters, digits and hyphens."
    )
    type: str = Field(
        default="agent",
        description="Phase kind: agent (default), parallel, map, reduce, gate, approval, loop, tournament, script, flow, race, expand.",
    )
    agent: str | None = Field(
        default=None, description="Agent that runs this phase's model calls (lowercase, hyphens)."
    )
    task: JSONValue = Field(
        default=None,
        description="Prompt template; {args.X}, {steps.ID.output}, {steps.ID.json.f}, {previous.output} are interpolated.",
    )  # a string template; non-strings are reported by checks
    depends_on: list[str] = Field(
        default_factory=list,
        alias="dependsOn",
        description="Ids of the phases this one waits for (DAG edges).",
    )
    from_: list[str] | None = Field(
        default=None,
        alias="from",
        description="[reduce] Ids whose outputs are aggregated into {previous.output}; also DAG edges.",
    )
    join: JSONValue = Field(
        default="all",
        description="'all' (default): every dependency must be satisfied; 'any': one is enough.",
    )
    when: str | None = Field(
        default=None,
        description='Guard condition, e.g. "{steps.triage.json.severity} == high"; false skips the phase. Parse errors fail open.',
    )
    optional: bool = Field(
        default=False,
        description="A failure is tolerated: dependents still run and see '[previous phase failed]'.",
    )
    retry: Retry | None = Field(
        default=None,
        description="Explicit retry policy for each model call: {max, backoffMs?, factor?}. Not for script phases.",
    )
    idempotent: bool = Field(
        default=True, description="false = side effects: no transient auto-retry and no caching."
    )
    timeout: JSONValue = Field(
        default=None,
        description="Per model call timeout in ms (>= 1000); script: 1000-300000 (default 60000). Not for approval/flow.",
    )
    output: Literal["text", "json"] = Field(
        default="text", description="'json' parses the output leniently into {steps.ID.json}."
    )
    expect: JSONValue = Field(
        default=None,
        description='Output contract {type, properties, required, items, enum}; needs output: "json"; agent/gate/reduce/loop only.',
    )
    context: list[str] | None = Field(
        default=None,
        description="Files/globs or placeholders pre-read and prepended to every prompt of the phase.",
    )
    context_limit: JSONValue = Field(
        default=None, alias="contextLimit", description="Max characters read per context file (default 8000)."
    )
    final: bool = Field(
        default=False, description="Marks the phase whose output is the run result (at most one)."
    )
    concurrency: JSONValue = Field(
        default=None, description="Fan-out width for map/parallel/tournament/race (defaults to the flow's)."
    )
    model: str | None = Field(default=None, description="Model override passed to the runner.")
    thinking: JSONValue = Field(default=None, description="Thinking level passed to the runner.")
    tools: JSONValue = Field(default=None, description="Tool names the agent may use (passed to the runner).")
    cwd: str | None = Field(default=None, description="Working directory for the phase's agent or script.")
    cache: JSONValue = Field(
        default=None, description="Cache policy {scope: run-only|cross-run|off, ttl?, fingerprint?} (P2)."
    )
    idle_timeout: JSONValue = Field(
        default=None,
        alias="idleTimeout",
        description="[agent-running] Idle watchdog in ms (0 disables, else >= 1000); overrides the flow's (P2).",
    )
    share_context: JSONValue = Field(
        default=None,
        alias="shareContext",
        description="Opt into the shared context tree for this phase (P2).",
    )

    @property
    def edges(self) -> list[str]:
        """DAG edges: `dependsOn ∪ from`, de-duplicated, `dependsOn` first (docs/language.md §2.1)."""
        seen: dict[str, None] = dict.fromkeys(self.depends_on)
        for dep in self.from_ or ():
            seen.setdefault(dep, None)
        return list(seen)


class AgentPhase(PhaseBase):
    type: Literal["agent"] = "agent"


class ParallelPhase(PhaseBase):
    type: Literal["parallel"]
    branches: list[Branch] | None = Field(
        default=None, description="Branches run concurrently: [{task, agent?, cwd?}] (at least one)."
    )


class MapPhase(PhaseBase):
    type: Literal["map"]
    over: JSONValue = Field(
        default=None,
        description='Placeholder resolving to an array (e.g. "{steps.scan.json}") or an inline array.',
    )  # a placeholder string or an inline array
    as_: str | None = Field(
        default=None, alias="as", description="Name of the item local in the task (default 'item')."
    )


class ReducePhase(PhaseBase):
    type: Literal["reduce"]
    reduce_strategy: Literal["one-shot", "tree"] | None = Field(
        default=None, alias="reduceStrategy", description="'one-shot' (default) or 'tree' (batched rounds of batchSize inputs)."
    )
    batch_size: JSONValue = Field(
        default=None,
        alias="batchSize",
        description="Inputs per intermediate call with reduceStrategy 'tree' (integer >= 2).",
    )


class GatePhase(PhaseBase):
    type: Literal["gate"]
    eval: list[JSONValue] | None = Field(
        default=None,
        description="Zero-token conditions checked first; all true passes the gate without a model call. Supports 'X contains Y'.",
    )  # entries must be strings; checks reports others
    score: JSONValue = Field(
        default=None,
        description="Deterministic scorers with optional judge: {target?, scorers: [...], combine?, weights?, threshold?, judge?}.",
    )  # shape-checked by tftui.flow.score_shape
    on_block: Literal["halt", "retry"] = Field(
        default="halt",
        alias="onBlock",
        description="'halt' (default) stops the run on BLOCK; 'retry' re-runs dependsOn and re-evaluates (retry.max rounds, default 1).",
    )


class ApprovalPhase(PhaseBase):
    type: Literal["approval"]


class LoopPhase(PhaseBase):
    type: Literal["loop"]
    until: str | None = Field(
        default=None,
        description="Stop condition evaluated after each successful iteration ({steps.<self>.output} is the iteration's output).",
    )
    max_iterations: JSONValue = Field(
        default=None, alias="maxIterations", description="Hard cap on iterations (default 10, at most 100)."
    )
    convergence: bool = Field(
        default=True, description="Stop when an iteration's output equals the previous one (default true)."
    )
    reflexion: bool = Field(
        default=False, description="Feed a summary of the previous iteration's failure into {reflexion}."
    )


class TournamentPhase(PhaseBase):
    type: Literal["tournament"]
    variants: JSONValue = Field(
        default=None, description="Number of competing variants from 'task' (default 3, 2-20)."
    )
    judge: str | None = Field(
        default=None, description="Judge rubric; the judge picks a winner with 'WINNER: <n>'."
    )
    judge_agent: str | None = Field(
        default=None, alias="judgeAgent", description="Agent running the judge (defaults to the phase agent)."
    )
    mode: JSONValue = Field(
        default="best",
        description="'best' (default): the winner's output; 'aggregate': the judge's synthesis.",
    )
    branches: list[Branch] | None = Field(
        default=None,
        description="Explicit competitors [{task, agent?}] (at least 2) instead of variants of 'task'.",
    )


class ScriptPhase(PhaseBase):
    type: Literal["script"]
    run: list[str] | str | None = Field(
        default=None,
        description="Command: an argv array (elements interpolated, no shell) or a shell string (never interpolated).",
    )
    input: str | None = Field(default=None, description="Text written to the command's stdin (interpolated).")


class FlowPhase(PhaseBase):
    type: Literal["flow"]
    use: str | None = Field(
        default=None, description="Name of a saved flow to run as this phase (exclusive with 'def')."
    )
    def_: JSONValue = Field(
        default=None,
        alias="def",
        description="Inline sub-flow definition, or a placeholder string that resolves to one.",
    )
    with_: JSONObject | None = Field(
        default=None,
        alias="with",
        description="Args passed to the sub-flow (string values are interpolated).",
    )


class RacePhase(PhaseBase):
    type: Literal["race"]
    branches: list[Branch] | None = Field(
        default=None, description="Branches racing; the first success wins (at least 2)."
    )
    cancel_losers: bool = Field(
        default=True,
        alias="cancelLosers",
        description="Abort losing branches once one succeeds (default true).",
    )


class ExpandPhase(PhaseBase):
    type: Literal["expand"]
    def_: JSONValue = Field(
        default=None,
        alias="def",
        description="Fragment flow (or a placeholder resolving to one) to expand at run time.",
    )
    with_: JSONObject | None = Field(
        default=None, alias="with", description="Args passed to the fragment."
    )
    expand_mode: Literal["nested", "graft"] = Field(
        default="nested",
        alias="expandMode",
        description="'nested' (default) or 'graft' (promote child phases as <id>-<child>).",
    )
    max_nodes: JSONValue = Field(
        default=None, alias="maxNodes", description="Max phases accepted from the fragment (1-100)."
    )


def saved_flow_use(phase: PhaseBase) -> str | None:
    """The saved flow a phase runs (`use`): a `flow` phase's only. An `expand` phase runs its
    `def` (docs/language.md §2.3: `def` required, `use` not read), so a `use` written
    on one is an unmodelled key that `tftui check` reports as ignored, and the engine, the
    sandbox walk and the progress columns ignore it too."""
    return phase.use if isinstance(phase, FlowPhase) else None


PHASE_CLASSES: dict[str, type[PhaseBase]] = {
    "agent": AgentPhase,
    "parallel": ParallelPhase,
    "map": MapPhase,
    "reduce": ReducePhase,
    "gate": GatePhase,
    "approval": ApprovalPhase,
    "loop": LoopPhase,
    "tournament": TournamentPhase,
    "script": ScriptPhase,
    "flow": FlowPhase,
    "race": RacePhase,
    "expand": ExpandPhase,
}


def _phase_tag(value: object) -> JSONValue:
    """The union's tag: a phase's raw `type` (pydantic itself reports a tag that is no phase type)."""
    if isinstance(value, dict):
        return value.get("type", "agent")
    return getattr(value, "type", None)


Phase = Annotated[
    Annotated[AgentPhase, Tag("agent")]
    | Annotated[ParallelPhase, Tag("parallel")]
    | Annotated[MapPhase, Tag("map")]
    | Annotated[ReducePhase, Tag("reduce")]
    | Annotated[GatePhase, Tag("gate")]
    | Annotated[ApprovalPhase, Tag("approval")]
    | Annotated[LoopPhase, Tag("loop")]
    | Annotated[TournamentPhase, Tag("tournament")]
    | Annotated[ScriptPhase, Tag("script")]
    | Annotated[FlowPhase, Tag("flow")]
    | Annotated[RacePhase, Tag("race")]
    | Annotated[ExpandPhase, Tag("expand")],
    Discriminator(_phase_tag),
]


class Flow(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str = Field(description="Flow name (required, non-empty).")
    description: str | None = Field(default=None, description="Display description.")
    version: JSONValue = Field(default=1, description="Informational version number.")
    args: dict[str, ArgSpec] | None = Field(
        default=None,
        description="Declared invocation arguments: name -> {default?, description?, required?}.",
    )
    phases: list[Phase] = Field(
        description="The phases (at least one); the DAG comes from dependsOn/from, never from array order."
    )
    concurrency: JSONValue = Field(
        default=None,
        description="Max phases running at once inside one layer, and default fan-out width (default 8).",
    )
    budget: Budget | None = Field(
        default=None, description="Run-wide ceiling {maxUSD?, maxTokens?}; exceeding it halts the run."
    )
    strict_interpolation: bool = Field(
        default=False,
        alias="strictInterpolation",
        description="Promote every validation warning to an error.",
    )
    agent_scope: Literal["user", "project", "both"] = Field(
        default="user",
        alias="agentScope",
        description="Where agent definitions are discovered: user (default), project, both.",
    )
    idle_timeout: JSONValue = Field(
        default=None, alias="idleTimeout", description="Idle watchdog in ms (0 disables, else >= 1000) (P2)."
    )
    incremental: bool = Field(default=False, description="Cross-run caching default (P2).")
    context_sharing: bool = Field(
        default=False, alias="contextSharing", description="Shared context tree for all phases (P2)."
    )

    def phase(self, phase_id: str) -> PhaseBase | None:
        for phase in self.phases:
            if phase.id == phase_id:
                return phase
        return None

    @property
    def flow_concurrency(self) -> int:
        """Effective flow concurrency: `concurrency ?? 8`, values < 1 treated as 1 (docs/language.md §1.2)."""
        value = self.concurrency
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return 8
        return max(1, int(value))

    def arg_defaults(self) -> JSONObject:
        """Declared arg defaults (an explicit `"default": null` counts as a default)."""
        return {
            k: spec.default for k, spec in (self.args or {}).items() if "default" in spec.model_fields_set
        }

    def makes_model_calls(self) -> bool:
        """False when no phase can ever call a model: only scripts, approvals, and gates decided
        by scorers alone (a `score` block with no `judge` and no `task`), so `tftui run`
        needs no runner for it (docs/language.md §2)."""
        return any(_may_call_a_model(phase) for phase in self.phases)


def _may_call_a_model(phase: PhaseBase) -> bool:
    if phase.type in ("script", "approval"):
        return False
    if phase.type == "gate":
        score = getattr(phase, "score", None)
        judged = isinstance(score, dict) and score.get("judge") is not None
        return phase.task is not None or judged or not isinstance(score, dict)
    return True
