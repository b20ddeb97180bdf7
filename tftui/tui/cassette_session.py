"""Cassette mode in the TUI (`tftui FLOW --from SRC`): the cassette lives in the run service,
which rewinds it for each run from scratch. Kept as a re-export for `commands/open_flow.py`."""

from __future__ import annotations

from tftui.run_service import SessionCassette

__all__ = ["SessionCassette"]
