"""Any CLI agent as an `AgentRunner`: the prompt on stdin, the answer on stdout.

`["claude", "-p"]`, `["llm", "-m", "gpt-4o-mini"]`, a shell script… The process runs in its own
process group (session) so a timeout or an abort can stop it together with everything it
spawned, including descendants that left the group (`tftui.procs`, docs/trust.md §5): SIGTERM,
SIGKILL after a grace period (`kill_grace_s` at a timeout; after a cancel or an interrupt the
shorter grace every process gets, `procs.cancel_grace`). The agent name, model, node path
and system prompt reach the process as `TFTUI_*` environment variables (and, with
`prepend_system`, the system prompt is also put in front of the task on stdin).
"""

from __future__ import annotations

import asyncio
import codecs
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence

from tftui.agent_types import AgentRequest, AgentResult
from tftui.agents.definitions import AgentLibrary, system_prompt_for
from tftui.procs import Capped as _Capped
from tftui.procs import ProcessProtocol as _Protocol
from tftui.procs import (
    feed_stdin,
    reap_strays,
    register,
    spawn,
    stop_cancelled,
    stop_tree,
    tagged_env,
    unregister,
)
from tftui.redaction import is_secret_env_name, redact_known, redact_text, register_secret

PHASE_TIMEOUT = "Phase timed out after {ms}ms (subagent aborted)"  # docs/retry.md §5
MAX_OUTPUT_BYTES = 1_000_000
MAX_STDERR_BYTES = 64_000
KILL_GRACE_S = 5.0  # SIGTERM -> SIGKILL at a timeout (docs/trust.md §5); a cancel uses procs.cancel_grace
STDERR_IN_ERROR = 500  # bytes of stderr quoted in the error message (as scripts do, docs/language.md §6.7)


class _LiveCapped(_Capped):
    """stdout, with every piece also handed to the live-text callback as it arrives (UTF-8
    decoded incrementally, so a character split across reads is never garbled)."""

    def __init__(self, cap: int, node_path: str, on_chunk: Callable[[str, str], object]) -> None:
        super().__init__(cap)
        self.node_path = node_path
        self.on_chunk = on_chunk
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def add(self, chunk: bytes) -> None:
        kept = len(self.data)
        super().add(chunk)
        piece = self.decoder.decode(bytes(self.data[kept:]))
        if piece:
            try:
                self.on_chunk(self.node_path, piece)
            except Exception:
                pass  # a display callback must never fail the call


class CommandRunner:
    # A CLI agent reports no usage, so the engine refuses budgeted flows with it (docs/scheduling.md §6).
    reports_usage = False
    reports_cost = False

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        library: AgentLibrary | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        prepend_system: bool = False,
        kill_grace_s: float = KILL_GRACE_S,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_stderr_bytes: int = MAX_STDERR_BYTES,
        on_chunk: Callable[[str, str], object] | None = None,
    ) -> None:
        if not argv:
            raise ValueError("CommandRunner needs a non-empty argv")
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.library = library
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)
        for name, value in self.env.items():  # the command's credentials: masked wherever they appear
            if is_secret_env_name(name):
                register_secret(value)
        self.prepend_system = prepend_system
        self.kill_grace_s = kill_grace_s
        self.max_output_bytes = max_output_bytes
        self.max_stderr_bytes = max_stderr_bytes
        self.on_chunk = on_chunk  # the live-text callback: (node path, text) as stdout arrives
        self.last_pid: int | None = None  # for tests and diagnostics: the most recent process (= its group id)

    def __repr__(self) -> str:
        return f"CommandRunner(argv={self.argv!r})"

    async def aclose(self) -> None:
        """Nothing pooled: every call owns (and reaps) its process."""

    async def run(self, request: AgentRequest) -> AgentResult:
        result = await self._run(request)
        if self.library is not None:
            result.agent = self.library.fallback_for(request.agent)
        result.output = redact_known(result.output)  # the answer feeds the next phase: known secrets only
        if result.error:
            result.error = redact_text(result.error)
        if result.stderr:
            result.stderr = redact_text(result.stderr)
        return result

    async def _run(self, request: AgentRequest) -> AgentResult:
        system, model = self._system_and_model(request)
        stdin = request.task
        if self.prepend_system and system:
            stdin = f"{system}\n\n---\n\n{request.task}"
        env, tag = tagged_env(self.env)
        env = {
            **env,
            "TFTUI_AGENT": request.agent or "",
            "TFTUI_NODE_PATH": request.node_path,
            "TFTUI_PHASE_ID": request.phase_id,
            "TFTUI_ATTEMPT": str(request.attempt),
            "TFTUI_OUTPUT": request.output,
            "TFTUI_MODEL": model or "",
            "TFTUI_SYSTEM_PROMPT": system or "",
        }
        stdout = (_Capped(self.max_output_bytes) if self.on_chunk is None
                  else _LiveCapped(self.max_output_bytes, request.node_path, self.on_chunk))
        stderr = _Capped(self.max_stderr_bytes)
        loop = asyncio.get_running_loop()
        try:
            # A protocol rather than create_subprocess_exec: it reports the exit of the agent itself,
            # even while a leftover child still holds the pipes open (then `Process.wait()` would hang).
            transport, proto = await spawn(loop.subprocess_exec(
                lambda: _Protocol(loop, stdout, stderr),
                *self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,  # its own process group, so the whole tree can be signalled
            ), tag, self.kill_grace_s)  # a cancel while it starts stops it too
        except OSError as exc:
            return AgentResult(error=f"Agent command failed to start: {self.argv[0]}: {exc.strerror or exc}",
                               exit_code=127)
        pid = transport.get_pid()
        self.last_pid = pid
        register(pid, tag)
        try:
            feed_stdin(transport, stdin.encode("utf-8"))
            phase_timeout = request.timeout_ms / 1000 if request.timeout_ms else None
            limits = [t for t in (phase_timeout, self.timeout_s) if t]
            limit = min(limits) if limits else None
            try:
                async with asyncio.timeout(limit):
                    await asyncio.shield(proto.exited)  # a timeout must not cancel the future itself
            except TimeoutError:
                await stop_tree(pid, tag, proto, self.kill_grace_s)
                if phase_timeout is not None and limit == phase_timeout:
                    return AgentResult(error=PHASE_TIMEOUT.format(ms=request.timeout_ms), exit_code=1,
                                       stderr=stderr.text(), timed_out=True)
                return AgentResult(error=f"Agent command timed out after {limit:g}s: {self.argv[0]}",
                                   exit_code=1, stderr=stderr.text())
            except asyncio.CancelledError:  # the engine aborted the call: stop the tree, then let it go
                await stop_cancelled(pid, tag, proto, self.kill_grace_s)
                raise
            # The agent exited; whatever it left running in its group goes too (closing the pipes).
            await reap_strays(pid, tag, proto)
            return self._result(transport.get_returncode(), stdout, stderr)
        finally:
            unregister(pid)
            transport.close()

    def _system_and_model(self, request: AgentRequest) -> tuple[str | None, str | None]:
        definition = self.library.resolve(request.agent) if self.library is not None else None
        system = system_prompt_for(request.system, definition)
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
