"""Gate tools (issue 6): the gate tab's evaluation history and arithmetic, gate re-runs after
a file change, what-if, the Calls tab's attempts timeline and data breakpoints.

Every test drives the real app with Pilot and asserts on what the widgets show.
Flows: the seed's `validate` gate from sample_flows/ (weighted, judge decides / early cutoff).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.screens.databreak import DataBreakpointScreen
from tftui.tui.screens.whatif import WhatIfScreen
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.phase_detail import PhaseDetail

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
GATE = "check-response"


def _copy_sample(tmp_path: Path, name: str, replies: Path | None = None) -> Path:
    flow = tmp_path / f"{name}.json"
    shutil.copy(SAMPLES / f"{name}.json", flow)
    shutil.copy(replies or SAMPLES / f"{name}.replies.json", tmp_path / f"{name}.replies.json")
    return flow


async def _run_and_show(pilot, h, app, pid: str, tab: str) -> PhaseDetail:
    await pilot.press("c")
    await h.run_to_end(pilot, app)
    app.query_one(DagTree).select_phase(pid)
    detail = app.query_one(PhaseDetail)
    detail.active = tab
    await pilot.pause()
    return detail


def _header(app) -> str:
    return str(app.query_one("#run-header").render())


# -- gate tab ------------------------------------------------------------------------------
async def test_gate_tab_on_an_agent_phase_says_it_has_no_verdict(h):
    app = h.make_app(SAMPLES / "validate.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await _run_and_show(pilot, h, app, "generate", "gate")
        left = str(app.query_one("#gate-report").render())
        # not "not evaluated yet — r re-runs this gate" after the run completed
        assert "generate is a phase of type agent: it has no gate verdict" in left.replace("\n", " ")
        assert "not evaluated yet" not in left


async def test_gate_tab_weighted_judge_decides(h):
    app = h.make_app(SAMPLES / "validate_judge.json")
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await _run_and_show(pilot, h, app, GATE, "gate")
        left = str(app.query_one("#gate-report").render())
        right = str(app.query_one("#gate-judge").render())
        assert "evaluation 1/1 (first evaluation)" in left
        assert "PASS (source: judge) — status 'ok' is an acceptable success value" in left
        assert "combined 0.76 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·1 + 0.4·0.90 judge)/1.4 ≥ threshold 0.70 → pass" in left
        # the scorer table: the failing regex with its weight and detail
        # at 120 columns the judge pane goes below the scorer table, which keeps every column
        assert "  name              type         pass score weight" in left
        assert "✗ status-is-success regex        no   0     0.3" in left
        assert '    /"status"\\s*:\\s*"success"/ did not match' in left
        # the exact prompt sent to the judge (task + fenced target + scorer report) and its raw reply
        assert "Judge prompt sent (check-response#judge)" in right
        assert "Is this a reasonable API response even if some checks failed?" in right
        assert "- [FAIL] status-is-success (regex)" in right and "Combined score: 0.500 (threshold 0.7)" in right
        assert '{"score": 0.9, "verdict": "pass"' in right
        assert detail.text("gate").count("evaluation 1/1") == 1
        await pilot.resize_terminal(80, 24)  # narrow: the table drops its type and pass columns
        await pilot.pause()
        left = str(app.query_one("#gate-report").render())
        assert "✗ status-is-success 0     0.3" in left and 'regex: /"status"' in left


async def test_gate_tab_early_cutoff_skips_judge(h):
    app = h.make_app(SAMPLES / "validate.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await _run_and_show(pilot, h, app, GATE, "gate")
        left = str(app.query_one("#gate-report").render())
        right = str(app.query_one("#gate-judge").render())
        assert "PASS (source: score)" in left
        assert (
            "early cutoff: lower bound 0.71 = (0.2·1 + 0.3·1 + 0.4·1 + 0.1·1)/(1.0 + 0.4 judge) ≥ 0.70, judge skipped"
            in left
        )
        assert "No judge call — decided by score (zero tokens)." in right


def test_scorer_table_wide_has_every_column():
    from tftui.engine.gate_history import GateRecord, ScorerRow
    from tftui.tui import gate_text

    rec = GateRecord("g", 0, 0, 0, rows=[ScorerRow("has-status", "contains", True, 1, 0.2),
                                         ScorerRow("is-success", "regex", False, 0, 0.3, "/x/ did not match")])
    wide = gate_text.scorer_table(rec, 80).plain.splitlines()
    assert wide == [
        "  name       type     pass score weight",
        "✓ has-status contains yes  1     0.2",
        "✗ is-success regex    no   0     0.3",
        "    /x/ did not match",
    ]
    narrow = gate_text.scorer_table(rec, 30).plain.splitlines()
    assert narrow[2] == "✗ is-success 0     0.3" and narrow[3] == "    regex: /x/ did not match"


# -- re-run after a change on disk ---------------------------------------------------------
async def test_rerun_after_scorer_change_keeps_both_evaluations(h, tmp_path):
    flow_path = _copy_sample(tmp_path, "validate_judge")
    runner = ScriptedRunner.from_file(tmp_path / "validate_judge.replies.json")
    app = h.make_app(flow_path, runner=runner, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await _run_and_show(pilot, h, app, GATE, "gate")
        assert "source: judge" in detail.text("gate")
        data = json.loads(flow_path.read_text())
        data["phases"][1]["score"]["scorers"][1]["pattern"] = '"status"\\s*:\\s*"(success|ok)"'
        flow_path.write_text(json.dumps(data, indent=2))
        await h.settle(pilot, lambda: GATE in app.stale)
        before_calls = len(runner.calls)
        tokens_before = app.state.phases[GATE].usage
        app.last_result = None
        await pilot.press("r")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        # the gate itself made no model call: the scorers decided (only `report` downstream ran)
        assert [c.node_path for c in runner.calls[before_calls:]] == ["report"]
        assert not (app.state.phases[GATE].usage or {}).get("input") and tokens_before
        text = detail.text("gate")
        assert "evaluation 2/2 (re-run 1 · first evaluation)" in text
        assert "PASS (source: score)" in text and "early cutoff: lower bound 0.71" in text
        assert "No judge call" in text
        await pilot.press("comma")
        text = detail.text("gate")
        assert "evaluation 1/2 (first evaluation)" in text and "PASS (source: judge)" in text
        await pilot.press("full_stop")
        assert "evaluation 2/2" in detail.text("gate")


# -- what-if -------------------------------------------------------------------------------
def _block_app(h, tmp_path: Path, runner=None):
    flow_path = _copy_sample(tmp_path, "validate_judge", h.FIXTURES / "validate_judge_block.replies.json")
    runner = runner or ScriptedRunner.from_file(tmp_path / "validate_judge.replies.json")
    return flow_path, runner, h.make_app(flow_path, runner=runner)


async def _open_what_if(pilot, h, app) -> WhatIfScreen:
    await pilot.press("w")
    await h.settle(pilot, lambda: isinstance(app.screen, WhatIfScreen))
    return app.screen


async def test_what_if_threshold_flips_block_without_judge_call(h, tmp_path):
    flow_path, runner, app = _block_app(h, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await _run_and_show(pilot, h, app, GATE, "gate")
        assert "BLOCK (source: judge)" in detail.text("gate")
        assert "combined 0.59 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·1 + 0.4·0.30 judge)/1.4 < threshold 0.70" in detail.text(
            "gate"
        )
        calls = len(runner.calls)
        screen = await _open_what_if(pilot, h, app)
        assert screen.focused is screen.query_one("#wi-threshold")  # typing changes the threshold first
        shown = await h.what_if(pilot, screen, threshold="0.5")
        assert "before: BLOCK (judge)" in shown
        assert "after:  PASS (score) — early cutoff: lower bound 0.50" in shown
        assert "verdict flips: block → pass (score)" in shown
        assert "judge would be asked: no" in shown
        shown = await h.what_if(pilot, screen, threshold="0.8")
        assert "judge would be asked: yes" in shown and "with the previous judge score it would block" in shown
        assert "threshold: 'x' is not a number" in await h.what_if(pilot, screen, threshold="x")
        assert len(runner.calls) == calls  # nothing was sent to any model
        assert flow_path.read_text() == (SAMPLES / "validate_judge.json").read_text()  # nor written


async def test_what_if_writes_to_file_and_refuses_after_disk_change(h, tmp_path):
    flow_path, _runner, app = _block_app(h, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _run_and_show(pilot, h, app, GATE, "gate")
        screen = await _open_what_if(pilot, h, app)
        await h.what_if(pilot, screen, threshold="0.5", s1_pattern='"status"\\s*:\\s*"(success|ok)"')
        await pilot.press("ctrl+w")
        assert "Written to" in str(screen.query_one("#whatif-status").render())
        score = json.loads(flow_path.read_text())["phases"][1]["score"]
        assert score["threshold"] == 0.5 and score["scorers"][1]["pattern"] == '"status"\\s*:\\s*"(success|ok)"'
        # someone else edits the file: the next write must refuse, leaving their change alone
        flow_path.write_text(flow_path.read_text().replace('"threshold": 0.5', '"threshold": 0.6'))
        await h.what_if(pilot, screen, threshold="0.55")
        await pilot.press("ctrl+w")
        status = str(screen.query_one("#whatif-status").render())
        assert f"Not written: {flow_path} changed on disk since it was loaded. Close this with Esc and press w " \
            "again: it opens on the reloaded file." in " ".join(status.split())
        assert json.loads(flow_path.read_text())["phases"][1]["score"]["threshold"] == 0.6


# -- attempts timeline -----------------------------------------------------------------------
async def test_calls_tab_timeline_transient_backoff_and_diff(h):
    app = h.make_app(SAMPLES / "transient_retry.json")
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await _run_and_show(pilot, h, app, "fetch", "attempts")
        text = detail.text("attempts")
        assert "── fetch attempt 1 ✗" in text and "── fetch attempt 3 ✓" in text
        assert "error: 429 Too Many Requests: rate limit reached, retry later" in text
        assert 'transient: matched "429"' in text and 'transient: matched "503"' in text
        assert "→ retried after a 2000 ms backoff" in text and "→ retried after a 4000 ms backoff" in text
        assert "prompt: List the three most important changes in the latest release of taskflow." in text
        await pilot.press("D")
        text = detail.text("attempts")
        assert "diff vs the previous attempt" in text
        assert "--- fetch attempt 2" in text and "+++ fetch attempt 3" in text
        assert "-503 service unavailable" in text and "+1. Retries with backoff" in text
        await pilot.press("D")
        assert "--- fetch attempt 2" not in detail.text("attempts")


async def test_calls_tab_onblock_rounds_strip(h):
    app = h.make_app(SAMPLES / "onblock_rework.json")
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await _run_and_show(pilot, h, app, "quality", "attempts")
        text = detail.text("attempts")
        assert "Evaluations: 1✗ 2✓" in text
        assert "evaluation 2✓ (onBlock round 1) — started because evaluation 1 blocked: No tests cover slugify." in text
        assert "re-ran implement" in text
        await pilot.press("comma")  # the gate tab, previous evaluation: the block that started round 1
        gate = detail.text("gate")
        assert detail.active == "gate" and "evaluation 1/2 (first evaluation)" in gate and "BLOCK" in gate
        assert "Gate task prompt sent (quality)" in gate and "VERDICT: BLOCK" in gate
        await pilot.press("full_stop")
        gate = detail.text("gate")
        assert "evaluation 2/2 (round 1)" in gate and "round started because evaluation 1 blocked: No tests cover slugify." in gate


# -- data breakpoints ------------------------------------------------------------------------
async def test_data_breakpoint_stops_at_the_right_attempt(h):
    app = h.make_app(SAMPLES / "transient_retry.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("B")
        await h.settle(pilot, lambda: isinstance(app.screen, DataBreakpointScreen))
        box = app.screen.query_one(Input)
        box.value = "{phase.attempt} >="
        await pilot.pause()
        feedback = str(app.screen.query_one("#databreak-feedback").render())
        assert "✗ unexpected end (at column 19)" in feedback
        await pilot.press("enter")  # refused: the modal stays
        assert isinstance(app.screen, DataBreakpointScreen)
        box.value = "{phase.attempt} >= 2"
        await pilot.pause()
        assert "✓ syntax OK" in str(app.screen.query_one("#databreak-feedback").render())
        await pilot.press("enter")
        await h.settle(pilot, lambda: not isinstance(app.screen, DataBreakpointScreen))
        assert "stop when {phase.attempt} >= 2" in _header(app)
        await pilot.press("c")
        await h.settle(pilot, lambda: app.state.paused is not None)
        paused = app.state.paused
        assert (paused.phase_id, paused.attempt, paused.why) == ("fetch", 1, "data-breakpoint")
        assert "paused at fetch: attempt 2 (data-breakpoint)" in _header(app)
        # removable: the same expression again removes it; the run then finishes without stopping
        await pilot.press("B")
        await h.settle(pilot, lambda: isinstance(app.screen, DataBreakpointScreen))
        assert "{phase.attempt} >= 2" in str(app.screen.query_one("#databreak-list").render())
        app.screen.query_one(Input).value = "{phase.attempt} >= 2"
        await pilot.press("enter")
        await h.settle(pilot, lambda: not isinstance(app.screen, DataBreakpointScreen))
        assert "stop when" not in _header(app) and app.ctl.data_breakpoints == []
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


async def test_data_breakpoint_on_gate_verdict(h, tmp_path):
    _flow, _runner, app = _block_app(h, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.ctl.add_data_breakpoint("{gate.verdict} == block") is None
        await pilot.press("c")
        await h.settle(pilot, lambda: app.state.paused is not None)
        assert app.state.paused.phase_id == GATE and app.state.paused.why == "data-breakpoint"
        app.ctl.stop()
        await h.settle(pilot, lambda: not app.ctl.running)


# -- snapshots -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_gate_tab_snapshot(h, snap_compare, size):
    app = h.make_app(SAMPLES / "validate_judge.json")

    async def run_before(pilot) -> None:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase(GATE)
        app.query_one(PhaseDetail).active = "gate"
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        app.query_one("#log").scroll_end(animate=False, immediate=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_what_if_buttons_and_hint_fit_at_80x24(h):
    app = h.make_app(SAMPLES / "validate.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await _run_and_show(pilot, h, app, GATE, "gate")
        screen = await _open_what_if(pilot, h, app)
        await pilot.pause()
        # each of these is what a user needs to leave or save: on screen, not clipped off the box
        for selector in ("#close", "#write", ".modal-hint", ".modal-title"):
            widget = screen.query_one(selector)
            region = widget.region
            assert region.height > 0 and region.bottom <= 24, selector
            hit, _ = screen.get_widget_at(region.x + 1, region.y + region.height // 2)
            assert hit is widget or widget in hit.ancestors, selector
