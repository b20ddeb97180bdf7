"""Any CLI agent as an `AgentRunner`: the prompt on stdin, the answer on stdout.

`["claude", "-p"]`, `["llm", "-m", "gpt-4o-mini"]`, a shell script… The process runs in its own
process group (session) so a timeout or an abort can stop it together with everything it
spawned: SIGTERM to the group, SIGKILL after a grace period. The agent name, model, node path
and system prompt reach the process as `TFTUI_*` environment variables (and, with
`prepend_system`, the system prompt is also put in front of the task on stdin).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence

from tftui.agents.base import AgentRequest, AgentResult
from tftui.agents.definitions import AgentLibrary

PHASE_TIMEOUT = "Phase timed out after {ms}ms (subagent aborted)"  # SPEC §8.8
MAX_OUTPUT_BYTES = 1_000_000
MAX_STDERR_BYTES = 64_000
STDERR_IN_ERROR = 500  # bytes of stderr quoted in the error message (as scripts do, SPEC §8.8)
_READ_CHUNK = 65536


class CommandRunner:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        library: AgentLibrary | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        prepend_system: bool = False,
        kill_grace_s: float = 5.0,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_stderr_bytes: int = MAX_STDERR_BYTES,
    ) -> None:
        if not argv:
            raise ValueError("CommandRunner needs a non-empty argv")
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.library = library
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)
        self.prepend_system = prepend_system
        self.kill_grace_s = kill_grace_s
        self.max_output_bytes = max_output_bytes
        self.max_stderr_bytes = max_stderr_bytes
        self.last_pid: int | None = None  # for tests and diagnostics: the most recent process (= its group id)

    def __repr__(self) -> str:
        return f"CommandRunner(argv={self.argv!r})"

    async def aclose(self) -> None:
        """Nothing pooled: every call owns (and reaps) its process."""

    async def run(self, request: AgentRequest) -> AgentResult:
        system, model = self._system_and_model(request)
        stdin = request.task
        if self.prepend_system and system:
            stdin = f"{system}\n\n---\n\n{request.task}"
        env = {
            **self.env,
            "TFTUI_AGENT": request.agent or "",
            "TFTUI_NODE_PATH": request.node_path,
            "TFTUI_PHASE_ID": request.phase_id,
            "TFTUI_ATTEMPT": str(request.attempt),
            "TFTUI_OUTPUT": request.output,
            "TFTUI_MODEL": model or "",
            "TFTUI_SYSTEM_PROMPT": system or "",
        }
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,  # its own process group, so the whole tree can be signalled
            )
        except OSError as exc:
            return AgentResult(error=f"Agent command failed to start: {self.argv[0]}: {exc.strerror or exc}",
                               exit_code=127)
        self.last_pid = proc.pid
        stdout = _Capped(self.max_output_bytes)
        stderr = _Capped(self.max_stderr_bytes)
        io = asyncio.gather(
            _feed(proc, stdin.encode("utf-8")),
            _drain(proc.stdout, stdout),
            _drain(proc.stderr, stderr),
        )
        phase_timeout = request.timeout_ms / 1000 if request.timeout_ms else None
        limits = [t for t in (phase_timeout, self.timeout_s) if t]
        limit = min(limits) if limits else None
        try:
            async with asyncio.timeout(limit):
                await proc.wait()
        except TimeoutError:
            await self._stop(proc)
            await _settle(io)
            if phase_timeout is not None and limit == phase_timeout:
                return AgentResult(error=PHASE_TIMEOUT.format(ms=request.timeout_ms), exit_code=1,
                                   stderr=stderr.text(), timed_out=True)
            return AgentResult(error=f"Agent command timed out after {limit:g}s: {self.argv[0]}",
                               exit_code=1, stderr=stderr.text())
        except asyncio.CancelledError:  # the engine aborted the call: stop the tree, then let it go
            await asyncio.shield(self._stop(proc))
            io.cancel()
            raise
        # The agent exited; anything it left behind in its group goes too (and closes the pipes).
        _signal_group(proc.pid, signal.SIGKILL)
        await _settle(io)
        return self._result(proc.returncode, stdout, stderr)

    def _system_and_model(self, request: AgentRequest) -> tuple[str | None, str | None]:
        definition = self.library.resolve(request.agent) if self.library is not None else None
        system = request.system or (definition.system if definition else None) or None
        model = request.model or (definition.model if definition else None)
        return system, model

    def _result(self, code: int | None, stdout: _Capped, stderr: _Capped) -> AgentResult:
        output = stdout.text().rstrip()
        if stdout.truncated:
            output += "\n[stdout truncated at 1 MB]" if self.max_output_bytes == MAX_OUTPUT_BYTES \
                else f"\n[stdout truncated at {self.max_output_bytes} bytes]"
        err_text = stderr.text()
        if code == 0:
            return AgentResult(output=output, stderr=err_text)
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            message = f"Agent command killed by signal {name}"
        else:
            message = f"Agent command exited with code {code}"
        first = stderr.data[:STDERR_IN_ERROR].decode("utf-8", "replace").strip()
        if first:
            message += f": {first}"
        return AgentResult(output=output, error=message, exit_code=code if code and code > 0 else 1,
                           stderr=err_text)

    async def _stop(self, proc: asyncio.subprocess.Process) -> None:
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            async with asyncio.timeout(self.kill_grace_s):
                await proc.wait()
        except TimeoutError:
            pass
        _signal_group(proc.pid, signal.SIGKILL)  # the leader may be gone while its children linger
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()


class _Capped:
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


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the agent does not read stdin (or exited early): not our failure to report
    finally:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()


async def _drain(stream: asyncio.StreamReader | None, sink: _Capped) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_READ_CHUNK):
        sink.add(chunk)


async def _settle(io: asyncio.Future[object], limit_s: float = 5.0) -> None:
    # After the group is killed the pipes close, so this returns promptly. A grandchild that left
    # the group (setsid) could keep a pipe open forever: stop reading after `limit_s`.
    try:
        async with asyncio.timeout(limit_s):
            await io
    except TimeoutError:
        io.cancel()
    except Exception:
        pass  # a read error after the process is gone changes nothing about the result


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
