"""OpenTelemetry exports as traces: `tftui trace import` and `tftui gate` on OTLP/JSON files.

The fixtures in fixtures/otlp/ were written by the OpenTelemetry Python SDK (make_fixtures.py there);
the field and attribute names tftui reads are checked against the official packages' definitions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.cli import main
from tftui.trace import otlp
from tftui.trace.integrity import check_columns
from tftui.trace.model import load_columns

OTLP = Path(__file__).parent / "fixtures" / "otlp"
RULES = str(OTLP / "rules.toml")


def _read(name: str) -> bytes:
    return (OTLP / name).read_bytes()


def test_field_names_are_the_official_otlp_json_names() -> None:
    trace_pb2 = pytest.importorskip("opentelemetry.proto.trace.v1.trace_pb2")
    common_pb2 = pytest.importorskip("opentelemetry.proto.common.v1.common_pb2")
    request_pb2 = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

    def json_names(message: object) -> set[str]:
        return {f.json_name for f in message.DESCRIPTOR.fields}  # type: ignore[attr-defined]

    assert otlp.RESOURCE_SPANS in json_names(request_pb2.ExportTraceServiceRequest)
    assert otlp.SCOPE_SPANS in json_names(trace_pb2.ResourceSpans)
    assert otlp.SPANS in json_names(trace_pb2.ScopeSpans)
    span_fields = {otlp.SPAN_ID, otlp.PARENT_SPAN_ID, otlp.NAME, otlp.KIND, otlp.START, otlp.END,
                   otlp.ATTRIBUTES, otlp.STATUS}
    assert span_fields <= json_names(trace_pb2.Span)
    assert {otlp.STATUS_CODE, otlp.STATUS_MESSAGE} <= json_names(trace_pb2.Status)
    assert {otlp.KEY, otlp.VALUE} <= json_names(common_pb2.KeyValue)
    assert set(otlp.VALUE_FIELDS) == json_names(common_pb2.AnyValue)
    codes = trace_pb2.Status.StatusCode
    assert otlp.STATUS_CODE_ERROR == codes.Value("STATUS_CODE_ERROR")
    assert otlp.STATUS_CODE_NAMES == {name: codes.Value(name) for name in codes.keys()}


def test_attribute_names_are_the_semantic_conventions() -> None:
    gen_ai = pytest.importorskip("opentelemetry.semconv._incubating.attributes.gen_ai_attributes")
    http = pytest.importorskip("opentelemetry.semconv._incubating.attributes.http_attributes")
    oi = pytest.importorskip("openinference.semconv.trace")
    assert otlp.GEN_AI_OPERATION == gen_ai.GEN_AI_OPERATION_NAME
    assert otlp.GEN_AI_INPUT_TOKENS == gen_ai.GEN_AI_USAGE_INPUT_TOKENS
    assert otlp.GEN_AI_OUTPUT_TOKENS == gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
    assert otlp.RESEND_COUNT == http.HTTP_REQUEST_RESEND_COUNT
    # every operation and span kind the conventions define has a step kind
    assert {v.value for v in gen_ai.GenAiOperationNameValues} == set(otlp.GEN_AI_KINDS)
    assert {v.value for v in oi.OpenInferenceSpanKindValues} == set(otlp.OI_KINDS)
    assert otlp.OI_SPAN_KIND == oi.SpanAttributes.OPENINFERENCE_SPAN_KIND
    assert otlp.OI_INPUT_TOKENS == oi.SpanAttributes.LLM_TOKEN_COUNT_PROMPT
    assert otlp.OI_OUTPUT_TOKENS == oi.SpanAttributes.LLM_TOKEN_COUNT_COMPLETION


def test_fixtures_are_what_the_sdk_script_writes() -> None:
    pytest.importorskip("opentelemetry.sdk")
    pytest.importorskip("opentelemetry.exporter.otlp.json.common")
    pytest.importorskip("openinference.semconv")
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", OTLP / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.fixtures().items():
        assert (OTLP / name).read_text(encoding="utf-8") == text, f"{name}: re-run make_fixtures.py"


@pytest.mark.parametrize("name", ["genai_agent.otlp.json", "openinference_agent.otlp.json"])
def test_agent_export_imports_to_a_sound_trace(name: str) -> None:
    imported = otlp.import_otlp(_read(name), fixture="agent")
    assert imported.error is None and imported.columns is not None
    cols = imported.columns
    assert check_columns(cols) == []
    assert cols.status == "blocked"
    assert cols.kinds == ["run", "model", "tool", "tool", "model", "policy"]
    assert cols.statuses == ["blocked", "ok", "error", "ok", "ok", "blocked"]
    assert cols.attempts[3] == 2  # the retried tool call (http.request.resend_count = 1)
    assert cols.input_tokens[1] == 320 and cols.output_tokens[4] == 90
    root = cols.ids[0]
    assert all(p == root for p in cols.parent_ids[1:])
    assert cols.durations[1] is not None and cols.durations[1] > 0  # kept until normalization


def test_payload_attributes_are_dropped() -> None:
    text = _read("openinference_agent.otlp.json")
    assert b"input.value" in text  # the export carries prompts and answers...
    cols, error = otlp.import_normalized(text, fixture="oi")
    assert error is None and cols is not None
    kept = {k for m in cols.metadata if m for k in m} | {str(v) for m in cols.metadata if m for v in m.values()}
    assert not any("question" in v or "answer" in v for v in kept)  # ...the trace does not
    assert cols.durations == [None] * len(cols)  # wall-clock durations dropped by normalization


def test_trace_import_writes_a_normalized_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "agent.json"
    code = main(["trace", "import", str(OTLP / "genai_agent.otlp.json"), "--format", "otlp-json",
                 "--out", str(out)])
    assert code == 0
    loaded = load_columns(out.read_bytes())
    assert loaded.columns is not None
    assert loaded.columns.fixture == "genai_agent"
    assert loaded.columns.ids == [f"s{i}" for i in range(6)]
    assert loaded.columns.names[5] == "policy publish-check"


@pytest.mark.parametrize(
    ("fixture", "code", "failed"),
    [
        ("genai_agent.otlp.json", 0, []),
        ("openinference_agent.otlp.json", 0, []),
        ("genai_leak.otlp.json", 1, ["no_external_work_after_block@1"]),
    ],
)
def test_gate_judges_exports_directly(fixture: str, code: int, failed: list[str], tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert main(["gate", str(OTLP / fixture), "--rules", RULES, "--json", str(report)]) == code
    data = json.loads(report.read_text())
    assert [f["ruleId"] for f in data["failures"]] == failed
    assert data["error"] is None


def test_gate_leak_reports_the_budget_warning(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    main(["gate", str(OTLP / "genai_leak.otlp.json"), "--rules", RULES, "--json", str(report)])
    warnings = json.loads(report.read_text())["warnings"]
    assert [w["ruleId"] for w in warnings] == ["max_total_tokens@1"]
    assert warnings[0]["evidence"]["totalTokens"] == 320 + 40 + 510 + 90 + 200 + 30


@pytest.mark.parametrize(
    ("fixture", "needle"),
    [
        ("malformed_time.otlp.json", "span 0000000000001004: field startTimeUnixNano"),
        ("malformed_span_id.otlp.json", "span #3 ('execute_tool search'): field spanId"),
    ],
)
def test_malformed_export_exits_3_naming_span_and_field(
    fixture: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", "import", str(OTLP / fixture), "--out", str(tmp_path / "t.json")]) == 3
    assert needle in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()
    report = tmp_path / "r.json"
    assert main(["gate", str(OTLP / fixture), "--rules", RULES, "--json", str(report)]) == 3
    assert needle in capsys.readouterr().out
    data = json.loads(report.read_text())
    assert needle in data["error"] and data["fixture"] == fixture.removesuffix(".otlp.json")


def _edit_span(index: int, **changes: object) -> bytes:
    data = json.loads(_read("genai_agent.otlp.json"))
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][index]
    span.update(changes)
    return json.dumps(data).encode()


def test_bad_token_attribute_names_the_attribute() -> None:
    data = json.loads(_read("genai_agent.otlp.json"))
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    for attr in span["attributes"]:
        if attr["key"] == "gen_ai.usage.input_tokens":
            attr["value"] = {"intValue": "many"}
    error = otlp.import_otlp(json.dumps(data), fixture="x").error
    assert error is not None
    assert span["spanId"] in error and "attributes.gen_ai.usage.input_tokens" in error


def test_unknown_parent_fails_integrity_naming_the_span() -> None:
    sid = json.loads(_read("genai_agent.otlp.json"))["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["spanId"]
    cols, error = otlp.import_normalized(_edit_span(1, parentSpanId="00000000deadbeef"), fixture="x")
    assert cols is None
    assert error == f"trace integrity: unknown parent 00000000deadbeef for step {sid}"


def test_file_exporter_lines_and_string_enums() -> None:
    """Two requests, one per line (the collector file exporter); status codes written as enum names."""
    data = json.loads(_read("genai_agent.otlp.json"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in spans:
        if span["status"].get("code") == 2:
            span["status"]["code"] = "STATUS_CODE_ERROR"
    first = {"resourceSpans": [{"scopeSpans": [{"spans": spans[:3]}]}]}
    second = {"resourceSpans": [{"scopeSpans": [{"spans": spans[3:]}]}]}
    text = json.dumps(first) + "\n" + json.dumps(second) + "\n"
    imported = otlp.import_otlp(text, fixture="lines")
    assert imported.columns is not None, imported.error
    assert imported.columns.statuses == ["blocked", "ok", "error", "ok", "ok", "blocked"]


def test_not_an_export_is_not_detected() -> None:
    assert otlp.looks_like_otlp(_read("genai_agent.otlp.json"))
    assert not otlp.looks_like_otlp((OTLP.parent / "ok.json").read_bytes())
    assert otlp.detect_format(_read("openinference_agent.otlp.json")) == "openinference"
    assert otlp.detect_format(_read("genai_agent.otlp.json")) == "otlp-json"
