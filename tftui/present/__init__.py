"""How run facts are shown: status words and glyphs, number formats, event lines, view models.

One table per fact, shared by the debugger and the headless commands (`tftui run`, `runs`,
`replay --print`, reports), so the same status always reads the same. Textual-free: this
package may use rich, never textual, and it decides no semantics (it reads engine values).

The names below are re-exported lazily (PEP 562): importing one submodule (`tftui.present.terminal`,
which every command's output goes through) does not load the others, so `tftui gate` and `tftui check`
start without the engine and scorer modules that `header` and `phase` read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tftui.present.header import HeaderPart, cut, fit_header, pause_text, pause_variants, stop_variants
    from tftui.present.numbers import (
        calls_text,
        cost_json,
        cost_known,
        earlier_spend_variants,
        elapsed_text,
        format_cost,
        format_duration,
        format_tokens,
        not_spent_again,
        spend_cost_text,
        spend_cost_variants,
        spend_tokens_count,
        spend_tokens_text,
        spend_variants,
        spent,
        tokens_known,
        tokens_text,
        unpriced_calls,
        untracked_calls,
        usage_cost,
        usage_text,
        usage_tokens,
    )
    from tftui.present.phase import (
        counted_phase_ids,
        counters_text,
        loop_iterations,
        paused_s_at,
        phase_duration_ms,
        phase_duration_text,
        plain_reason,
        progress,
        run_calls,
        run_elapsed_ms,
    )
    from tftui.present.status import (
        ASCII,
        DISPLAY_STATUSES,
        ROLES,
        RUN_STATUSES,
        STATUSES,
        UNICODE,
        Glyphs,
        Look,
        ansi_code,
        colour_role,
        display_status,
        glyph,
        glyphs_for,
        glyphs_for_stream,
        look,
        mark,
        shown_status,
        status_word,
    )

# name -> the submodule that defines it
_HOMES: dict[str, str] = {
    "ASCII": "status",
    "DISPLAY_STATUSES": "status",
    "Glyphs": "status",
    "HeaderPart": "header",
    "Look": "status",
    "ROLES": "status",
    "RUN_STATUSES": "status",
    "STATUSES": "status",
    "UNICODE": "status",
    "ansi_code": "status",
    "colour_role": "status",
    "cost_json": "numbers",
    "cost_known": "numbers",
    "counters_text": "phase",
    "cut": "header",
    "display_status": "status",
    "earlier_spend_variants": "numbers",
    "elapsed_text": "numbers",
    "fit_header": "header",
    "format_cost": "numbers",
    "format_duration": "numbers",
    "format_tokens": "numbers",
    "not_spent_again": "numbers",
    "calls_text": "numbers",
    "glyph": "status",
    "glyphs_for": "status",
    "glyphs_for_stream": "status",
    "look": "status",
    "loop_iterations": "phase",
    "mark": "status",
    "pause_text": "header",
    "pause_variants": "header",
    "paused_s_at": "phase",
    "phase_duration_ms": "phase",
    "phase_duration_text": "phase",
    "plain_reason": "phase",
    "progress": "phase",
    "counted_phase_ids": "phase",
    "run_calls": "phase",
    "run_elapsed_ms": "phase",
    "shown_status": "status",
    "spend_cost_text": "numbers",
    "spend_cost_variants": "numbers",
    "spend_tokens_count": "numbers",
    "spend_tokens_text": "numbers",
    "spend_variants": "numbers",
    "spent": "numbers",
    "status_word": "status",
    "stop_variants": "header",
    "tokens_known": "numbers",
    "tokens_text": "numbers",
    "unpriced_calls": "numbers",
    "untracked_calls": "numbers",
    "usage_cost": "numbers",
    "usage_text": "numbers",
    "usage_tokens": "numbers",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home == "header":
        from tftui.present import header

        value: object = getattr(header, name)
    elif home == "numbers":
        from tftui.present import numbers

        value = getattr(numbers, name)
    elif home == "phase":
        from tftui.present import phase

        value = getattr(phase, name)
    elif home == "status":
        from tftui.present import status

        value = getattr(status, name)
    else:
        raise AttributeError(f"module 'tftui.present' has no attribute {name!r}")
    globals()[name] = value  # once: later reads are plain attribute reads
    return value


__all__ = [
    "ASCII",
    "DISPLAY_STATUSES",
    "ROLES",
    "RUN_STATUSES",
    "STATUSES",
    "UNICODE",
    "Glyphs",
    "HeaderPart",
    "Look",
    "ansi_code",
    "colour_role",
    "cost_json",
    "cost_known",
    "counters_text",
    "cut",
    "display_status",
    "earlier_spend_variants",
    "elapsed_text",
    "fit_header",
    "format_cost",
    "format_duration",
    "format_tokens",
    "not_spent_again",
    "glyph",
    "glyphs_for",
    "glyphs_for_stream",
    "look",
    "loop_iterations",
    "mark",
    "calls_text",
    "pause_text",
    "pause_variants",
    "paused_s_at",
    "phase_duration_ms",
    "phase_duration_text",
    "plain_reason",
    "progress",
    "counted_phase_ids",
    "run_calls",
    "run_elapsed_ms",
    "shown_status",
    "spend_cost_text",
    "spend_cost_variants",
    "spend_tokens_count",
    "tokens_known",
    "spend_tokens_text",
    "spend_variants",
    "spent",
    "status_word",
    "stop_variants",
    "tokens_text",
    "unpriced_calls",
    "untracked_calls",
    "usage_cost",
    "usage_text",
    "usage_tokens",
]
