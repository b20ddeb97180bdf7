"""`tftui run --quiet` of a valid flow does not lint it (issue 18: what a user waits for): the
linter only warns, and --quiet shows no warning; without --quiet, or for a flow it refuses, the
warnings are listed as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tftui.flow.lint as lint_module


@pytest.fixture
def linted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = lint_module.lint_flow

    def counting(flow, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(flow.name)
        return original(flow, **kwargs)

    monkeypatch.setattr(lint_module, "lint_flow", counting)
    return calls


def _flow(tmp_path: Path, *, valid: bool = True) -> Path:
    flow = {"name": "typo", "phases": [{"id": "a", "task": "a"}, {"id": "b", "task": "b {steps.aa.output}"}]}
    if not valid:
        flow["phases"].append({"id": "c", "task": "c", "dependsOn": ["nope"]})
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(flow))
    (tmp_path / "typo.replies.json").write_text(json.dumps({"a": "A", "b": "B", "c": "C"}))
    return path


def test_quiet_skips_the_linter_of_a_valid_flow(tftui, tmp_path: Path, linted: list[str]) -> None:
    flow = _flow(tmp_path)
    quiet = tftui("run", str(flow), "--quiet")
    assert quiet.code == 0 and quiet.stderr == "" and quiet.stdout == "B\n"
    assert linted == []
    loud = tftui("run", str(flow))
    assert loud.code == 0 and "no phase 'aa'" in loud.stderr
    assert linted == ["typo"]


def test_a_refused_flow_lists_its_warnings_even_with_quiet(tftui, tmp_path: Path, linted: list[str]) -> None:
    done = tftui("run", str(_flow(tmp_path, valid=False)), "--quiet", "--json")
    assert done.code == 2
    messages = [d["message"] for d in done.json()["diagnostics"]]
    assert any("no phase 'aa'" in m for m in messages) and any("unknown phase 'nope'" in m for m in messages)
