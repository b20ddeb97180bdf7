"""Pydantic models of the taskflow flow format (SPEC §1–2).

Field names are the file's camelCase keys (via aliases); Python attributes are
snake_case. Phases are a discriminated union on `type` (default `agent`).

Typing policy: structural types (strings, string lists, booleans, enums) are
enforced here, so a wrong type is reported at the value's line:col by the loader.
Values whose limits SPEC gives its own messages for (retry numbers, timeouts,
maxIterations, variants, `score`, `expect`, eval entries, branch tasks) are typed
loosely and checked in `tftui.flow.checks`, which emits SPEC's exact wording.

Phases allow unknown keys (`model_extra`): checks turns them into warnings (or
SPEC's errors for keys that belong to another type, such as `score` on an agent).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

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
    default: Any = None
    description: str | None = None
    required: bool | None = None
    type: str | None = None  # informational (typed args are a taskflow extension)
    values: list[Any] | None = None  # enum values of a typed arg (informational)
    minimum: float | None = None
    maximum: float | None = None


class Budget(_Model):
    max_usd: float | None = Field(default=None, alias="maxUSD")
    max_tokens: float | None = Field(default=None, alias="maxTokens")


class Retry(BaseModel):
    """`{max, backoffMs?, factor?}`; numeric limits are checked by checks.py (SPEC §1.6)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    max: Any = None
    backoff_ms: Any = Field(default=None, alias="backoffMs")
    factor: Any = None


class Branch(BaseModel):
    """One parallel/race/tournament branch: `{task, agent?, cwd?}`."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task: Any = None
    agent: str | None = None
    cwd: str | None = None


class PhaseBase(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str
    type: str = "agent"
    name: str | None = None
    description: str | None = None
    agent: str | None = None
    task: Any = None  # a string template; non-strings are reported by checks
    depends_on: list[str] = Field(default_factory=list, alias="dependsOn")
    from_: list[str] | None = Field(default=None, alias="from")
    join: Any = "all"
    when: str | None = None
    optional: bool = False
    retry: Retry | None = None
    idempotent: bool = True
    timeout: Any = None
    output: Literal["text", "json"] = "text"
    expect: Any = None
    context: list[str] | None = None
    context_limit: Any = Field(default=None, alias="contextLimit")
    final: bool = False
    concurrency: Any = None
    model: str | None = None
    thinking: Any = None
    tools: Any = None
    cwd: str | None = None
    cache: Any = None
    share_context: Any = Field(default=None, alias="shareContext")

    @property
    def edges(self) -> list[str]:
        """DAG edges: `dependsOn ∪ from`, de-duplicated, `dependsOn` first (SPEC §2.1)."""
        seen: dict[str, None] = dict.fromkeys(self.depends_on)
        for dep in self.from_ or ():
            seen.setdefault(dep, None)
        return list(seen)


class AgentPhase(PhaseBase):
    type: Literal["agent"] = "agent"


class ParallelPhase(PhaseBase):
    type: Literal["parallel"]
    branches: list[Branch] | None = None


class MapPhase(PhaseBase):
    type: Literal["map"]
    over: Any = None  # a placeholder string or an inline array
    as_: str | None = Field(default=None, alias="as")


class ReducePhase(PhaseBase):
    type: Literal["reduce"]
    reduce_strategy: Literal["one-shot", "tree"] | None = Field(default=None, alias="reduceStrategy")
    batch_size: Any = Field(default=None, alias="batchSize")


class GatePhase(PhaseBase):
    type: Literal["gate"]
    eval: list[Any] | None = None  # entries must be strings; checks reports others
    score: Any = None  # shape-checked by tftui.scoring (score_shape_errors)
    on_block: Literal["halt", "retry"] = Field(default="halt", alias="onBlock")


class ApprovalPhase(PhaseBase):
    type: Literal["approval"]


class LoopPhase(PhaseBase):
    type: Literal["loop"]
    until: str | None = None
    max_iterations: Any = Field(default=None, alias="maxIterations")
    convergence: bool = True
    reflexion: bool = False


class TournamentPhase(PhaseBase):
    type: Literal["tournament"]
    variants: Any = None
    judge: str | None = None
    judge_agent: str | None = Field(default=None, alias="judgeAgent")
    mode: Any = "best"
    branches: list[Branch] | None = None


class ScriptPhase(PhaseBase):
    type: Literal["script"]
    run: list[str] | str | None = None
    input: str | None = None


class FlowPhase(PhaseBase):
    type: Literal["flow"]
    use: str | None = None
    def_: Any = Field(default=None, alias="def")
    with_: dict[str, Any] | None = Field(default=None, alias="with")


class RacePhase(PhaseBase):
    type: Literal["race"]
    branches: list[Branch] | None = None
    cancel_losers: bool = Field(default=True, alias="cancelLosers")


class ExpandPhase(PhaseBase):
    type: Literal["expand"]
    def_: Any = Field(default=None, alias="def")
    with_: dict[str, Any] | None = Field(default=None, alias="with")
    mode: Literal["nested", "graft"] = "nested"
    max_nodes: Any = Field(default=None, alias="maxNodes")


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


def _phase_tag(value: Any) -> str | None:
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

    name: str
    description: str | None = None
    version: Any = 1
    args: dict[str, ArgSpec] | None = None
    phases: list[Phase]
    concurrency: Any = None
    budget: Budget | None = None
    strict_interpolation: bool = Field(default=False, alias="strictInterpolation")
    agent_scope: Literal["user", "project", "both"] = Field(default="user", alias="agentScope")
    idle_timeout: Any = Field(default=None, alias="idleTimeout")
    incremental: bool = False
    context_sharing: bool = Field(default=False, alias="contextSharing")

    def phase(self, phase_id: str) -> PhaseBase | None:
        for phase in self.phases:
            if phase.id == phase_id:
                return phase
        return None

    @property
    def flow_concurrency(self) -> int:
        """Effective flow concurrency: `concurrency ?? 8`, values < 1 treated as 1 (SPEC §1.2)."""
        value = self.concurrency
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return 8
        return max(1, int(value))

    def arg_defaults(self) -> dict[str, Any]:
        """Declared arg defaults (an explicit `"default": null` counts as a default)."""
        return {
            k: spec.default for k, spec in (self.args or {}).items() if "default" in spec.model_fields_set
        }
