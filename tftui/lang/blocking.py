"""The BLOCKED rule (docs/scheduling.md §4): a gate or approval that finished `done` with the
verdict block. The engine halts the run at the first such phase of the top level
(engine.outcome.first_block_of) and every front end shows it as `blocked`
(present.status.shown_status); both ask here. Kept this small and import-free so the
presentation reads it without loading the engine (`tftui gate` never does).
"""

from __future__ import annotations

from collections.abc import Mapping


def is_blocking(status: str, gate: object) -> bool:
    """`status` (a phase status) is done and `gate` (its gate record) says block."""
    return status == "done" and isinstance(gate, Mapping) and gate.get("verdict") == "block"
