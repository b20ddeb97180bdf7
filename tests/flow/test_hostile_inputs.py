"""Valid-but-extreme inputs load or fail cleanly with a diagnostic naming the limit (issue 17,
faults 6 and 7; docs/inputs.md §2): deep nesting, huge numbers, FIFOs, devices, big files."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tftui.flow.graph import fingerprint
from tftui.flow.load import MAX_NESTING, load_flow, load_flow_text, nesting_depth


def _agent(pid: str = "a", **extra: object) -> dict:
    return {"id": pid, "type": "agent", "agent": "x", "task": "hi", **extra}


def _nested_defs(levels: int) -> dict:
    phase = _agent("z")
    for i in range(levels):
        phase = {"id": f"f{i}", "type": "flow", "def": {"name": "n", "phases": [phase]}}
    return {"name": "nest", "phases": [phase]}


def test_a_300_deep_expect_schema_is_a_diagnostic_naming_the_limit() -> None:
    schema: dict = {"type": "string"}
    for _ in range(300):
        schema = {"type": "object", "properties": {"a": schema}}
    text = json.dumps({"name": "deep", "phases": [_agent(output="json", expect=schema)]})
    result = load_flow_text(text)
    assert result.flow is None
    assert [d.message for d in result.errors] == [f"Invalid JSON: nested deeper than {MAX_NESTING} levels (the limit for a flow file)"]


def test_json_deeper_than_the_parser_can_go_is_the_same_diagnostic() -> None:
    text = '{"name": "x", "phases": ' + "[" * 100_000 + "]" * 100_000 + "}"
    result = load_flow_text(text)
    assert result.flow is None and "nested deeper than" in result.errors[0].message


def test_nested_defs_within_the_limit_load_and_fingerprint() -> None:
    result = load_flow_text(json.dumps(_nested_defs(30)))  # 90 levels of JSON
    assert result.flow is not None, result.diagnostics
    assert len(fingerprint(result.flow.phases[0])) == 32
    deeper = load_flow_text(json.dumps(_nested_defs(40)))
    assert deeper.flow is None and "nested deeper than" in deeper.errors[0].message


def test_nesting_depth_counts_without_recursing() -> None:
    value: list = []
    for _ in range(5000):
        value = [value]
    assert nesting_depth(value, limit=10) == 11  # stops counting past the limit
    assert nesting_depth({"a": [1, {"b": 2}]}) == 3 and nesting_depth(7) == 0


def _depth(value: object) -> int:
    """The definition, recursively (for the small values below)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4),
    max_leaves=40,
)


@given(_JSON, st.integers(min_value=0, max_value=8))
def test_nesting_depth_is_the_deepest_path_up_to_the_limit(value: object, limit: int) -> None:
    assert nesting_depth(value, limit=limit) == min(_depth(value), limit + 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("literal", ["1e999", "-1e999"])
def test_infinite_numbers_are_diagnostics_not_crashes(literal: str) -> None:
    text = '{"name": "x", "phases": [{"id": "a", "type": "agent", "agent": "x", "task": "hi", "context": ["f"], ' \
           f'"contextLimit": {literal}}}]}}'
    result = load_flow_text(text)
    assert result.flow is None
    assert any("contextLimit" in d.message for d in result.errors)


def test_huge_finite_numbers_run(tmp_path: Path) -> None:
    import asyncio

    from tftui.agents.scripted import ScriptedRunner
    from tftui.engine import run_flow

    (tmp_path / "f").write_text("hello")
    huge = "123456789012345678901234567890"
    path = tmp_path / "huge.json"
    path.write_text('{"name": "x", "phases": [{"id": "a", "type": "agent", "agent": "x", "task": "hi", '
                    f'"context": ["f"], "contextLimit": {huge}, "timeout": {huge}}}]}}')
    result = load_flow(path)
    assert result.flow is not None, result.diagnostics
    done = asyncio.run(run_flow(result.flow, runner=ScriptedRunner({"a": ["ok"]}), flow_path=str(path)))
    assert done.status == "completed" and done.final_output == "ok"


def test_a_lone_surrogate_is_kept_and_fingerprinted() -> None:
    result = load_flow_text('{"name": "s\\ud800", "phases": [{"id": "a", "type": "agent", "agent": "x", "task": "hi \\udc00"}]}')
    assert result.flow is not None, result.diagnostics
    assert result.flow.name == "s\ud800"
    assert fingerprint(result.flow.phases[0]) != fingerprint(load_flow_text(json.dumps({"name": "s", "phases": [_agent()]})).flow.phases[0])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "flow.json"
    os.mkfifo(fifo)
    result = load_flow(fifo)  # a blocking open would hang the test here
    assert result.flow is None and result.unreadable
    assert result.errors[0].message == "cannot read file: not a regular file (a FIFO, socket or device)"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it() -> None:
    result = load_flow("/dev/zero")
    assert result.flow is None and "not a regular file" in result.errors[0].message


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tftui.flow.load as load

    monkeypatch.setattr(load, "MAX_FLOW_BYTES", 1024)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"name": "big", "description": "x" * 2000, "phases": [_agent()]}))
    result = load.load_flow(big)
    assert result.flow is None and "larger than" in result.errors[0].message


def test_check_and_run_refuse_a_fifo_with_exit_2(tmp_path: Path) -> None:
    import subprocess

    if not hasattr(os, "mkfifo"):
        pytest.skip("FIFOs are POSIX")
    fifo = tmp_path / "flow.json"
    os.mkfifo(fifo)
    for command in ("check", "run"):
        done = subprocess.run([sys.executable, "-m", "tftui", command, str(fifo)], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, env={**os.environ, "TFTUI_RUNS_DIR": str(tmp_path / "runs")})
        assert done.returncode == 2, done.stderr
        assert "not a regular file" in done.stdout + done.stderr
