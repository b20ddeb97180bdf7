"""Ctrl+C / SIGTERM of `tftui run` during a script phase (docs/trust.md §5, issue 17 fault 5).

The script leaves two descendants that try to outlive it (one `setsid`, one double-forked),
both holding its stdout. After the signal tftui exits 130 with its resume hint and no
traceback, and `ps` finds none of the descendants.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

GUARD_S = 60  # a safety net against a hung test, not a timing assertion


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """No user/project config or TFTUI_* settings; runs journaled under tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env.update(TFTUI_RUNS_DIR=str(tmp_path / "runs"), XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"))
    return env


def survivors(token: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if token in line and not line.split()[1].startswith("Z")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_descendant_and_no_traceback(tmp_path: Path, sig: signal.Signals) -> None:
    token = f"tftui-test-{secrets.token_hex(6)}"
    holder = f"sh -c 'sleep 300; : {token}'"
    flow = tmp_path / "hold.json"
    flow.write_text(json.dumps({"name": "hold", "phases": [
        {"id": "s", "type": "script", "run": f"setsid {holder} & ( {holder} & ) ; sleep 300", "timeout": 120000},
    ]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tftui", "run", str(flow)],
        cwd=tmp_path, env=isolated_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + GUARD_S
        while len(survivors(token)) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        assert len(survivors(token)) >= 2  # both descendants run
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted — resume with: tftui run" in err
    for _ in range(50):  # killed orphans are reaped by init a moment later
        if not survivors(token):
            break
        time.sleep(0.1)
    assert survivors(token) == []


def test_sigterm_ends_a_run_stuck_in_a_regex_match(tmp_path: Path) -> None:
    """The match has a 10-minute budget here: tftui must stop at the signal, not at the budget."""
    flow = tmp_path / "redos.json"
    flow.write_text(json.dumps({"name": "redos", "phases": [
        {"id": "gen", "type": "script", "run": ["echo", "a" * 48 + "!"]},
        {"id": "g", "type": "gate", "dependsOn": ["gen"],
         "score": {"target": "{steps.gen.output}", "scorers": [{"type": "regex", "pattern": "^(a|a)*$"}]}},
    ]}))
    env = isolated_env(tmp_path) | {"TFTUI_LIMITS__REGEX_BUDGET_MS": "600000"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tftui", "run", str(flow)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline:  # until the gate has started (its match is then running)
            assert proc.poll() is None, proc.communicate()
            journals = list((tmp_path / "runs").glob("*/events.jsonl"))
            if journals and '"phase_started"' in (text := journals[0].read_text()) and '"phase_id":"g"' in text:
                break
            time.sleep(0.05)
        time.sleep(0.3)  # into the match
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=GUARD_S)  # far below the 600 s budget
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted — resume with: tftui run" in err
