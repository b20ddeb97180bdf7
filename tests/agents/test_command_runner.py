"""CommandRunner with small Python scripts standing in for agent CLIs."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time

import pytest

from tftui.agents.base import AgentRequest
from tftui.agents.command import CommandRunner
from tftui.agents.definitions import AgentLibrary
from tftui.engine.retry import is_transient


def script(tmp_path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def req(task: str = "hello agent", **kw) -> AgentRequest:
    return AgentRequest(node_path=kw.pop("node_path", "gen"), phase_id="gen", agent=kw.pop("agent", "executor"),
                        task=task, **kw)


def _live_members(pgid: int) -> list[int]:
    """Processes of group `pgid` that are not zombies (a container's init may never reap those)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


def group_alive(pgid: int) -> bool:
    # A SIGKILLed process takes a moment to die; wait for it (bounded) rather than race it.
    for _ in range(200):
        if not _live_members(pgid):
            return False
        time.sleep(0.01)
    return True


async def test_echoing_agent_gets_prompt_on_stdin_and_context_in_env(tmp_path):
    argv = script(tmp_path, "echo.py", """
        import os, sys
        prompt = sys.stdin.read()
        print("got:", prompt.upper())
        print("node:", os.environ["TFTUI_NODE_PATH"], "model:", os.environ["TFTUI_MODEL"])
        print("system starts:", os.environ["TFTUI_SYSTEM_PROMPT"][:14])
        print("some log", file=sys.stderr)
    """)
    result = await CommandRunner(argv, library=AgentLibrary(None, env={"XDG_CONFIG_HOME": str(tmp_path)})).run(
        req("hello agent", node_path="gen#item-3", model="m-1"))
    assert not result.failed, result.error
    assert result.output == "got: HELLO AGENT\nnode: gen#item-3 model: m-1\nsystem starts: You are a care"
    assert result.stderr == "some log\n"


async def test_prepend_system_puts_the_system_prompt_before_the_task(tmp_path):
    argv = script(tmp_path, "cat.py", "import sys; sys.stdout.write(sys.stdin.read())")
    result = await CommandRunner(argv, prepend_system=True).run(req("the task", system="SYSTEM"))
    assert result.output == "SYSTEM\n\n---\n\nthe task"


async def test_non_zero_exit_carries_stderr(tmp_path):
    argv = script(tmp_path, "fail.py", """
        import sys
        sys.stdin.read()
        print("partial answer")
        print("Error: 503 Service Unavailable from upstream", file=sys.stderr)
        sys.exit(3)
    """)
    result = await CommandRunner(argv).run(req())
    assert result.failed and result.exit_code == 3
    assert result.error == "Agent command exited with code 3: Error: 503 Service Unavailable from upstream"
    assert "503 Service Unavailable" in result.stderr
    assert result.output == "partial answer"
    assert is_transient(result.error, stderr=result.stderr, output=result.output)


@pytest.mark.parametrize("ignore_term", [False, True])
async def test_hanging_agent_is_killed_with_its_process_group(tmp_path, ignore_term):
    argv = script(tmp_path, "hang.py", f"""
        import signal, subprocess, sys, time
        if {ignore_term}:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print("started", flush=True)
        time.sleep(60)
    """)
    runner = CommandRunner(argv, kill_grace_s=0.3)
    result = await runner.run(req(timeout_ms=500))
    assert result.timed_out and result.failed
    assert result.error == "Phase timed out after 500ms (subagent aborted)"
    assert runner.last_pid is not None and not group_alive(runner.last_pid)  # the sleeping child too


async def test_runner_timeout_is_transient_and_not_a_phase_timeout(tmp_path):
    argv = script(tmp_path, "slow.py", "import time; time.sleep(60)")
    runner = CommandRunner(argv, timeout_s=0.3, kill_grace_s=0.2)
    result = await runner.run(req())
    assert not result.timed_out and "timed out" in result.error
    assert is_transient(result.error)
    assert not group_alive(runner.last_pid)


async def test_output_is_capped(tmp_path):
    argv = script(tmp_path, "big.py", "import sys; sys.stdout.write('x' * 200000)")
    result = await CommandRunner(argv, max_output_bytes=1000).run(req())
    assert result.output == "x" * 1000 + "\n[stdout truncated at 1000 bytes]"


async def test_large_prompt_and_agent_that_ignores_stdin(tmp_path):
    ignore = script(tmp_path, "ignore.py", "print('done')")
    echo = script(tmp_path, "len.py", "import sys; print(len(sys.stdin.read()))")
    big = "y" * 3_000_000
    assert (await CommandRunner(ignore).run(req(big))).output == "done"
    assert (await CommandRunner(echo).run(req(big))).output == str(len(big))


async def test_missing_program_fails_cleanly(tmp_path):
    result = await CommandRunner([str(tmp_path / "no-such-agent")]).run(req())
    assert result.failed and result.exit_code == 127
    assert result.error.startswith("Agent command failed to start:")


async def test_leftover_background_children_are_reaped(tmp_path):
    argv = script(tmp_path, "bg.py", """
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print("answer")
    """)
    runner = CommandRunner(argv)
    result = await runner.run(req())
    assert result.output == "answer"
    assert not group_alive(runner.last_pid)


async def test_cancelled_call_stops_the_process_group(tmp_path):
    marker = tmp_path / "started"
    argv = script(tmp_path, "wait.py", f"""
        import pathlib, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        pathlib.Path({str(marker)!r}).write_text("yes")
        time.sleep(60)
    """)
    runner = CommandRunner(argv, kill_grace_s=0.3)
    task = asyncio.create_task(runner.run(req()))
    for _ in range(500):  # wait (bounded) until the agent is really running
        if marker.exists():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not group_alive(runner.last_pid)


async def test_cancelling_an_agent_that_ignores_sigterm_ends_after_the_cancel_grace(tmp_path):
    """docs/trust.md §5: a cancel or an interrupt SIGKILLs what ignores SIGTERM after the cancel
    grace (1 s), not the 5 s a timeout gives an agent CLI (one rule, tftui.procs)."""
    from tftui.agents.command import KILL_GRACE_S
    from tftui.procs import CANCEL_GRACE_S

    ready = asyncio.Event()
    runner = CommandRunner(["/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 30"],
                           on_chunk=lambda _path, text: ready.set() if "ready" in text else None)
    task = asyncio.create_task(runner.run(req()))
    await asyncio.wait_for(ready.wait(), 10)  # SIGTERM is ignored from here on
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    took = time.monotonic() - started
    assert not group_alive(runner.last_pid)
    assert CANCEL_GRACE_S < KILL_GRACE_S
    assert took < CANCEL_GRACE_S + 2.0, took  # the timeout's grace (5 s) would be 5 s or more
