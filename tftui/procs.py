"""Child processes that tftui starts and always ends: script phases, compilers, agent CLIs (docs/trust.md §5).

Every process runs in its own session (so its own process group) and carries a tag in its
environment (`TFTUI_PROC_TAG`) that its descendants inherit. Stopping one (a timeout, a
cancelled run, quitting, Ctrl+C/SIGTERM of tftui) signals the group *and* every process that
carries the tag — which also reaches a descendant that left the group (`setsid`, a double
fork) — with SIGTERM, then SIGKILL after a grace period, and never waits on a pipe without a
bound: a descendant holding stdout open cannot keep a phase past its timeout. The processes
still running when the interpreter exits are SIGKILLed the same way (`atexit`).

The tag is found through `/proc/<pid>/environ` (Linux); elsewhere only the group is signalled.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import secrets
import signal
import subprocess
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TAG_ENV = "TFTUI_PROC_TAG"
CANCEL_GRACE_S = 1.0  # a cancelled run or an interrupted tftui: SIGTERM, then SIGKILL this much later
_PIPE_DRAIN_S = 1.0  # after the process is gone: how long its pipes may stay open before they are closed

_live: dict[int, str] = {}  # pid (= its group id) -> tag, of every process started and not yet ended


class Capped:
    """Bytes kept up to a cap; the rest is read and dropped so the child never blocks on a full pipe."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        if len(chunk) > room:
            self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


class ProcessProtocol(asyncio.SubprocessProtocol):
    """Collects stdout/stderr into caps; `exited` is the process's own end, `closed` adds every pipe's EOF."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stdout: Capped, stderr: Capped) -> None:
        self.sinks = {1: stdout, 2: stderr}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        sink = self.sinks.get(fd)
        if sink is not None:
            sink.add(data if isinstance(data, bytes) else data.encode())

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def feed_stdin(transport: asyncio.SubprocessTransport, data: bytes | None) -> None:
    """Queue `data` on stdin and close it; the loop writes it as the child reads."""
    pipe = transport.get_pipe_transport(0)
    if pipe is None:
        return
    try:
        if data:
            pipe.write(data)  # type: ignore[attr-defined]
        pipe.close()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the child does not read stdin (or already exited)


async def wait_bounded(future: asyncio.Future[None], limit_s: float) -> bool:
    """Wait for `future` at most `limit_s` seconds (it is never cancelled); True if it is done."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit_s):
            await asyncio.shield(future)
    return future.done()


def tagged_env(base: Mapping[str, str] | None = None) -> tuple[dict[str, str], str]:
    """The environment for a new child (`base`, default this process's) plus a fresh tag."""
    tag = secrets.token_hex(8)
    env = dict(os.environ if base is None else base)
    env[TAG_ENV] = tag
    return env, tag


def _tagged_pids(tag: str) -> list[int]:
    """Processes whose environment carries `TFTUI_PROC_TAG=<tag>` (empty where /proc is missing)."""
    needle = f"{TAG_ENV}={tag}".encode()
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    me = os.getpid()
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue  # gone, or another user's
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


def signal_tree(pgid: int, tag: str | None, sig: int) -> None:
    """Send `sig` to the process group `pgid` and to every process carrying `tag`."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pgid, sig)
    for pid in _tagged_pids(tag) if tag else ():
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, sig)


def cancel_grace(grace_s: float) -> float:
    """The grace after a cancel or an interrupt: the caller's own, at most CANCEL_GRACE_S (docs/trust.md §5)."""
    return min(grace_s, CANCEL_GRACE_S)


async def stop_tree(pid: int, tag: str | None, proto: ProcessProtocol, grace_s: float) -> None:
    """SIGTERM the tree, SIGKILL it after `grace_s` (also when the leader is gone but others linger),
    then wait a bounded time for the pipes."""
    signal_tree(pid, tag, signal.SIGTERM)
    await wait_bounded(proto.exited, grace_s)
    await reap_strays(pid, tag, proto)


async def stop_cancelled(pid: int, tag: str | None, proto: ProcessProtocol, grace_s: float) -> None:
    """`stop_tree` for a cancelled call (the run was cancelled, tftui interrupted): shielded, so the
    tree is stopped even as the cancellation goes on, with `cancel_grace(grace_s)`."""
    await asyncio.shield(stop_tree(pid, tag, proto, cancel_grace(grace_s)))


