"""Gate history records from real runs: per attempt, per onBlock round, per debugger re-run."""

from __future__ import annotations

import asyncio
import json

from tftui.engine import events as ev
from tftui.engine.debugger import Debugger
from tftui.engine.gate_history import GateHistoryBuilder, gate_history, gate_records, records_from_state
from tftui.present.gates import arithmetic_line, evaluation_label, verdict_line


async def test_validate_judge_record(tools):
    flow, result, _ = await tools.run_sample("validate_judge")
    records = gate_records(result.events, "check-response", flow)
    assert len(records) == 1
    rec = records[0]
    assert (rec.verdict, rec.source, rec.round, rec.run, rec.status) == ("pass", "judge", 0, 0, "done")
    judge_called = [e for e in result.events if isinstance(e, ev.JudgeCalled)]
    assert rec.judge_prompt == judge_called[0].prompt
    replies = json.loads((tools.SAMPLES / "validate_judge.replies.json").read_text(encoding="utf-8"))
    assert rec.judge_reply == replies["check-response#judge"][0]["output"]
    assert [(r.name, r.passed, r.weight) for r in rec.rows] == [
        ("has-status-field", True, 0.2),
        ("status-is-success", False, 0.3),
        ("valid-schema", True, 0.4),
        ("reasonable-length", True, 0.1),
    ]
    assert rec.rows[1].detail.endswith("did not match")
    assert arithmetic_line(rec) == (
        "combined 0.76 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·1 + 0.4·0.90 judge)/1.4 ≥ threshold 0.70 → pass"
    )
    assert rec.threshold == 0.7 and rec.stage == "judge-weighted"
    assert [c.node_path for c in rec.calls] == ["check-response#judge"]
    # without the flow the line comes from the recorded figures alone
    bare = gate_records(result.events, "check-response")[0]
    assert arithmetic_line(bare) == "3/4 scorers passed; combined 0.76 ≥ threshold 0.70 [judge-weighted] → judge → pass"


async def test_early_cutoff_line(tools):
    replies = json.loads((tools.SAMPLES / "validate_judge.replies.json").read_text(encoding="utf-8"))
    replies["generate"][0]["output"] = replies["generate"][0]["output"].replace('"ok"', '"success"')
    flow, result, _ = await tools.run_sample("validate_judge", replies=replies)
    rec = gate_records(result.events, "check-response", flow)[0]
    assert (rec.verdict, rec.source, rec.judge_prompt) == ("pass", "score", None)
    assert arithmetic_line(rec) == (
        "early cutoff: lower bound 0.71 = (0.2·1 + 0.3·1 + 0.4·1 + 0.1·1)/(1.0 + 0.4 judge) ≥ 0.70, judge skipped"
    )


async def test_onblock_rounds(tools):
    flow, result, _ = await tools.run_sample("onblock_rework")
    records = gate_records(result.events, "quality", flow)
    assert [(r.round, r.verdict, r.source) for r in records] == [(0, "block", "task"), (1, "pass", "task")]
    assert records[0].rerun == [] and records[1].rerun == ["implement"]
    # each round's task prompt carries that round's upstream output
    assert "def test_slugify" not in records[0].task_prompt
    assert "def test_slugify" in records[1].task_prompt
    assert records[1].task_reply.endswith("VERDICT: PASS")
    assert evaluation_label(records[1]) == "round 1" and evaluation_label(records[0]) == "first evaluation"


async def test_retried_judge_attempts_and_failed_gate(tools):
    gate = {
        "id": "g",
        "type": "gate",
        "dependsOn": ["gen"],
        "score": {
            "target": "{steps.gen.output}",
            "scorers": [{"type": "contains", "value": "x"}],
            "judge": {"task": "judge it"},
        },
    }
    data = {"phases": [{"id": "gen", "task": "w"}, gate]}
    replies = {"gen": "nothing", "g#judge": [{"error": "503 service unavailable"}, '{"score": 0.2, "verdict": "block"}']}
    flow, result, _ = await tools.run_dict(data, replies)
    rec = gate_records(result.events, "g", flow)[0]
    assert [(c.attempt, c.error is None, c.transient) for c in rec.calls] == [(0, False, True), (1, True, False)]
    assert rec.verdict == "block" and rec.judge_reply == '{"score": 0.2, "verdict": "block"}'
    assert arithmetic_line(rec) == "all: 0/1 scorers passed → combined 0; judge verdict block (score 0.20) decides → block"
    failing = {"gen": "nothing", "g#judge": {"error": "bad request"}}
    flow, result, _ = await tools.run_dict(data, failing)
    rec = gate_records(result.events, "g", flow)[0]
    assert rec.status == "failed" and rec.verdict is None and rec.error == "bad request"
    assert verdict_line(rec) == "FAILED — bad request"


async def test_rerun_adds_a_record_and_state_fallback(tools):
    dbg = Debugger()
    flow, result, runner = await tools.run_sample("onblock_rework", debugger=dbg)
    await asyncio.wait_for(dbg.rerun_gate("quality"), 10)
    events = dbg.run.events
    records = gate_records(events, "quality", flow)
    assert [(r.run, r.round, r.verdict) for r in records] == [(0, 0, "block"), (0, 1, "pass"), (1, 0, "pass")]
    assert evaluation_label(records[2]) == "re-run 1 · first evaluation"
    # incremental feeding gives the same records as the batch function
    builder = GateHistoryBuilder(flow)
    for e in events:
        builder.feed(e)
    assert builder.records("quality") == gate_history(events, flow)["quality"]
    # from the folded state only the latest run is left
    latest = records_from_state(dbg.run.state.phases["quality"], flow)
    assert [(r.round, r.verdict, r.source) for r in latest] == [(0, "pass", "task")]
