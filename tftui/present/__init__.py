"""How run facts are shown: status words and glyphs, number formats, event lines, view models.

One table per fact, shared by the debugger and the headless commands (`tftui run`, `runs`,
`replay --print`, reports), so the same status always reads the same. Textual-free: this
package may use rich, never textual, and it decides no semantics (it reads engine values).
"""

from tftui.present.header import HeaderPart, cut, fit_header, pause_text, pause_variants
from tftui.present.numbers import (
    elapsed_text,
    format_cost,
    format_duration,
    format_tokens,
    tokens_text,
    usage_cost,
    usage_text,
    usage_tokens,
)
from tftui.present.phase import counters_text, loop_iterations, phase_duration_ms, plain_reason, progress
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
    "counters_text",
    "cut",
    "display_status",
    "elapsed_text",
    "fit_header",
    "format_cost",
    "format_duration",
    "format_tokens",
    "glyph",
    "glyphs_for",
    "glyphs_for_stream",
    "look",
    "loop_iterations",
    "mark",
    "pause_text",
    "pause_variants",
    "phase_duration_ms",
    "plain_reason",
    "progress",
    "shown_status",
    "status_word",
    "tokens_text",
    "usage_cost",
    "usage_text",
    "usage_tokens",
]