async def reap_strays(pid: int, tag: str | None, proto: ProcessProtocol) -> None:
    """The process is done (or out of grace): SIGKILL what is left of its tree, then wait at most
    _PIPE_DRAIN_S for its pipes to close."""
    signal_tree(pid, tag, signal.SIGKILL)
    await wait_bounded(proto.closed, _PIPE_DRAIN_S)


async def spawn(
    start: Coroutine[Any, Any, tuple[asyncio.SubprocessTransport, ProcessProtocol]], tag: str, grace_s: float
) -> tuple[asyncio.SubprocessTransport, ProcessProtocol]:
    """Start a child (`loop.subprocess_exec/_shell` with a ProcessProtocol). A cancel that lands while
    it starts does not leave it running: the start is finished, its tree stopped as any cancelled
    call's (`stop_cancelled`), then the cancel goes on. (Unshielded, asyncio would only kill the
    leader and then wait for its pipes, which a descendant may hold open for as long as it runs.)"""
    started = asyncio.ensure_future(start)
    try:
        return await asyncio.shield(started)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):  # it could not start: nothing to stop
            transport, proto = await started
            pid = transport.get_pid()
            register(pid, tag)
            try:
                await stop_cancelled(pid, tag, proto, grace_s)
            finally:
                unregister(pid)
                transport.close()
        raise


def register(pid: int, tag: str) -> None:
    _live[pid] = tag


def unregister(pid: int) -> None:
    _live.pop(pid, None)


@atexit.register
def _kill_leftovers() -> None:
    """The interpreter is exiting with children still running (an interrupt tore the loop down)."""
    for pid, tag in list(_live.items()):
        signal_tree(pid, tag, signal.SIGKILL)
    _live.clear()


@dataclass(slots=True)
class ProcessResult:
    code: int | None  # None when it had to be killed at the timeout
    stdout: bytes
    stdout_truncated: bool
    stderr: bytes
    timed_out: bool


async def run_process(
    argv: Sequence[str] | str,
    *,
    stdin: bytes | None,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout_s: float,
    grace_s: float,
    stdout_cap: int,
    stderr_cap: int,
    until_pipes_close: bool,
) -> ProcessResult:
    """Run `argv` (a string: through `/bin/sh -c`) in its own session; never outlives `timeout_s` + grace.

    `until_pipes_close`: the run ends when the process exited *and* its pipes reached EOF (a
    script's background child may still write); otherwise at the process's exit, after which
    whatever it left running is killed. Raises OSError when the program cannot start;
    cancellation stops the tree (CANCEL_GRACE_S) and propagates.
    """
    loop = asyncio.get_running_loop()
    full_env, tag = tagged_env(env)
    out, err = Capped(stdout_cap), Capped(stderr_cap)
    pipe = subprocess.PIPE
    transport: asyncio.SubprocessTransport
    if isinstance(argv, str):
        start = loop.subprocess_shell(
            lambda: ProcessProtocol(loop, out, err), argv,
            stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd, env=full_env, start_new_session=True,
        )
    else:
        start = loop.subprocess_exec(
            lambda: ProcessProtocol(loop, out, err), *argv,
            stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd, env=full_env, start_new_session=True,
        )
    transport, proto = await spawn(start, tag, grace_s)
    pid = transport.get_pid()
    register(pid, tag)
    try:
        feed_stdin(transport, stdin)
        done = proto.closed if until_pipes_close else proto.exited
        try:
            finished = await wait_bounded(done, timeout_s)
        except asyncio.CancelledError:
            await stop_cancelled(pid, tag, proto, grace_s)
            raise
        if not finished:
            await stop_tree(pid, tag, proto, grace_s)
            return ProcessResult(None, bytes(out.data), out.truncated, bytes(err.data), True)
        if not until_pipes_close:
            await reap_strays(pid, tag, proto)  # strays of a process that exited
        return ProcessResult(transport.get_returncode(), bytes(out.data), out.truncated, bytes(err.data), False)
    finally:
        unregister(pid)
        transport.close()
