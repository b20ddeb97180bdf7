"""The attempt loop of one model call (docs/retry.md §3), with events, timeouts and contracts.

Both retry layers compose here: the explicit policy covers every failure up to
`retry.max`; the transient layer covers transient failures up to 3 attempts unless
`idempotent: false`. Timeouts are never retried; contract violations are never
transient (D5). Backoff waits go through the run's clock (debugger fast-forward).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tftui.agent_types import AgentRequest, AgentResult
from tftui.engine import events as ev
from tftui.engine.retry import (
    STOP_ABORTED,
    STOP_TIMEOUT,
    backoff_honouring_retry_after,
    is_transient,
    max_attempts,
    retry_decision,
)
from tftui.engine.state import add_usage
from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING

if TYPE_CHECKING:
    from tftui.engine.phases.base import PhaseHost, PhaseRun

TIMEOUT_GRACE_S = 5.5  # docs/retry.md §5: a runner that ignores the abort gets a synthetic failure


@dataclass(slots=True)
class CallSpec:
    node_path: str
    agent: str
    task: str
    output: str = "text"  # "json" parses the output (and enables `expect`)
    expect: Any = None


@dataclass(slots=True)
class CallOutcome:
    ok: bool
    output: str = ""
    json: Any = MISSING
    error: str | None = None
    attempts: int = 0
    timed_out: bool = False
    contract_violation: bool = False
    contract_lines: list[str] | None = None
    aborted: bool = False
    agent: str | None = None  # the agent that answered when the runner substituted one (AgentResult.agent)


def _timeout_ms(phase: Any) -> int | None:
    value = getattr(phase, "timeout", None)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return int(value)
    return None


def _extra(phase: Any) -> dict[str, Any]:
    """`tools` / `cwd` are forwarded to the runner (docs/language.md §2.1) when the phase sets them."""
    if phase.tools is None and phase.cwd is None:
        return {}
    extra: dict[str, Any] = {}
    if phase.tools is not None:
        extra["tools"] = phase.tools
    if phase.cwd is not None:
        extra["cwd"] = phase.cwd
    return extra


def contract_error(value: Any, schema: Any) -> list[str]:
    """Violations of an `expect` contract for a parsed output (docs/language.md §5)."""
    if value is MISSING:
        return ["$: output is not valid JSON (contract could not be checked)"]
    from tftui.lang.contract import contract_violations

    return list(contract_violations(value, schema))


def failure_text(result: AgentResult) -> str:
    if result.error:
        return result.error
    if result.stderr:
        return result.stderr
    if result.output:
        return result.output
    return f"Agent exited with code {result.exit_code}"


def runner_error(exc: Exception) -> AgentResult:
    """A runner bug must not crash the run: the call fails with the exception's name and text."""
    return AgentResult(error=f"runner error: {type(exc).__name__}: {exc}", exit_code=1)


async def invoke(run: PhaseHost, request: AgentRequest, timeout_ms: int | None) -> AgentResult:
    """One runner call with the per-call timeout; runner exceptions become failed calls."""
    try:
        if timeout_ms is None:
            return await run.runner.run(request)
        task = asyncio.ensure_future(run.runner.run(request))
        done, _ = await asyncio.wait({task}, timeout=timeout_ms / 1000)
        if task in done:
            return task.result()
        task.cancel()
        await asyncio.wait({task}, timeout=TIMEOUT_GRACE_S)
        message = f"Phase timed out after {timeout_ms}ms (subagent aborted)"
        return AgentResult(error=message, exit_code=1, timed_out=True, aborted=True)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return runner_error(exc)


@dataclass(slots=True)
class CallConfig:
    """Per-phase call settings, computed once per phase execution (not once per call)."""

    retry: Any
    idempotent: bool
    timeout_ms: int | None
    max_attempts: int
    extra: dict[str, Any]


def call_config(pr: PhaseRun) -> CallConfig:
    cfg = pr.call_config
    if cfg is None:
        phase = pr.phase
        cfg = pr.call_config = CallConfig(
            retry=phase.retry,
            idempotent=phase.idempotent is not False,
            timeout_ms=_timeout_ms(phase),
            max_attempts=max_attempts(phase.retry),
            extra=_extra(phase),
        )
    return cfg


