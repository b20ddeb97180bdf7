"""Interpolation contexts for phases: `{steps.*}` views, `{previous.output}` (docs/language.md §3.3), pre-read (docs/language.md §2.1).

The run keeps one `views` dict (phase id -> StepView) updated as phases finish; a
Context shares it rather than copying, so building a context is O(deps), not O(phases).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tftui.engine.state import PhaseStatus
from tftui.lang.interpolate import FAILED_SENTINEL, Context, StepView, interpolate
from tftui.lang.values import MISSING

if TYPE_CHECKING:
    from tftui.engine.phases.base import PhaseHost
    from tftui.flow.model import PhaseBase

CONTEXT_TOTAL_CAP = 200_000
CONTEXT_FILE_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_CONTEXT_LIMIT = 8000


def step_view(status: PhaseStatus, output: str | None, json_value: Any, error: str | None) -> StepView:
    if status == PhaseStatus.FAILED:
        return StepView(FAILED_SENTINEL, MISSING, "failed", error)
    return StepView(output or "", json_value)  # (positional: a keyword call of a class packs a dict)


def sections_text(parts: Sequence[tuple[str, str]]) -> str:
    """A reduce's inputs as one text (docs/language.md §3.3): one as it is, several as
    `### <label>\n\n<output>` sections joined by `\n\n---\n\n` (also each tree-reduce batch)."""
    if len(parts) == 1:
        return parts[0][1]
    return "\n\n---\n\n".join(f"### {label}\n\n{out}" for label, out in parts)


def previous_output(run: PhaseHost, phase: PhaseBase) -> str | None:
    """docs/language.md §3.3 for a live run."""
    return previous_output_of(phase, run.state.phases, run.edges[phase.id])


def previous_output_of(phase: PhaseBase, phases: Mapping[str, Any], edges: Sequence[str]) -> str | None:
    """docs/language.md §3.3: the last `done` dependency's output; reduce aggregates its `from` entries.

    `phases` maps ids to phase states (anything with `.status` and `.output`), `edges` are the
    phase's dependencies in order; shared by the live engine and contexts rebuilt from a RunState."""
    if phase.type == "reduce":
        parts: list[tuple[str, str]] = []
        for dep in dict.fromkeys(getattr(phase, "from_", None) or ()):
            st = phases.get(dep)
            if st is not None and st.status == PhaseStatus.DONE and st.output:
                parts.append((dep, st.output))
        if not parts:
            return None
        return sections_text(parts)
    for dep in reversed(edges):
        st = phases.get(dep)
        if st is not None and st.status == PhaseStatus.DONE:
            return st.output or ""
    return None


def build_context(
    run: PhaseHost, phase: PhaseBase, *, locals: dict[str, Any] | None = None, reflexion: str | None = None
) -> Context:
    # (positional, in field order: args, steps, previous_output, locals, reflexion)
    return Context(run.args, run.views, previous_output(run, phase), locals if locals is not None else {}, reflexion)


def _limit(phase: PhaseBase) -> int:
    value = phase.context_limit
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return int(value)
    return DEFAULT_CONTEXT_LIMIT


def preread(run: PhaseHost, phase: PhaseBase, ctx: Any) -> str:
    """Read the phase's `context` entries once (files, globs or placeholders) into a prompt prefix.

    Paths are relative to the flow file's folder (else the working directory). Each file
    is read up to `contextLimit` characters (files over 10 MB are skipped), the total is
    capped at 200,000 characters; unreadable entries become a phase warning, never a crash.
    """
    entries = phase.context or []
    if not entries:
        return ""
    base = Path(run.flow_path).parent if run.flow_path else Path.cwd()
    limit = _limit(phase)
    sections: list[str] = []
    total = 0
    for raw in entries:
        if not isinstance(raw, str) or not raw.strip():
            continue
        entry = interpolate(raw, ctx).text if "{" in raw else raw
        if raw.strip().startswith("{") and raw.strip().endswith("}") and entry != raw:
            text = entry[:limit]
            sections.append(f"## Context: {raw.strip()}\n\n{text}")
            total += len(text)
            continue
        pattern = entry if os.path.isabs(entry) else str(base / entry)
        if glob.has_magic(pattern):
            matches = sorted(glob.glob(pattern, recursive=True))
        else:
            matches = [pattern] if os.path.exists(pattern) else []
        if not matches:
            run.phase_warning(phase.id, f"context: no file matches '{entry}'")
        for path in matches:
            if total >= CONTEXT_TOTAL_CAP:
                break
            try:
                if os.path.getsize(path) > CONTEXT_FILE_MAX_BYTES:
                    run.phase_warning(phase.id, f"context: '{path}' is larger than 10 MB and was skipped")
                    continue
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(min(limit, CONTEXT_TOTAL_CAP - total))
            except OSError as exc:
                run.phase_warning(phase.id, f"context: cannot read '{path}': {exc.strerror or exc}")
                continue
            total += len(text)
            sections.append(f"## Context: {os.path.relpath(path, base) if not os.path.isabs(entry) else path}\n\n{text}")
    if not sections:
        return ""
    return "\n\n".join(sections) + "\n\n---\n\n"
