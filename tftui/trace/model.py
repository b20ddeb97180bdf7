"""The normalized trace of a run (docs/trace-gates.md §1) and the column view the rules read.

Two representations, on purpose:
- `AgentTrace` / `TraceStep` are pydantic models: the boundary (trace files, the
  recorder's output). Loading validates types; `normalize` makes a trace deterministic.
- `TraceColumns` (columns.py, re-exported here) holds the same data as one plain list per
  field. Rule evaluation (rules.py) reads only these lists, so a million-step trace is
  evaluated with C-level list operations instead of a million pydantic objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from math import isfinite
from typing import Literal, NotRequired

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
from tftui.trace.columns import (  # the column view, re-exported: what callers import from here
    FAKE_CLOCK_KEY,
    SCHEMA_VERSION,
    STEP_KINDS,
    STEP_STATUSES,
    ColumnsLoad,
    Metadata,
    MetaValue,
    StepKind,
    StepLike,
    StepStatus,
    TraceColumns,
)

__all__ = [
    "FAKE_CLOCK_KEY", "SCHEMA_VERSION", "STEP_KINDS", "STEP_STATUSES", "AgentTrace", "ColumnsLoad", "Metadata",
    "MetaValue", "Number", "StepJSON", "StepKind", "StepLike", "StepStatus", "TraceColumns", "TraceJSON",
    "TraceLoad", "TraceStep", "dump_columns", "dump_trace", "load_columns", "normalize", "parse_trace",
    "step_to_json", "trace_to_json",
]

Number = StrictInt | StrictFloat
# What loading validates a metadata value as (strict: `1` is not `true`); `Metadata` (columns.py) is
# the same shape as a plain type.
_StrictMetaValue = StrictStr | StrictBool | StrictInt | StrictFloat | None
_StrictMetadata = dict[str, _StrictMetaValue]


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
    metadata: _StrictMetadata | None = None


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


# The metadata of a recorded model call (tftui.trace.record), in this order.
_CALL_KEYS = ("phase", "phaseType", "transient")


def _metadata_text(m: Metadata) -> str:
    """`_encode_step(m)`; a recorded model call's metadata formatted by hand (~2.5x cheaper: one
    per step of a fan-out, whose phases share none)."""
    if tuple(m) == _CALL_KEYS:
        phase, phase_type, transient = m["phase"], m["phaseType"], m["transient"]
        if type(phase) is str and type(phase_type) is str and type(transient) is bool:
            return (f'{{"phase": {encode_basestring(phase)}, "phaseType": {encode_basestring(phase_type)}, '
                    f'"transient": {"true" if transient else "false"}}}')
    return _encode_step(m)


def dump_columns(cols: TraceColumns) -> str:
    """`dump_trace` straight from columns (no model objects): what a run writes as trace.json."""
    encode, text = _encode_step, encode_basestring
    # id of a metadata dict (alive in `cols` meanwhile) -> its JSON; and, once a second step holds
    # it, what such a step without a duration wrote after its name, with the fields that decided
    # it (kind, status, attempt, tokens): a map's items share one dict and most of them that text
    # too (a duration is no part of the key: 0.0 == -0.0 and 1 == 1.0, which JSON writes apart)
    known: dict[int, str] = {}
    tails: dict[int, tuple[tuple[object, ...], str]] = {}
    lines: list[str] = []
    append = lines.append
    for i, p, q, n, k, st, a, it, ot, d, m in zip(
        cols.ids, cols.parent_ids, cols.sequences, cols.names, cols.kinds, cols.statuses, cols.attempts,
        cols.input_tokens, cols.output_tokens, cols.durations, cols.metadata, strict=True,
    ):
        # The common step (str ids, names, kind and status; int sequence, attempt and tokens, a
        # finite float or int duration) formatted by hand: what `encode` writes for it, keys
        # and all, without building a dict and encoding every key of it again (most of
        # writing a trace.json). Anything else takes `encode`.
        if (type(i) is str and type(n) is str and type(k) is str and type(st) is str and type(q) is int
                and (p is None or type(p) is str) and (a is None or type(a) is int)
                and (it is None or type(it) is int) and (ot is None or type(ot) is int)
                and (d is None or type(d) is int or (type(d) is float and isfinite(d)))):
            meta = None if m is None else known.get(id(m))
            if meta is not None and d is None:  # a later step holding this dict: most often the same tail
                named = (f'    {{"id": {text(i)}, "parentId": {"null" if p is None else text(p)}, "sequence": {q}, '
                         f'"name": {text(n)}')
                last = tails.get(id(m))
                if last is not None and last[0] == (k, st, a, it, ot):
                    append(named + last[1])
                    continue
                tail = f', "kind": {text(k)}, "status": {text(st)}'
                if a is not None:
                    tail += f', "attempt": {a}'
                if it is not None:
                    tail += f', "inputTokens": {it}'
                if ot is not None:
                    tail += f', "outputTokens": {ot}'
                tail = f'{tail}, "metadata": {meta}}}'
                tails[id(m)] = ((k, st, a, it, ot), tail)
                append(named + tail)
                continue
            start = (f'    {{"id": {text(i)}, "parentId": {"null" if p is None else text(p)}, "sequence": {q}, '
                     f'"name": {text(n)}, "kind": {text(k)}, "status": {text(st)}')
            if a is not None:
                start += f', "attempt": {a}'
            if it is not None:
                start += f', "inputTokens": {it}'
            if ot is not None:
                start += f', "outputTokens": {ot}'
            if d is not None:
                start += f', "durationMs": {d!r}'
            if m is None:
                append(start + "}")
                continue
            if meta is None:
                meta = known[id(m)] = _metadata_text(m)
            append(f'{start}, "metadata": {meta}}}')
            continue
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
        append("    " + encode(out))
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
    metadata: NotRequired[_StrictMetadata | None]


class TraceJSON(TypedDict):
    """`{schemaVersion, fixture, status?, steps}`: the trace file's top level."""

    schemaVersion: Literal[1]
    fixture: StrictStr
    status: NotRequired[StepStatus | None]
    steps: list[StepJSON]


_TRACE_DICT: TypeAdapter[TraceJSON] | None = None


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


