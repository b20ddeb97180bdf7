"""Issue 15: screens that must not say something untrue (items 4, 5, 11, 12, 15, 16, 17),
checked on what the screen shows at 80x24 and 120x40, in Unicode and --ascii."""

from __future__ import annotations

import pytest

from tftui.agents.base import AgentRequest, AgentResult

SIZES = [(80, 24), (120, 40)]
LOOKS = [False, True]


class UnmeteredRunner:
    """A CLI agent's kind of runner: answers, reports no usage and no cost."""

    reports_usage = False
    reports_cost = False

    async def run(self, request: AgentRequest) -> AgentResult:
        return AgentResult(output=f"answer for {request.node_path}")


# -- item 16: unknown cost / usage ----------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_unknown_usage_reads_unknown_in_header_tree_and_info(h, size, ascii):
    app = h.make_app(h.FIXTURES / "review.json", runner=UnmeteredRunner(), ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        lines = h.screen_lines(app)
        header = lines[0]
        assert "? tok" in header, header
        assert "$0.00" not in h.screen_text(app) and " 0 tok" not in header
        row = next(line for line in lines if " fetch " in line)
        assert "?t" in row, row
        info = app.main.detail.text("overview")
        assert "Usage: unknown" in info
