"""What `tftui run` prints when a run ends: the `--json` object, the summary line, the exit code."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tftui import present
from tftui.engine.state import PhaseState, RunState
from tftui.lang.values import MISSING

EXIT_OK = 0
EXIT_FAILED = 1  # the run failed or was blocked
EXIT_USAGE = 2  # invalid flow, bad arguments, no runner
EXIT_INTERRUPTED = 130  # Ctrl+C / SIGTERM, or the run ended paused

_STATUS_EXIT = {
    "completed": EXIT_OK,
    "failed": EXIT_FAILED,
    "blocked": EXIT_FAILED,
    "paused": EXIT_INTERRUPTED,
}


def exit_code_for(status: str) -> int:
    return _STATUS_EXIT.get(status, EXIT_FAILED)


def totals(state: RunState, *, duration_ms: float | None = None) -> dict[str, Any]:
    statuses = [present.display_status(p) for p in state.phases.values()]
    usage = state.usage
    data: dict[str, Any] = {
        "phases": len(statuses),
        "done": sum(1 for s in statuses if s in ("done", "blocked")),
        "failed": statuses.count("failed"),
        "skipped": statuses.count("skipped"),
        "blocked": statuses.count("blocked"),
        "pending": sum(1 for s in statuses if s in ("pending", "running")),
        "attempts": present.run_calls(state),  # every call sent to the runner, a resume's replays once
        # null when no call reported its tokens (unknown, not 0), as each phase's usage says
        "inputTokens": int(usage.get("input", 0) or 0) if present.tokens_known(usage) else None,
        "outputTokens": int(usage.get("output", 0) or 0) if present.tokens_known(usage) else None,
        "tokens": present.usage_tokens(usage) if present.tokens_known(usage) else None,
        "costUSD": present.cost_json(usage),  # null: some call's cost is unknown
    }
    if not present.cost_known(usage):
        data["costUSDAtLeast"] = round(present.usage_cost(usage), 6)
        data["unpricedCalls"] = present.unpriced_calls(usage)
    if present.untracked_calls(usage):
        data["untrackedCalls"] = present.untracked_calls(usage)
    earlier = state.usage_earlier
    if present.spent(earlier):  # part of the totals above, on no phase's row (README "Cost and usage")
        data["earlierRuns"] = {
            "tokens": present.usage_tokens(earlier) if present.tokens_known(earlier) else None,
            "costUSD": present.cost_json(earlier),
        }
    if duration_ms is not None:
        data["durationMs"] = round(duration_ms, 1)
    return data


def _usage_json(phase: PhaseState) -> dict[str, Any]:
    u = phase.usage
    unknown = not present.tokens_known(u)  # reported by no call
    return {
        "input": None if unknown else int(u.get("input", 0) or 0),
        "output": None if unknown else int(u.get("output", 0) or 0),
        "costUSD": present.cost_json(u),  # null: not known
    }


def phase_json(phase: PhaseState, phase_type: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "type": phase_type or phase.type,
        "status": str(phase.status),
        "display": present.display_status(phase),
        "output": phase.output,
        "error": phase.error,
        "attempts": phase.attempts,
        "usage": _usage_json(phase),
        "durationMs": round(phase.duration_ms, 1),
    }
    if phase.json is not MISSING:
        data["json"] = phase.json
    if phase.gate is not None:
        data["gate"] = phase.gate
    for key in ("loop", "tournament", "approval"):
        value = getattr(phase, key)
        if value is not None:
            data[key] = value
    if phase.warnings:
        data["warnings"] = list(phase.warnings)
    if phase.side_effect:
        data["sideEffect"] = True
    return data


def run_json(
    state: RunState,
    *,
    status: str,
    final_output: str | None,
    run_id: str | None,
    run_dir: Path | None,
    phase_order: list[str],
    phase_types: Mapping[str, str],
    duration_ms: float | None = None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    order = [pid for pid in phase_order if pid in state.phases]
    order += [pid for pid in state.phases if pid not in order]
    return {
        "status": status,
        "final_output": final_output,
        "phases": {pid: phase_json(state.phases[pid], phase_types.get(pid)) for pid in order},
        "totals": totals(state, duration_ms=duration_ms),
        "run_id": run_id,
        "run_dir": str(run_dir) if run_dir is not None else None,
        "error": state.error,
        "notes": list(notes or []),
    }


def summary_line(
    state: RunState,
    *,
    status: str,
    run_dir: Path | None,
    duration_ms: float = 0.0,
    glyphs: present.Glyphs | None = None,
) -> str:
    """The last line of `tftui run` on stderr; in ASCII (`glyphs`, by default stderr's) where
    Unicode cannot be shown."""
    glyphs = glyphs or present.glyphs_for_stream(sys.stderr)
    t = totals(state)
    parts = [
        status,
        # each phase counted under the status its line shows (present's table): a blocked gate
        # is blocked, not done (the JSON's `done` counts it among the finished phases)
        ", ".join(
            f"{n} {present.status_word(s)}" for s, n in (
                ("done", t["done"] - t["blocked"]), ("blocked", t["blocked"]), ("failed", t["failed"]),
                ("skipped", t["skipped"]),
            ) if n or s != "blocked"
        )
        + (f", {t['pending']} not run" if t["pending"] else ""),
        present.calls_text(t["attempts"]),
        present.spend_tokens_text(state.usage),
        present.spend_cost_text(state.usage),
        *present.earlier_spend_variants(state.usage_earlier)[:1],  # as the debugger's header says it
        present.elapsed_text(duration_ms),
    ]
    if run_dir is not None:
        parts.append(f"run {_short_path(run_dir)}")
    return glyphs.fold(f" {glyphs.sep} ".join(parts))


def _short_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