async def call_with_retry(run: PhaseHost, pr: PhaseRun, spec: CallSpec) -> CallOutcome:
    phase = pr.phase
    cfg = call_config(pr)
    retry = cfg.retry
    idempotent = cfg.idempotent
    timeout_ms = cfg.timeout_ms
    budget = cfg.max_attempts
    outcome = CallOutcome(False)  # ok (positional: see the request below)
    for k in range(budget):
        if run.aborted:
            outcome.aborted = True
            outcome.error = outcome.error or "Aborted"
            return outcome
        if run.debugging:
            await run.debug_point("before-attempt", phase.id, node_path=spec.node_path, attempt=k)
        # (positional: a keyword call of a class costs ~2x in CPython 3.11, once per model call)
        request = AgentRequest(
            spec.node_path,  # node_path
            phase.id,  # phase_id
            spec.agent,  # agent
            spec.task,  # task
            None,  # system
            phase.model,  # model
            k,  # attempt
            "json" if spec.output == "json" else "text",  # output
            timeout_ms,  # timeout_ms
            phase.thinking,  # thinking
            dict(cfg.extra) if cfg.extra else {},  # extra
        )
        run.emit(ev.attempt_started(phase.id, spec.node_path, k, spec.task, spec.agent))
        started = run.clock.monotonic()
        try:
            if timeout_ms is None:  # `invoke` without its own coroutine frame (the common case, every call)
                try:
                    result = await run.runner.run(request)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    result = runner_error(exc)
            else:
                result = await invoke(run, request, timeout_ms)
        except asyncio.CancelledError:
            # cancelled (race loser, user abort): close the attempt in the event stream
            aborted = "Aborted (cancelled)"
            run.emit(ev.AgentReturned(phase_id=phase.id, node_path=spec.node_path, attempt=k, error=aborted,
                                      duration_ms=(run.clock.monotonic() - started) * 1000))
            run.emit(_failed(phase.id, spec, k, aborted, False, "aborted", False, STOP_ABORTED))
            raise
        usage = result.usage.to_json() if result.usage is not None else None
        failed = result.failed
        error = result.error if failed else None
        run.emit(
            ev.agent_returned(
                phase.id,  # phase_id
                spec.node_path,  # node_path
                k,  # attempt
                result.output,  # output
                error,  # error
                usage,  # usage
                (run.clock.monotonic() - started) * 1000,  # duration_ms
                result.timed_out,  # timed_out
                result.exit_code,  # exit_code
                result.resumed,  # resumed
            )
        )
        add_usage(pr.usage, usage, answered=error is None, metering=run.metering)  # as the fold counts it
        pr.calls += 1
        outcome.attempts = k + 1
        outcome.output = result.output
        outcome.agent = result.agent
        contract = False
        if result.timed_out:
            outcome.timed_out = True
            pr.timed_out = True
            outcome.error = result.error
            run.emit(_failed(phase.id, spec, k, outcome.error or "", False, "timeout", False, STOP_TIMEOUT))
            return outcome
        if not failed:
            value = lenient_parse(result.output) if spec.output == "json" else MISSING
            if spec.output == "json" and spec.expect is not None:
                lines = contract_error(value, spec.expect)
                if lines:
                    contract = True
                    outcome.contract_violation = True
                    outcome.contract_lines = lines
                    outcome.error = "Output contract violated:\n- " + "\n- ".join(lines)
            if not contract:
                outcome.ok = True
                outcome.json = value
                outcome.error = None
                outcome.contract_violation = False
                outcome.contract_lines = None
                return outcome
        else:
            outcome.error = failure_text(result)
            outcome.contract_violation = False
            outcome.contract_lines = None
        if result.aborted or run.aborted:
            outcome.aborted = True
            run.emit(_failed(phase.id, spec, k, outcome.error or "", False, "aborted", False, STOP_ABORTED))
            return outcome
        transient = not contract and is_transient(outcome.error, stderr=result.stderr, output=result.output)
        over = run.over_budget() is not None
        again, stop = retry_decision(attempt=k, retry=retry, transient=transient, idempotent=idempotent,
                                     over_budget=over, contract=contract)
        why = "contract" if contract else ("budget" if over else "error")
        run.emit(_failed(phase.id, spec, k, outcome.error or "", transient, why, again, stop))
        if not again:
            return outcome
        delay, asked = backoff_honouring_retry_after(retry, k, outcome.error)
        run.emit(ev.BackoffStarted(phase_id=phase.id, node_path=spec.node_path, attempt=k, delay_ms=delay,
                                   retry_after_ms=asked))
        waited_s = 0.0
        if not result.replayed:  # a replayed failure's backoff was waited when it happened
            waited_s = await run.clock.sleep(delay / 1000)
        waited = min(delay, round(waited_s * 1000))
        run.emit(ev.BackoffEnded(phase_id=phase.id, node_path=spec.node_path, attempt=k, delay_ms=delay,
                                 waited_ms=waited,
                                 skipped=not result.replayed and waited < delay, replayed=result.replayed))
    return outcome


def _failed(
    phase_id: str, spec: CallSpec, k: int, error: str, transient: bool, why: str, again: bool, stop: str
) -> ev.AttemptFailed:
    return ev.AttemptFailed(
        phase_id=phase_id,
        node_path=spec.node_path,
        attempt=k,
        error=error,
        transient=transient,
        why=why,
        will_retry=again,
        stop=stop,
    )
