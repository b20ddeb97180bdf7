"""Conformance vectors: transient, retry_delay and flows (tests/conformance/*.json)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tftui.engine.retry import backoff_ms, is_transient
from tftui.lang.values import MISSING

_spec = importlib.util.spec_from_file_location("engine_helpers", Path(__file__).with_name("helpers.py"))
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)


@pytest.mark.parametrize("case", helpers.cases("transient"), ids=lambda c: c["id"])
def test_transient_vectors(case):
    i = case["input"]
    got = is_transient(
        i.get("message", ""),
        stderr=i.get("stderr", ""),
        output=i.get("output", ""),
        stop_reason=i.get("stopReason"),
        idle_timeout=bool(i.get("idleTimeout")),
        phase_timeout=bool(i.get("phaseTimeout")),
    )
    assert got is case["expect"]["transient"]


@pytest.mark.parametrize("case", helpers.cases("retry_delay"), ids=lambda c: c["id"])
def test_retry_delay_vectors(case):
    i = case["input"]
    assert backoff_ms(i.get("retry"), i["attempt"]) == case["expect"]["ms"]


def _expected(case):
    expect = dict(case["expect"])
    overrides = expect.pop("seed_overrides", None) or {}
    phases = {pid: dict(p) for pid, p in expect["phases"].items()}
    for key, value in overrides.items():
        if key == "phases":
            for pid, fields in value.items():
                phases.setdefault(pid, {}).update(fields)
        else:
            expect[key] = value
    expect["phases"] = phases
    return expect


@pytest.mark.parametrize("case", helpers.cases("flows"), ids=lambda c: c["id"])
async def test_flow_vectors(case):
    inp = case["input"]
    expect = _expected(case)
    result, runner, _ = await helpers.run_marker(inp["flow"], inp.get("script"), args=inp.get("args"))
    assert result.status == expect["run_status"]
    assert (result.status == "completed") is expect["ok"]
    assert result.final_output == expect["final_output"]
    assert runner.call_log == expect["call_log"]
    assert runner.call_counts == expect["call_counts"]
    for pid, want in expect["phases"].items():
        state = result.phases[pid]
        assert str(state.status) == want["status"], pid
        if "output" in want and want["status"] == "done":
            assert (state.output or "")[:2000] == want["output"], pid
        if "attempts" in want:
            assert state.attempts == want["attempts"], pid
        if "gate" in want:
            assert state.gate == want["gate"], pid
        if "json" in want:
            assert state.json is not MISSING and state.json == want["json"], pid
        if "error" in want and want["status"] == "failed":
            assert state.error == want["error"], pid
    # tasks_sent is the reference run; where a failed phase's text reached downstream prompts
    # (`reference_output`), SPEC D3 (the seed) replaces it with the failed-phase sentinel.
    d3 = any("reference_output" in p for p in case["expect"]["phases"].values())
    if "divergence" not in case and not d3:
        sent = case.get("tasks_sent") or {}
        for key, tasks in sent.items():
            assert runner.tasks_sent.get(key) == tasks, key
