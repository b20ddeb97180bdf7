"""script phases (docs/language.md §6.7): a subprocess, no model call, zero usage.

Array `run` executes without a shell (elements interpolated); string `run` goes
through `/bin/sh -c` and is never interpolated; `input` (interpolated) goes to stdin.
stdout is read in chunks and capped at 1 MB while reading (the rest is drained and
dropped, so a script printing 100 MB never sits in memory); stderr keeps 500 bytes.
Timeout: SIGTERM to the process group, SIGKILL 5 s later.
"""

from __future__ import annotations

import asyncio
import os
import signal

from tftui.engine.context import build_context
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, phase_as
from tftui.flow.model import ScriptPhase

STDOUT_CAP = 1024 * 1024
STDERR_KEEP = 500
DEFAULT_TIMEOUT_MS = 60000
MAX_TIMEOUT_MS = 300000
KILL_GRACE_S = 5.0
_CHUNK = 64 * 1024


async def _read_capped(stream: asyncio.StreamReader | None, cap: int) -> tuple[bytes, bool]:
    """Read a stream to EOF keeping at most `cap` bytes; returns (kept, truncated)."""
    if stream is None:
        return b"", False
    kept = bytearray()
    truncated = False
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return bytes(kept), truncated
        room = cap - len(kept)
        if room > 0:
            kept += chunk[:room]
        if len(chunk) > room:
            truncated = True


def _signal_group(proc: asyncio.subprocess.Process, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


async def _feed(proc: asyncio.subprocess.Process, data: bytes | None) -> None:
    if proc.stdin is None:
        return
    try:
        if data:
            proc.stdin.write(data)
            await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        try:
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _timeout_ms(value: object) -> int:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return int(min(value, MAX_TIMEOUT_MS))
    return DEFAULT_TIMEOUT_MS


async def execute(run: PhaseHost, pr: PhaseRun) -> PhaseOutcome:
    phase = phase_as(pr, ScriptPhase)
    ctx = build_context(run, phase)
    spec = phase.run
    stdin_text = render(run, pr, phase.input, ctx) if isinstance(phase.input, str) else None
    # Relative paths (and the default working directory) are the flow file's folder.
    base = os.path.dirname(os.path.abspath(run.flow_path)) if run.flow_path else None
    cwd = os.path.join(base, phase.cwd) if phase.cwd and base else (phase.cwd or base)
    timeout_ms = _timeout_ms(phase.timeout)
    try:
        pipe = asyncio.subprocess.PIPE
        # start_new_session: its own process group, so a timeout kills its children too
        if isinstance(spec, list):
            argv = [render(run, pr, part, ctx) for part in spec]
            if not argv or not argv[0]:
                raise OSError("'run' array must be non-empty with a valid first element")
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd, start_new_session=True
            )
        elif isinstance(spec, str):
            proc = await asyncio.create_subprocess_shell(
                spec, stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd, start_new_session=True
            )
        else:
            raise OSError("'run' is missing")
    except (OSError, ValueError) as exc:
        message = f"Script error: {exc.strerror or exc}" if isinstance(exc, OSError) else f"Script error: {exc}"
        # a command that never started has no output at all (taskflow: none), not an empty one
        return PhaseOutcome(status="failed", output=None, error=message)

    data = stdin_text.encode("utf-8") if stdin_text is not None else None
    readers = asyncio.gather(
        _read_capped(proc.stdout, STDOUT_CAP), _read_capped(proc.stderr, STDERR_KEEP), _feed(proc, data), proc.wait()
    )
    timed_out = False
    try:
        (out, truncated), (err, _), _, code = await asyncio.wait_for(asyncio.shield(readers), timeout_ms / 1000)
    except TimeoutError:
        timed_out = True
        _signal_group(proc, signal.SIGTERM)
        try:
            (out, truncated), _, _, _ = await asyncio.wait_for(asyncio.shield(readers), KILL_GRACE_S)
        except TimeoutError:
            _signal_group(proc, signal.SIGKILL)
            (out, truncated), _, _, _ = await readers
    if timed_out:
        pr.timed_out = True
        message = f"Script timed out after {timeout_ms}ms"
        # what it printed before it was stopped stays its output, as for a non-zero exit
        return PhaseOutcome(status="failed", output=out.decode("utf-8", errors="replace"), error=message)

    stdout = out.decode("utf-8", errors="replace")
    if code != 0:
        error = f"Script exited with code {code}"
        stderr = err.decode("utf-8", errors="replace").strip()
        if stderr:
            error += f": {stderr}"
        if truncated:
            error += " [stdout truncated at 1 MB]"
        return PhaseOutcome(status="failed", output=stdout, error=error)
    output = stdout.rstrip()
    if truncated:
        output += "\n[stdout truncated at 1 MB]"
    return PhaseOutcome(status="done", output=output)
