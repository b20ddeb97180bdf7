"""Fixtures for the headless CLI tests.

`tftui(*argv)` runs the CLI in-process (`tftui.cli.main`, output captured) because a
fresh interpreter per call costs over a second of imports; `tftui(*argv, subprocess=True)`
runs `python -m tftui` for what needs a real process (the entry point, signals, kills).
Both are isolated: no user/project config, no inherited TFTUI_* settings, runs journaled
under the test's tmp_path.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from subprocess import run as subprocess_run
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
def tftui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Done]:
    env = isolated_env(tmp_path)

    def run(*argv: str, timeout: float = 60, subprocess: bool = False, journal_env: bool = True) -> Done:
        """`journal_env=False` leaves TFTUI_RUNS_DIR unset (runs go beside the flow)."""
        if not subprocess:
            return in_process(argv, journal_env)
        return in_subprocess(argv, timeout)

    def in_process(argv: tuple[str, ...], journal_env: bool) -> Done:
        from tftui.cli import main

        with monkeypatch.context() as m:
            for key in [k for k in os.environ if k.startswith("TFTUI_")]:
                m.delenv(key)
            for key in ("TFTUI_RUNS_DIR", "XDG_CONFIG_HOME", "HOME"):
                if key != "TFTUI_RUNS_DIR" or journal_env:
                    m.setenv(key, env[key])
            m.delenv("NO_COLOR", raising=False)
            m.chdir(tmp_path)
            capsys.readouterr()
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse usage errors
                code = exc.code if isinstance(exc.code, int) else 2
            out, err = capsys.readouterr()
        return Done(code, out, err)

    def in_subprocess(argv: tuple[str, ...], timeout: float) -> Done:
        proc = subprocess_run(
            [sys.executable, "-m", "tftui", *argv],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Done(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    return tmp_path / "runs"
