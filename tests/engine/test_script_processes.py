"""Script phases end at their timeout or on cancel with no descendant left (docs/trust.md §5, issue 17 fault 5).

Each script spawns descendants that try to outlive it — one that leaves the process group
(`setsid`), one that is double-forked — and that hold the script's stdout open. `ps` is asked
afterwards: none of them may still run. The descendants carry a token in their command line.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

GUARD_S = 30  # a guard against hangs, not a timing assertion (the old code hung here for 300 s)


def survivors(token: str) -> list[str]:
    """`ps` lines of live (non-zombie) processes whose command line holds `token`."""
    listing = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if token in line and not line.split()[1].startswith("Z")]


async def wait_gone(token: str) -> list[str]:
    """Killed processes may take a moment to vanish from `ps` (init reaps orphans)."""
    for _ in range(50):
        left = survivors(token)
        if not left:
            return left
        await asyncio.sleep(0.1)
    return survivors(token)


def script_flow(run: str, timeout_ms: int = 1000) -> Flow:
    return Flow.model_validate(
        {"name": "procs", "phases": [{"id": "s", "type": "script", "run": run, "timeout": timeout_ms}]}
    )


def escapees(token: str) -> dict[str, str]:
    """Shell snippets that start a long-lived descendant holding stdout, marked with `token`."""
    holder = f"sh -c 'sleep 300; : {token}'"
    return {
        "setsid": f"setsid {holder} & sleep 300",
        "double-fork": f"( {holder} & ) ; sleep 300",
        "setsid-after-exit": f"setsid {holder} & echo started",  # the script itself exits at once
    }


@pytest.mark.parametrize("kind", ["setsid", "double-fork", "setsid-after-exit"])
async def test_a_script_ends_at_its_timeout_with_no_descendant_left(kind: str) -> None:
    token = f"tftui-test-{secrets.token_hex(6)}"
    f = script_flow(escapees(token)[kind])
    result = await asyncio.wait_for(run_flow(f, runner=ScriptedRunner({}), clock=InstantClock()), GUARD_S)
    assert result.phases["s"].error == "Script timed out after 1000ms"
    assert await wait_gone(token) == []


async def test_a_cancelled_run_takes_the_script_tree_down(tmp_path: Path) -> None:
    token = f"tftui-test-{secrets.token_hex(6)}"
    started = tmp_path / "started"
    run = f"setsid sh -c 'sleep 300; : {token}' & ( sh -c 'sleep 300; : {token}' & ) ; touch {started}; sleep 300"
    task = asyncio.ensure_future(run_flow(script_flow(run, 60000), runner=ScriptedRunner({}), clock=InstantClock()))
    for _ in range(GUARD_S * 10):
        if started.exists() and len(survivors(token)) >= 2:
            break
        await asyncio.sleep(0.1)
    assert len(survivors(token)) >= 2  # both escapees run
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD_S)
    assert await wait_gone(token) == []


async def test_a_background_child_that_closes_its_output_keeps_the_script_semantics() -> None:
    f = script_flow("echo first; (sleep 0.2; echo second) &", 20000)
    result = await asyncio.wait_for(run_flow(f, runner=ScriptedRunner({}), clock=InstantClock()), GUARD_S)
    assert result.phases["s"].output == "first\nsecond"  # stdout is read to its end, as before
