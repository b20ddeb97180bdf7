"""OpenTelemetry traces as normalized traces (docs/trace-gates.md §1): `tftui trace import`, and `tftui gate` on OTLP files.

Input is OTLP/JSON: an `ExportTraceServiceRequest` (`{"resourceSpans": [...]}`), or several of them one
per line as the collector's file exporter writes them. Field names are the proto3 JSON names of
opentelemetry-proto's trace.proto (tests/trace/test_trace_otlp.py checks every name used here against
the official descriptors); ids are hex, 64-bit integers may be strings, enums numbers or names.

Mapping, span → step (one step per span, the parent link kept):
- kind: `gen_ai.operation.name` (GenAI semantic conventions) or `openinference.span.kind`
  (OpenInference); the parentless span is the `run` step. `tftui.step.kind` overrides both (the
  conventions have no policy/guardrail operation: an instrumentation marks its policy steps so).
- status: span status ERROR → error, otherwise ok; `tftui.step.status` (blocked, cancelled, …) overrides.
- usage: `gen_ai.usage.input_tokens`/`output_tokens` or `llm.token_count.prompt`/`completion`.
- attempt: `tftui.step.attempt`, else `http.request.resend_count` + 1 (the conventions' retry counter).
- sequence: start-time order (ties: end time, then file order); durationMs from start/end.
- metadata: a few descriptive attributes (operation, model, provider, tool, agent, span kind, error
  type, status message); every other attribute is dropped, so payloads (prompts, messages,
  input/output values) never reach the trace. Normalization (normalize.py) then drops the volatile
  rest (ids, and durations unless `--fake-clock`).
A malformed span is an instrumentation error naming the span id (or its position) and the field.
Never raises on user input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from tftui.trace.columns import ColumnsLoad, Metadata, StepKind, StepStatus, TraceColumns
from tftui.trace.integrity import check_columns, integrity_error
from tftui.trace.normalize import normalize_columns

OtlpFormat = Literal["otlp-json", "openinference"]
FORMATS: tuple[str, ...] = ("otlp-json", "openinference")

# proto3 JSON names of opentelemetry.proto.trace.v1 / common.v1 fields (checked against the descriptors in tests)
RESOURCE_SPANS: Final = "resourceSpans"
SCOPE_SPANS: Final = "scopeSpans"
SPANS: Final = "spans"
SPAN_ID: Final = "spanId"
PARENT_SPAN_ID: Final = "parentSpanId"
NAME: Final = "name"
KIND: Final = "kind"
START: Final = "startTimeUnixNano"
END: Final = "endTimeUnixNano"
ATTRIBUTES: Final = "attributes"
STATUS: Final = "status"
STATUS_CODE: Final = "code"
STATUS_MESSAGE: Final = "message"
KEY: Final = "key"
VALUE: Final = "value"
VALUE_FIELDS: Final = ("stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue",
                       "stringValueStrindex")  # the last: an index into a profile's string table, unread here
STATUS_CODE_ERROR: Final = 2  # Status.StatusCode.STATUS_CODE_ERROR
STATUS_CODE_NAMES: Final = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}

# GenAI semantic conventions (opentelemetry-semantic-conventions, gen_ai_attributes)
GEN_AI_OPERATION: Final = "gen_ai.operation.name"
GEN_AI_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GEN_AI_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
GEN_AI_KINDS: Final[dict[str, StepKind]] = {
    "chat": "model",
    "generate_content": "model",
    "text_completion": "model",
    "embeddings": "model",
    "retrieval": "retrieval",
    "execute_tool": "tool",
    "create_agent": "run",
    "invoke_agent": "run",
    "invoke_workflow": "run",
}
# OpenInference semantic conventions (openinference-semantic-conventions)
OI_SPAN_KIND: Final = "openinference.span.kind"
OI_INPUT_TOKENS: Final = "llm.token_count.prompt"
OI_OUTPUT_TOKENS: Final = "llm.token_count.completion"
OI_KINDS: Final[dict[str, StepKind]] = {
    "LLM": "model",
    "EMBEDDING": "model",
    "TOOL": "tool",
    "RETRIEVER": "retrieval",
    "RERANKER": "retrieval",
    "GUARDRAIL": "policy",
    "EVALUATOR": "policy",
    "DECISION": "policy",
    "AGENT": "run",
    "CHAIN": "run",
    "PROMPT": "run",
    "UNKNOWN": "run",
}
RESEND_COUNT: Final = "http.request.resend_count"
# tftui's own attributes, for what neither convention says
STEP_KIND_ATTR: Final = "tftui.step.kind"
STEP_STATUS_ATTR: Final = "tftui.step.status"
STEP_ATTEMPT_ATTR: Final = "tftui.step.attempt"

_STEP_KINDS: Final = frozenset({"run", "model", "tool", "retrieval", "policy", "fallback"})
_STEP_STATUSES: Final = frozenset({"ok", "error", "blocked", "cancelled"})
_KEPT_AS_METADATA: Final = {
    GEN_AI_OPERATION: "operation",
    "gen_ai.request.model": "model",
    "gen_ai.provider.name": "provider",
    "gen_ai.system": "provider",
    "gen_ai.tool.name": "tool",
    "gen_ai.agent.name": "agent",
    OI_SPAN_KIND: "spanKind",
    "llm.model_name": "model",
    "llm.provider": "provider",
    "tool.name": "tool",
    "error.type": "errorType",
}
_NUMERIC: Final = frozenset({GEN_AI_INPUT_TOKENS, GEN_AI_OUTPUT_TOKENS, OI_INPUT_TOKENS, OI_OUTPUT_TOKENS,
                             RESEND_COUNT, STEP_ATTEMPT_ATTR})
_WANTED: Final = frozenset(_KEPT_AS_METADATA) | _NUMERIC | {STEP_KIND_ATTR, STEP_STATUS_ATTR}


@dataclass
class OtlpImport:
    columns: TraceColumns | None  # as imported (span ids, durations), before normalization
    error: str | None = None  # "otlp: span <id>: field <f>: …" (an instrumentation error)


class _Malformed(Exception):
    pass


def looks_like_otlp(data: bytes | str) -> bool:
    """Content detection for `tftui gate`: an OTLP/JSON export names `resourceSpans` near its start."""
    head = data[:4096]
    return (b'"resourceSpans"' in head) if isinstance(head, bytes) else ('"resourceSpans"' in head)


def detect_format(data: bytes | str) -> OtlpFormat:
    marker = OI_SPAN_KIND.encode() if isinstance(data, bytes) else OI_SPAN_KIND
    return "openinference" if marker in data else "otlp-json"  # type: ignore[operator]


def _requests(data: bytes | str) -> list[object]:
    try:
        return [json.loads(data)]
    except (json.JSONDecodeError, UnicodeDecodeError) as whole_error:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise _Malformed(f"otlp: not JSON: {whole_error}") from None
        out: list[object] = []
        for number, line in enumerate(lines, start=1):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise _Malformed(f"otlp: line {number}: not JSON: {exc}") from None
        return out


def _where(span: dict[str, object], position: int) -> str:
    sid = span.get(SPAN_ID)
    return f"span {sid}" if isinstance(sid, str) and sid else f"span #{position} ({span.get(NAME)!r})"


def _nanos(span: dict[str, object], field: str, position: int) -> int:
    value = span.get(field)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    what = "missing" if value is None else f"not a non-negative integer ({value!r})"
    raise _Malformed(f"otlp: {_where(span, position)}: field {field}: {what}")


def _attr_value(raw: object, span: dict[str, object], position: int, key: str) -> object:
    if not isinstance(raw, dict):
        raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}.{key}: value must be an object")
    for name in VALUE_FIELDS:
        if name in raw:
            value = raw[name]
            if name == "stringValueStrindex":
                return None
            if name == "intValue":
                if isinstance(value, str) and value.lstrip("-").isdigit():
                    return int(value)
                if not (isinstance(value, int) and not isinstance(value, bool)):
                    raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}.{key}: "
                                     f"intValue {value!r} is not an integer")
            if name == "doubleValue" and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
                raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}.{key}: "
                                 f"doubleValue {value!r} is not a number")
            return value
    return None  # an empty AnyValue


def _attributes(span: dict[str, object], position: int) -> dict[str, object]:
    attrs = span.get(ATTRIBUTES)
    if attrs is None:
        return {}
    if not isinstance(attrs, list):
        raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}: must be an array")
    out: dict[str, object] = {}
    for item in attrs:
        key = item.get(KEY) if isinstance(item, dict) else None
        if not isinstance(key, str):
            raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}: an entry without a string key")
        if key in _WANTED:  # everything else is dropped unread
            out[key] = _attr_value(item.get(VALUE), span, position, key)
    return out


def _number(attrs: dict[str, object], key: str, span: dict[str, object], position: int) -> int | float | None:
    value = attrs.get(key)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}.{key}: {value!r} is not a number")


def _status_code(span: dict[str, object], position: int) -> tuple[int, str | None]:
    status = span.get(STATUS)
    if status is None:
        return 0, None
    if not isinstance(status, dict):
        raise _Malformed(f"otlp: {_where(span, position)}: field {STATUS}: must be an object")
    code = status.get(STATUS_CODE, 0)
    if isinstance(code, str):
        code = STATUS_CODE_NAMES.get(code, code)
    if not (isinstance(code, int) and not isinstance(code, bool) and code in (0, 1, 2)):
        raise _Malformed(f"otlp: {_where(span, position)}: field {STATUS}.{STATUS_CODE}: unknown code {code!r}")
    message = status.get(STATUS_MESSAGE)
    return code, message if isinstance(message, str) and message else None


def _spans(requests: list[object]) -> list[dict[str, object]]:
    spans: list[dict[str, object]] = []
    for request in requests:
        if not isinstance(request, dict) or not isinstance(request.get(RESOURCE_SPANS), list):
            raise _Malformed(f"otlp: field {RESOURCE_SPANS}: missing (not an OTLP/JSON trace export)")
        for resource_spans in request[RESOURCE_SPANS]:
            scopes = resource_spans.get(SCOPE_SPANS, []) if isinstance(resource_spans, dict) else None
            if not isinstance(scopes, list):
                raise _Malformed(f"otlp: field {RESOURCE_SPANS}[].{SCOPE_SPANS}: must be an array")
            for scope in scopes:
                items = scope.get(SPANS, []) if isinstance(scope, dict) else None
                if not isinstance(items, list):
                    raise _Malformed(f"otlp: field {SCOPE_SPANS}[].{SPANS}: must be an array")
                spans.extend(items)
    return spans


def _step_kind(attrs: dict[str, object], fmt: OtlpFormat, is_root: bool) -> StepKind:
    override = attrs.get(STEP_KIND_ATTR)
    if isinstance(override, str) and override in _STEP_KINDS:
        return override  # type: ignore[return-value]  # checked against the step kinds just above
    if is_root:
        return "run"
    if fmt == "openinference":
        kind = attrs.get(OI_SPAN_KIND)
        return OI_KINDS.get(kind, "run") if isinstance(kind, str) else "run"
    op = attrs.get(GEN_AI_OPERATION)
    return GEN_AI_KINDS.get(op, "run") if isinstance(op, str) else "run"


def import_otlp(data: bytes | str, *, fixture: str, fmt: OtlpFormat | None = None) -> OtlpImport:
    """The spans of an OTLP/JSON export as trace columns (span ids, not yet normalized). Never raises."""
    try:
        return OtlpImport(_import(data, fixture, fmt or detect_format(data)))
    except _Malformed as exc:
        return OtlpImport(None, str(exc))


def _import(data: bytes | str, fixture: str, fmt: OtlpFormat) -> TraceColumns:
    spans = _spans(_requests(data))
    rows: list[tuple[int, int, int, dict[str, object], dict[str, object]]] = []
    for position, span in enumerate(spans, start=1):
        if not isinstance(span, dict):
            raise _Malformed(f"otlp: span #{position}: must be an object")
        sid = span.get(SPAN_ID)
        if not isinstance(sid, str) or not sid:
            raise _Malformed(f"otlp: {_where(span, position)}: field {SPAN_ID}: missing")
        parent = span.get(PARENT_SPAN_ID)
        if parent is not None and not isinstance(parent, str):
            raise _Malformed(f"otlp: {_where(span, position)}: field {PARENT_SPAN_ID}: must be a hex string")
        if not isinstance(span.get(NAME), str):
            raise _Malformed(f"otlp: {_where(span, position)}: field {NAME}: missing")
        start = _nanos(span, START, position)
        end = _nanos(span, END, position)
        if end < start:
            raise _Malformed(f"otlp: {_where(span, position)}: field {END}: before {START}")
        rows.append((start, end, position, span, _attributes(span, position)))
    rows.sort(key=lambda row: (row[0], row[1], row[2]))

    cols = TraceColumns(fixture, None, [], [], [], [], [], [], [], [], [], [], [])
    for sequence, (start, end, position, span, attrs) in enumerate(rows):
        parent = span.get(PARENT_SPAN_ID) or None
        code, message = _status_code(span, position)
        status_override = attrs.get(STEP_STATUS_ATTR)
        status: StepStatus = "error" if code == STATUS_CODE_ERROR else "ok"
        if isinstance(status_override, str):
            if status_override not in _STEP_STATUSES:
                raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}.{STEP_STATUS_ATTR}: "
                                 f"{status_override!r} is not one of {', '.join(sorted(_STEP_STATUSES))}")
            status = status_override  # type: ignore[assignment]  # checked just above
        attempt = _number(attrs, STEP_ATTEMPT_ATTR, span, position)
        if attempt is None and (resend := _number(attrs, RESEND_COUNT, span, position)) is not None:
            attempt = resend + 1
        if attempt is not None and not isinstance(attempt, int):
            raise _Malformed(f"otlp: {_where(span, position)}: field {ATTRIBUTES}: attempt {attempt!r} is not an integer")
        if fmt == "openinference":
            tokens_in = _number(attrs, OI_INPUT_TOKENS, span, position)
            tokens_out = _number(attrs, OI_OUTPUT_TOKENS, span, position)
        else:
            tokens_in = _number(attrs, GEN_AI_INPUT_TOKENS, span, position)
            tokens_out = _number(attrs, GEN_AI_OUTPUT_TOKENS, span, position)
        metadata: Metadata = {}
        for key, name in _KEPT_AS_METADATA.items():
            value = attrs.get(key)
            if isinstance(value, (str, bool, int, float)):
                metadata[name] = value
        if message is not None:
            metadata["statusMessage"] = message
        cols.ids.append(str(span[SPAN_ID]))
        cols.parent_ids.append(parent if isinstance(parent, str) else None)
        cols.sequences.append(sequence)
        cols.names.append(str(span[NAME]))
        cols.kinds.append(_step_kind(attrs, fmt, parent is None))
        cols.statuses.append(status)
        cols.attempts.append(attempt)
        cols.input_tokens.append(tokens_in)
        cols.output_tokens.append(tokens_out)
        cols.durations.append((end - start) / 1_000_000)
        cols.metadata.append(metadata or None)
    roots = [i for i, p in enumerate(cols.parent_ids) if p is None]
    cols.status = cols.statuses[roots[0]] if len(roots) == 1 else None  # integrity reports 0 or 2+ roots
    return cols


def import_normalized(data: bytes | str, *, fixture: str, fmt: OtlpFormat | None = None,
                      fake_clock: bool = False) -> tuple[TraceColumns | None, str | None]:
    """`tftui trace import`: imported, integrity-checked and normalized columns, or the error."""
    imported = import_otlp(data, fixture=fixture, fmt=fmt)
    if imported.columns is None:
        return None, imported.error
    problems = check_columns(imported.columns)
    if problems:
        return None, integrity_error(problems)
    return normalize_columns(imported.columns, fake_clock=fake_clock), None


def otlp_fixture_name(path: Path) -> str:
    """An export's fixture name: its file name without `.otlp.json` / `.jsonl` / `.json`."""
    name = path.name
    for suffix in (".otlp.json", ".otlp.jsonl", ".jsonl", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.stem or "trace"


def load_trace_bytes(data: bytes, *, fixture: str) -> ColumnsLoad:
    """What `tftui gate` reads: a tftui trace file, or an OTLP/JSON export (detected by content;
    `fixture` names it). The columns are as loaded: integrity and normalization come next."""
    if not looks_like_otlp(data):
        from tftui.trace.model import load_columns  # the validation models, only for a tftui trace file

        return load_columns(data)
    imported = import_otlp(data, fixture=fixture)
    return ColumnsLoad(imported.columns, imported.error)
