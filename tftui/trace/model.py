"""The normalized trace of a run (docs/trace-gates.md §1) and the column view the rules read.

Two representations, on purpose:
- `AgentTrace` / `TraceStep` are pydantic models: the boundary (trace files, the
  recorder's output). Loading validates types; `normalize` makes a trace deterministic.
- `TraceColumns` holds the same data as one plain list per field. Rule evaluation
  (rules.py) reads only these lists, so a million-step trace is evaluated with C-level
  list operations instead of a million pydantic objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from json.encoder import encode_basestring
from typing import Final, Literal, NotRequired, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)
from typing_extensions import TypedDict

from tftui.lang.values import JSONObject

SCHEMA_VERSION: Final = 1
StepKind = Literal["run", "model", "tool", "retrieval", "policy", "fallback"]
StepStatus = Literal["ok", "error", "blocked", "cancelled"]
STEP_KINDS: tuple[str, ...] = ("run", "model", "tool", "retrieval", "policy", "fallback")
STEP_STATUSES: tuple[str, ...] = ("ok", "error", "blocked", "cancelled")

Number = StrictInt | StrictFloat
MetaValue = StrictStr | StrictBool | StrictInt | StrictFloat | None
Metadata = dict[str, MetaValue]  # a step's flat metadata object

_SCALARS = frozenset({str, int, float, bool, type(None)})
# Root-step metadata flag saying the run used a fake clock, so `durationMs` is deterministic and kept.
FAKE_CLOCK_KEY = "fakeClock"


class TraceStep(BaseModel):
    """One operation of a run. Unknown fields are accepted on load and dropped by `normalize`."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: StrictStr
    parent_id: StrictStr | None = Field(alias="parentId")
    sequence: StrictInt
    name: StrictStr
    kind: StepKind
    status: StepStatus
    attempt: StrictInt | None = None
    input_tokens: Number | None = Field(default=None, alias="inputTokens")
    output_tokens: Number | None = Field(default=None, alias="outputTokens")
    duration_ms: Number | None = Field(default=None, alias="durationMs")
    metadata: Metadata | None = None


class AgentTrace(BaseModel):
    """`{schemaVersion: 1, fixture, status, steps}`. `status` may be absent on load: integrity reports it."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schemaVersion")
    fixture: StrictStr
    status: StepStatus | None = None
    steps: list[TraceStep]


def step_to_json(step: TraceStep) -> StepJSON:
    """camelCase JSON of a step; absent optional fields are omitted (null metadata values are kept)."""
    out: StepJSON = {
        "id": step.id,
        "parentId": step.parent_id,
        "sequence": step.sequence,
        "name": step.name,
        "kind": step.kind,
        "status": step.status,
    }
    if step.attempt is not None:
        out["attempt"] = step.attempt
    if step.input_tokens is not None:
        out["inputTokens"] = step.input_tokens
    if step.output_tokens is not None:
        out["outputTokens"] = step.output_tokens
    if step.duration_ms is not None:
        out["durationMs"] = step.duration_ms
    if step.metadata is not None:
        out["metadata"] = dict(step.metadata)
    return out


def trace_to_json(trace: AgentTrace) -> TraceJSON:
    return {
        "schemaVersion": trace.schema_version,
        "fixture": trace.fixture,
        "status": trace.status,
        "steps": [step_to_json(s) for s in trace.steps],
    }


def dump_trace(trace: AgentTrace) -> str:
    """The trace file text: one step per line, so diffs of reviewed fixtures stay readable."""
    return dump_columns(TraceColumns.from_trace(trace))


def _step_encoder() -> Callable[[object], str]:
    """`json.JSONEncoder(ensure_ascii=False).encode` for a step, without its per-call cost:
    `encode` builds a new C encoder for every value it is given (once per step, ~40% of
    writing a trace.json); this is the C encoder it builds, made once."""
    try:
        from _json import make_encoder
    except ImportError:  # pragma: no cover - CPython always has _json
        return json.JSONEncoder(ensure_ascii=False).encode
    base = json.JSONEncoder(ensure_ascii=False)
    c_encode = make_encoder(None, base.default, encode_basestring, None, ": ", ", ", False, False, True)

    def encode(value: object) -> str:
        return "".join(c_encode(value, 0))

    return encode


_encode_step = _step_encoder()


def dump_columns(cols: TraceColumns) -> str:
    """`dump_trace` straight from columns (no model objects): what a run writes as trace.json."""
    encode = _encode_step
    lines: list[str] = []
    for i, p, q, n, k, st, a, it, ot, d, m in zip(
        cols.ids, cols.parent_ids, cols.sequences, cols.names, cols.kinds, cols.statuses, cols.attempts,
        cols.input_tokens, cols.output_tokens, cols.durations, cols.metadata, strict=True,
    ):
        out: StepJSON = {"id": i, "parentId": p, "sequence": q, "name": n, "kind": k, "status": st}
        if a is not None:
            out["attempt"] = a
        if it is not None:
            out["inputTokens"] = it
        if ot is not None:
            out["outputTokens"] = ot
        if d is not None:
            out["durationMs"] = d
        if m is not None:
            out["metadata"] = m
        lines.append("    " + encode(out))
    head = {"schemaVersion": SCHEMA_VERSION, "fixture": cols.fixture, "status": cols.status}
    head_text = ",\n".join(f"  {json.dumps(k)}: {encode(v)}" for k, v in head.items())
    body = '  "steps": [\n' + ",\n".join(lines) + "\n  ]" if lines else '  "steps": []'
    return "{\n" + head_text + ",\n" + body + "\n}\n"


@dataclass
class TraceLoad:
    trace: AgentTrace | None
    error: str | None = None  # "trace parse: …" / "trace schema: …" (an instrumentation error)


def _loc_text(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts) or "$"


_UNION_TAGS = {"str", "bool", "int", "float", "none", "literal['run','model','tool','retrieval','policy','fallback']"}


def _schema_error(exc: ValidationError) -> str:
    """The first validation problem as `steps[3].metadata.x: …` (union branches folded into one line)."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    folded = False
    while loc and isinstance(loc[-1], str) and (loc[-1] in _UNION_TAGS or loc[-1].startswith("function-")):
        loc = loc[:-1]
        folded = True
    where = _loc_text(loc)
    if folded and len(loc) >= 2 and loc[-2] == "metadata":
        return f"{where}: metadata values must be a string, number, boolean or null (flat, no nested objects)"
    if folded:
        return f"{where}: {err['msg']} (got {err.get('input')!r})"
    return f"{where}: {err['msg']}"


