"""script phases (docs/language.md §6.7): a subprocess, no model call, zero usage.

Array `run` executes without a shell (elements interpolated); string `run` goes
through `/bin/sh -c` and is never interpolated; `input` (interpolated) goes to stdin.
stdout is capped at 1 MB while reading (the rest is drained and dropped, so a script
printing 100 MB never sits in memory); stderr keeps 500 bytes.
The process runs in its own session (`tftui.procs`, docs/trust.md §5): at the timeout, or when
the run is cancelled or tftui interrupted, its whole tree gets SIGTERM, then SIGKILL (5 s later
at a timeout, 1 s after a cancel), including descendants that left its process group.
"""

from __future__ import annotations

import os

from tftui.engine.context import build_context
from tftui.engine.phases.agent import render
from tftui.engine.phases.base import PhaseHost, PhaseOutcome, PhaseRun, phase_as
from tftui.flow.model import ScriptPhase
from tftui.procs import run_process

STDOUT_CAP = 1024 * 1024
STDERR_KEEP = 500
DEFAULT_TIMEOUT_MS = 60000
MAX_TIMEOUT_MS = 300000
KILL_GRACE_S = 5.0


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
        if isinstance(spec, list):
            argv: list[str] | str = [render(run, pr, part, ctx) for part in spec]
            if not argv or not argv[0]:
                raise OSError("'run' array must be non-empty with a valid first element")
        elif isinstance(spec, str):
            argv = spec
        else:
            raise OSError("'run' is missing")
        done = await run_process(
            argv,
            stdin=stdin_text.encode("utf-8") if stdin_text is not None else None,
            cwd=cwd,
            env=None,
            timeout_s=timeout_ms / 1000,
            grace_s=KILL_GRACE_S,
            stdout_cap=STDOUT_CAP,
            stderr_cap=STDERR_KEEP,
            until_pipes_close=True,
        )
    except (OSError, ValueError) as exc:
        message = f"Script error: {exc.strerror or exc}" if isinstance(exc, OSError) else f"Script error: {exc}"
        # a command that never started has no output at all (taskflow: none), not an empty one
        return PhaseOutcome(status="failed", output=None, error=message)
    if done.timed_out:
        pr.timed_out = True
        # what it printed before it was stopped stays its output, as for a non-zero exit
        output = done.stdout.decode("utf-8", errors="replace")
        return PhaseOutcome(status="failed", output=output, error=f"Script timed out after {timeout_ms}ms")

    stdout = done.stdout.decode("utf-8", errors="replace")
    truncated = done.stdout_truncated
    if done.code != 0:
        error = f"Script exited with code {done.code}"
        stderr = done.stderr.decode("utf-8", errors="replace").strip()
        if stderr:
            error += f": {stderr}"
        if truncated:
            error += " [stdout truncated at 1 MB]"
        return PhaseOutcome(status="failed", output=stdout, error=error)
    output = stdout.rstrip()
    if truncated:
        output += "\n[stdout truncated at 1 MB]"
    return PhaseOutcome(status="done", output=output)
