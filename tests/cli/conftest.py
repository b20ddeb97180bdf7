"""Fixtures for the headless CLI tests: run `python -m tftui` in a subprocess, isolated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_flows"
FLOWS = Path(__file__).resolve().parent / "flows"


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """No user/project config, no inherited TFTUI_* settings, runs journaled under tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env["TFTUI_RUNS_DIR"] = str(tmp_path / "runs")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["HOME"] = str(tmp_path / "home")
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("NO_COLOR", None)
    return env


@pytest.fixture
def tftui(tmp_path: Path) -> Callable[..., Done]:
    env = isolated_env(tmp_path)

    def run(*argv: str, timeout: float = 60, extra_env: dict[str, str] | None = None) -> Done:
        proc = subprocess.run(
            [sys.executable, "-m", "tftui", *argv],
            cwd=tmp_path,
            env={**env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Done(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    return tmp_path / "runs"