def parse_trace(data: str | bytes | JSONObject) -> TraceLoad:
    """Validate a trace (file text or decoded JSON). Never raises: errors come back in `TraceLoad.error`."""
    try:
        if isinstance(data, dict):
            return TraceLoad(AgentTrace.model_validate(data))
        return TraceLoad(AgentTrace.model_validate_json(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        if first.get("type") == "json_invalid":
            return TraceLoad(None, f"trace parse: {first.get('msg')}")
        return TraceLoad(None, f"trace schema: {_schema_error(exc)}")


class StepJSON(TypedDict):
    """A step as the trace file has it (camelCase); the strict types are what loading enforces."""

    id: StrictStr
    parentId: StrictStr | None
    sequence: StrictInt
    name: StrictStr
    kind: StepKind
    status: StepStatus
    attempt: NotRequired[StrictInt | None]
    inputTokens: NotRequired[Number | None]
    outputTokens: NotRequired[Number | None]
    durationMs: NotRequired[Number | None]
    metadata: NotRequired[Metadata | None]


class TraceJSON(TypedDict):
    """`{schemaVersion, fixture, status?, steps}`: the trace file's top level."""

    schemaVersion: Literal[1]
    fixture: StrictStr
    status: NotRequired[StepStatus | None]
    steps: list[StepJSON]


_TRACE_DICT: TypeAdapter[TraceJSON] | None = None


@dataclass
class ColumnsLoad:
    columns: TraceColumns | None
    error: str | None = None


def load_columns(data: str | bytes) -> ColumnsLoad:
    """Validate trace file text straight into columns: the same schema as `AgentTrace`, validated by
    pydantic into plain dicts (half the time and memory of model objects; unknown fields dropped)."""
    global _TRACE_DICT
    if _TRACE_DICT is None:
        _TRACE_DICT = TypeAdapter(TraceJSON)
    try:
        raw = _TRACE_DICT.validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first.get("type") == "json_invalid":
            return ColumnsLoad(None, f"trace parse: {first.get('msg')}")
        return ColumnsLoad(None, f"trace schema: {_schema_error(exc)}")
    return ColumnsLoad(TraceColumns.from_dicts(raw["steps"], fixture=raw["fixture"], status=raw.get("status")))


# --- normalization (docs/trace-gates.md §1): implemented on columns in normalize.py -------------------------------


def normalize(trace: AgentTrace, *, fake_clock: bool | None = None) -> AgentTrace:
    """The deterministic form of a trace (docs/trace-gates.md §1); see `tftui.trace.normalize.normalize_columns`."""
    from tftui.trace.normalize import columns_to_trace, normalize_columns

    return columns_to_trace(normalize_columns(TraceColumns.from_trace(trace), fake_clock=fake_clock))


# --- the column view (what rules read) --------------------------------------------------------------


class StepLike(Protocol):
    """What `TraceColumns.from_steps` reads: TraceStep's attribute names (model steps, recorder steps)."""

    @property
    def id(self) -> str: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def sequence(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> StepKind: ...
    @property
    def status(self) -> StepStatus: ...
    @property
    def attempt(self) -> int | None: ...
    @property
    def input_tokens(self) -> float | int | None: ...
    @property
    def output_tokens(self) -> float | int | None: ...
    @property
    def duration_ms(self) -> float | int | None: ...
    @property
    def metadata(self) -> Metadata | None: ...


@dataclass
class TraceColumns:
    """One list per step field, index-aligned, in sequence order once normalized.

    Absent optional values are None. Build it once per trace; every rule reads it.
    """

    fixture: str
    status: StepStatus | None
    ids: list[str]
    parent_ids: list[str | None]
    sequences: list[int]
    names: list[str]
    kinds: list[StepKind]
    statuses: list[StepStatus]
    attempts: list[int | None]
    input_tokens: list[float | int | None]
    output_tokens: list[float | int | None]
    durations: list[float | int | None]
    metadata: list[Metadata | None]
    # Facts derived from whole columns, computed once and shared by integrity, normalization and
    # rules (a pass over a million scattered objects costs as much as the work done in it). The
    # columns are never changed once built, so these never go stale.
    _roots: int | None = field(default=None, init=False, repr=False, compare=False)
    _metadata_summary: tuple[set[str], set[MetaValue]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __len__(self) -> int:
        return len(self.names)

    def root_count(self) -> int:
        """How many steps have no parent."""
        if self._roots is None:
            self._roots = self.parent_ids.count(None)
        return self._roots

    def metadata_summary(self) -> tuple[set[str], set[MetaValue]]:
        """(every metadata key, every distinct metadata value) over all steps; values that compare
        equal are one (1, 1.0 and True), which is all a check of "is any value bad" needs."""
        if self._metadata_summary is None:
            present = list(filter(None, self.metadata))
            try:
                values = set(chain.from_iterable(map(dict.values, present)))
            except TypeError:  # a value outside the schema (a list from an in-memory recorder): not a scalar fact
                values = {v for v in chain.from_iterable(map(dict.values, present)) if type(v) in _SCALARS}
            self._metadata_summary = (set(chain.from_iterable(present)), values)
        return self._metadata_summary

    def share_summaries(self, source: TraceColumns, *, same_metadata: bool) -> TraceColumns:
        """Carry `source`'s derived facts over to these columns (the same steps, reordered and
        renamed: the root count stays; the metadata summary stays when no metadata changed)."""
        self._roots = source._roots
        if same_metadata:
            self._metadata_summary = source._metadata_summary
        return self

    @classmethod
    def from_trace(cls, trace: AgentTrace) -> TraceColumns:
        return cls.from_steps(trace.steps, fixture=trace.fixture, status=trace.status)

    @classmethod
    def from_steps(cls, steps: Sequence[StepLike], *, fixture: str, status: StepStatus | None) -> TraceColumns:
        """Columns from objects with TraceStep's attribute names (model steps, recorder steps)."""
        return cls(
            fixture=fixture,
            status=status,
            ids=[s.id for s in steps],
            parent_ids=[s.parent_id for s in steps],
            sequences=[s.sequence for s in steps],
            names=[s.name for s in steps],
            kinds=[s.kind for s in steps],
            statuses=[s.status for s in steps],
            attempts=[s.attempt for s in steps],
            input_tokens=[s.input_tokens for s in steps],
            output_tokens=[s.output_tokens for s in steps],
            durations=[s.duration_ms for s in steps],
            metadata=[s.metadata for s in steps],
        )

    @classmethod
    def from_dicts(
        cls, steps: Sequence[StepJSON], *, fixture: str = "", status: StepStatus | None = "ok"
    ) -> TraceColumns:
        """Columns from plain camelCase step dicts (already trusted: tests, benchmarks, recorders)."""
        return cls(
            fixture=fixture,
            status=status,
            ids=[s["id"] for s in steps],
            parent_ids=[s.get("parentId") for s in steps],
            sequences=[s["sequence"] for s in steps],
            names=[s["name"] for s in steps],
            kinds=[s["kind"] for s in steps],
            statuses=[s["status"] for s in steps],
            attempts=[s.get("attempt") for s in steps],
            input_tokens=[s.get("inputTokens") for s in steps],
            output_tokens=[s.get("outputTokens") for s in steps],
            durations=[s.get("durationMs") for s in steps],
            metadata=[s.get("metadata") for s in steps],
        )
