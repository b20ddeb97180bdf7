"""Cassette mode in the TUI: a CassetteRunner that starts its recording over for each fresh run.

`tftui FLOW --from SRC` runs the flow, then maybe restarts it (R, or c after it ended):
each run from scratch should replay the recording from its first call again, so an
unchanged flow keeps costing zero tokens. Partial re-runs (u, r, an applied guard) do
not rewind: they continue on the tape, then go live once it is used up.
"""

from __future__ import annotations

from tftui.agents.base import Usage
from tftui.agents.cassette import CassetteRunner


class SessionCassette(CassetteRunner):
    def rewind(self) -> None:
        """Back to the start of every tape; the replayed/live counts restart with it."""
        self._used.clear()
        self.replayed = 0
        self.live = 0
        self.log.clear()
        self.saved_usage = Usage()
