"""`[limits] regex_budget_ms`: the person running the flow sets it; a project's tftui.toml may
tighten it but never loosen it (a flow's folder must not lift the ReDoS guard, docs/trust.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.config import apply_limits, load_config
from tftui.lang.jsregex import DEFAULT_BUDGET_S, default_budget, set_default_budget


@pytest.fixture(autouse=True)
def _restore_budget():
    yield
    set_default_budget(None)


def _flow_with_project_limit(tmp_path: Path, ms: int) -> Path:
    flow = tmp_path / "f.json"
    flow.write_text('{"name": "f", "phases": [{"id": "a", "task": "hi"}]}', encoding="utf-8")
    (tmp_path / "tftui.toml").write_text(f"[limits]\nregex_budget_ms = {ms}\n", encoding="utf-8")
    return flow


@pytest.mark.parametrize(("ms", "expected"), [(600_000, DEFAULT_BUDGET_S), (200, 0.2)])
def test_a_project_may_tighten_the_budget_but_not_loosen_it(tmp_path: Path, ms: int, expected: float):
    flow = _flow_with_project_limit(tmp_path, ms)
    apply_limits(load_config(flow, user_file=tmp_path / "no-user-config.toml", env={}))
    assert default_budget() == pytest.approx(expected)


def test_the_user_may_loosen_it(tmp_path: Path):
    flow = _flow_with_project_limit(tmp_path, 600_000)
    apply_limits(load_config(flow, user_file=tmp_path / "none.toml", env={"TFTUI_LIMITS__REGEX_BUDGET_MS": "5000"}))
    assert default_budget() == pytest.approx(5.0)
