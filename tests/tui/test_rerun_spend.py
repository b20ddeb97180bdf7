"""After a partial re-run (`r`, `u`), the header's spend sums every call of the run, and says so:
the rows show the current results only, so the header reads `… incl. earlier runs`; `tftui
run`'s summary and `--json` totals say the same of the same state (README "Cost and usage")."""

from __future__ import annotations

import json
import re

import pytest

from tftui import present
from tftui.commands import run_report
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.run_header import RunHeader

CALL = {"input": 60, "output": 40, "costUSD": 0.001}  # 100 tokens, $0.001 a call


def _flow(tmp_path):
    flow = tmp_path / "spend.json"
    flow.write_text(json.dumps({"name": "spend", "phases": [
        {"id": "a", "task": "A."},
        {"id": "g", "type": "gate", "dependsOn": ["a"], "task": "Judge {steps.a.output}"},
        {"id": "p", "dependsOn": ["g"], "task": "Publish {steps.a.output}", "final": True},
    ]}))
    verdict = json.dumps({"verdict": "pass"})
    (tmp_path / "spend.replies.json").write_text(json.dumps({
        "a": [{"output": "a out", "usage": CALL}],
        "g": [{"output": verdict, "usage": CALL}, {"output": verdict, "usage": CALL}],
        "p": [{"output": "done", "usage": CALL}, {"output": "done again", "usage": CALL}],
    }))
    return flow


@pytest.mark.parametrize("ascii", [False, True])
async def test_header_after_a_rerun_says_it_counts_earlier_runs(h, tmp_path, ascii):
    app = h.make_app(_flow(tmp_path), ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        header = str(app.query_one(RunHeader).render())
        assert "300 tok" in header and "incl." not in header, header  # the rows sum to it: nothing to say
        app.query_one(DagTree).select_phase("g")
        await pilot.press("r")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        header = h.screen_lines(app)[0]
        rows = sum(present.usage_tokens(p.usage) for p in app.state.phases.values())
        assert rows == 300  # a, and the re-run's g and p: the first g and p are on no row
        shown = re.search(r"([\d.,k]+) tok", header)
        assert shown is not None and shown.group(1) == "500", header
        assert "incl. earlier" in header, header  # 500 is more than the rows show, and it says why
        summary = run_report.summary_line(app.state, status="completed", run_dir=None,
                                          glyphs=present.ASCII if ascii else present.UNICODE)
        assert "500 tok" in summary and "incl. 200 tok $0.0020 of earlier runs" in summary, summary
        totals = run_report.totals(app.state)
        assert totals["tokens"] == 500 and totals["earlierRuns"] == {"tokens": 200, "costUSD": 0.002}
        # the calls are counted as the spend is: the five the run made (a, g, p, then g and p again)
        assert totals["attempts"] == 5 and "5 calls" in summary, (totals, summary)


@pytest.mark.parametrize(("size", "ascii"), [((80, 24), False), ((120, 40), True)])
async def test_header_with_a_budget_after_a_rerun_reads_total_budget_then_earlier_runs(h, tmp_path, size, ascii):
    flow = _flow(tmp_path)
    spec = json.loads(flow.read_text())
    spec["budget"] = {"maxTokens": 10000}
    flow.write_text(json.dumps(spec))
    app = h.make_app(flow, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase("g")
        await pilot.press("r")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        header = h.screen_lines(app)[0]
        assert "500 tok" in header and re.search(r"incl\. (200 tok \$0\.0020 of )?earlier", header), header
        assert not re.search(r"earlier( runs)? /", header), header  # the budget is not read as the earlier runs'
        if size[0] >= 120:  # room for all of it: the total, its budget, then what of it is on no row
            assert "500 tok $0.0050 / 10.0k tok, incl. 200 tok $0.0020 of earlier runs" in header, header
