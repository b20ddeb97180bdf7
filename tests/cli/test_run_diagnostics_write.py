"""`tftui run` of a flow with many diagnostics writes them to stderr at once (commands/run_exec.py
`_err`, present/terminal.py `write_lines`): one write of every line, each as a print of it gives it
(the bytes are the same as line by line), not a write and a flush per diagnostic."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli.conftest import isolated_env

PHASES = 40


class Recorder(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_a_refused_flows_diagnostics_reach_stderr_in_one_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tftui.cli import main

    phases = [{"id": f"p{i}", "task": f"use {{steps.zz{i}.output}}"} for i in range(PHASES)]
    phases.append({"id": "bad", "task": "x", "dependsOn": ["nope"]})
    flow = tmp_path / "many.json"
    flow.write_text(json.dumps({"name": "many", "phases": phases}, indent=2))
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    err = Recorder()
    monkeypatch.setattr("sys.stderr", err)
    assert main(["run", str(flow)]) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == PHASES + 2  # a warning per phase, the unknown dependency, the refusal
    assert sum("no phase 'zz" in line for line in lines) == PHASES
    assert lines[-1] == f"tftui run: {flow} is not a valid flow (1 error); not run"
    assert err.writes == [err.getvalue()]
