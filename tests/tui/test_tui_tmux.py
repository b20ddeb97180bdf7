"""Smoke test in a real terminal: `python -m tftui sample_flows/validate.json` in a detached
80x24 tmux session; press the run key and read the screen back with capture-pane."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOW = ROOT / "sample_flows" / "validate.json"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _tmux(session: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """A tmux command on the test's own tmux server (`-L`, named after the session): started from
    this process, its shells get this test's environment (the isolated XDG_CONFIG_HOME of
    tests/conftest.py, no TFTUI_* settings), not that of a tmux server someone else started."""
    return subprocess.run(["tmux", "-L", session, *args], capture_output=True, text=True, check=check)


def _kill(session: str) -> None:
    """End the test's tmux server and remove its socket file."""
    socket = _tmux(session, "display-message", "-p", "#{socket_path}", check=False).stdout.strip()
    _tmux(session, "kill-server", check=False)
    if socket:
        Path(socket).unlink(missing_ok=True)


def _capture(session: str) -> str:
    return _tmux(session, "capture-pane", "-p", "-t", session, check=False).stdout


def _wait_for(session: str, predicate, tries: int = 150) -> str:
    screen = ""
    for _ in range(tries):
        screen = _capture(session)
        if predicate(screen):
            return screen
        time.sleep(0.1)  # polling a real terminal; the test asserts on content, never on time
    return screen


@pytest.mark.skipif(not FLOW.exists(), reason="sample_flows/validate.json is not in this checkout")
def test_tmux_run_validate_flow(tmp_path):
    import json

    phase_ids = [p["id"] for p in json.loads(FLOW.read_text())["phases"]]
    session = f"tftui-smoke-{uuid.uuid4().hex[:8]}"
    # the run's journal goes under tmp_path, not beside the checkout's sample flow
    command = (f"cd {ROOT} && TFTUI_RUNS_DIR={tmp_path / 'runs'} {sys.executable} -m tftui "
               f"{FLOW.relative_to(ROOT)} --no-watch --no-animations")
    _tmux(session, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    try:
        screen = _wait_for(session, lambda s: "READY" in s)
        assert "READY" in screen, screen
        assert all(pid in screen for pid in phase_ids), screen
        _tmux(session, "send-keys", "-t", session, "c")
        screen = _wait_for(session, lambda s: "COMPLETED" in s or "FAILED" in s or "BLOCKED ·" in s)
        assert "COMPLETED" in screen, screen
        assert f"{len(phase_ids)}/{len(phase_ids)}" in screen
        for pid in phase_ids:
            line = next(line for line in screen.splitlines() if f" {pid} " in line)
            assert "✓" in line, line
        _tmux(session, "send-keys", "-t", session, "q")
        _wait_for(session, lambda s: "COMPLETED" not in s, tries=50)
    finally:
        _kill(session)


def _start(session: str, runs: Path) -> None:
    flow = ROOT / "tests" / "tui" / "fixtures" / "review.json"
    # The shell prints the exit status after the app ends: on the normal screen only if the
    # app left the alternate screen (i.e. restored the terminal).
    command = (
        f"cd {ROOT} && TFTUI_RUNS_DIR={runs} {sys.executable} -m tftui {flow} --no-watch --no-animations; "
        "echo EXIT=$?; sleep 30"
    )
    _tmux(session, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)


def _app_pid(session: str) -> int:
    shell = _tmux(session, "display-message", "-p", "-t", session, "#{pane_pid}").stdout.strip()
    child = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True).stdout.split()
    return int(child[0])


@pytest.mark.skipif(shutil.which("pgrep") is None, reason="pgrep is not installed")
@pytest.mark.parametrize("how", ["q", "ctrl-c", "sigterm", "sigterm-while-paused"])
def test_terminal_restored_on_exit(how, tmp_path):
    import os
    import signal

    session = f"tftui-exit-{uuid.uuid4().hex[:8]}"
    _start(session, tmp_path / "runs")
    try:
        screen = _wait_for(session, lambda s: "READY" in s)
        assert "READY" in screen, screen
        if how == "q":
            _tmux(session, "send-keys", "-t", session, "q")
        elif how == "ctrl-c":
            _tmux(session, "send-keys", "-t", session, "C-c")
        else:
            if how == "sigterm-while-paused":
                _tmux(session, "send-keys", "-t", session, "n")
                assert "paused" in _wait_for(session, lambda s: "paused" in s)  # SIGTERM lands while paused
            os.kill(_app_pid(session), signal.SIGTERM)
        screen = _wait_for(session, lambda s: "EXIT=" in s)
        expected = "EXIT=143" if how.startswith("sigterm") else "EXIT=0"
        assert expected in screen, screen
        # the alternate screen is gone: none of the app's drawing is left on the terminal
        assert "tui-review" not in screen and "fetch" not in screen, screen
    finally:
        _kill(session)
