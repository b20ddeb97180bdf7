"""The run engine: scheduling, retries, phases, debugger (never imports textual).

`run_flow` and `RunResult` are imported lazily so `tftui.engine.events` / `state`
stay cheap to import for front ends.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_flow", "RunResult"]


def __getattr__(name: str) -> Any:
    if name in ("run_flow", "RunResult"):
        from tftui.engine import run

        return getattr(run, name)
    raise AttributeError(name)
