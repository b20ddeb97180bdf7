"""What-if on score gates: zero tokens, verdict flips, judge reuse only for identical prompts."""

from __future__ import annotations

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.gate_history import gate_records
from tftui.engine.statectx import context_from_state
from tftui.engine.whatif import ScoreOverrides, what_if_gate
from tftui.present.gates import arithmetic_line
from tftui.present.whatif_text import after_line, before_line, estimate_line, summary
from tftui.scoring.gate import evaluate_gate

WEIGHTED = {
    "phases": [
        {"id": "gen", "task": "write"},
        {
            "id": "g",
            "type": "gate",
            "dependsOn": ["gen"],
            "score": {
                "target": "{steps.gen.output}",
                "scorers": [
                    {"type": "contains", "value": "alpha", "name": "has-alpha"},
                    {"type": "contains", "value": "beta", "name": "has-beta"},
                ],
                "combine": "weighted",
                "weights": [0.6, 0.4],
                "threshold": 0.5,
            },
        },
    ]
}


async def _weighted_run(tools):
    flow, result, _ = await tools.run_dict(WEIGHTED, {"gen": "alpha only"})
    assert result.phases["g"].gate["verdict"] == "pass"
    return flow, result


async def test_threshold_flip_zero_tokens(tools, monkeypatch):
    flow, result = await _weighted_run(tools)

    async def forbidden(*args, **kwargs):
        pytest.fail("what-if made a model call")

    monkeypatch.setattr("tftui.scoring.gate._call", forbidden)
    monkeypatch.setattr(ScriptedRunner, "run", forbidden)
    tokens_before = dict(result.state.usage)
    phase = flow.phase("g")
    previous = gate_records(result.events, "g", flow)[-1]
    ctx = context_from_state(flow, result.state, "g")
    out = what_if_gate(phase, ctx, ScoreOverrides(threshold=0.7), previous=previous)
    assert (out.before_verdict, out.after_verdict, out.flips) == ("pass", "block", True)
    assert out.after_source == "score" and not out.needs_llm
    assert before_line(out) == "combined 0.60 = (0.6·1 + 0.4·0)/1.0 ≥ threshold 0.50 → pass"
    assert after_line(out).startswith("combined 0.60 = (0.6·1 + 0.4·0)/1.0 < threshold 0.70 → fail")
    assert summary(out) == "verdict flips: pass → block (score)"
    # a weight change the other way keeps it passing; nothing in the flow object changed
    same = what_if_gate(phase, ctx, ScoreOverrides(weights={0: 0.9, 1: 0.1}), previous=previous)
    assert (same.after_verdict, same.flips, same.weights) == ("pass", False, [0.9, 0.1])
    assert phase.score["threshold"] == 0.5 and phase.score["weights"] == [0.6, 0.4]
    assert result.state.usage == tokens_before


async def test_scorer_value_override_and_shape_errors(tools):
    flow, result = await _weighted_run(tools)
    phase, ctx = flow.phase("g"), context_from_state(flow, result.state, "g")
    out = what_if_gate(phase, ctx, ScoreOverrides(scorers={0: {"value": "zeta"}}))
    assert out.after_verdict == "block" and out.flips is True  # baseline re-decided without `previous`
    assert [r.passed for r in out.results] == [False, False]
    bad = what_if_gate(phase, ctx, ScoreOverrides(threshold=1.5))
    assert bad.errors == ["score.threshold: must be a number in (0, 1]"] and bad.after_verdict is None
    assert summary(bad).startswith("invalid: score.threshold")


async def test_validate_judge_what_ifs(tools):
    flow, result, _ = await tools.run_sample("validate_judge")
    phase = flow.phase("check-response")
    previous = gate_records(result.events, "check-response", flow)[-1]
    ctx = context_from_state(flow, result.state, "check-response")
    # unchanged: the judge prompt would be identical, so the recorded judge reply is reused
    same = what_if_gate(phase, ctx, ScoreOverrides(), previous=previous)
    assert same.reused_reply and not same.needs_llm and same.after_verdict == "pass" and same.flips is False
    assert after_line(same) == arithmetic_line(previous)
    # lower threshold: the lower bound clears it, the judge is skipped
    low = what_if_gate(phase, ctx, ScoreOverrides(threshold=0.5), previous=previous)
    assert (low.after_verdict, low.after_source, low.flips) == ("pass", "score", False)
    assert after_line(low) == (
        "early cutoff: lower bound 0.50 = (0.2·1 + 0.3·0 + 0.4·1 + 0.1·1)/(1.0 + 0.4 judge) ≥ 0.50, judge skipped"
    )
    # higher threshold: the report in the judge prompt changes, so the judge would be asked
    high = what_if_gate(phase, ctx, ScoreOverrides(threshold=0.8), previous=previous)
    assert high.needs_llm and high.after_verdict is None and high.flips is None
    assert high.llm_node_path == "check-response#judge"
    assert "(threshold 0.8)" in high.llm_prompt and high.llm_prompt != previous.judge_prompt
    assert high.estimate_verdict == "block"
    assert "< threshold 0.80 → block" in estimate_line(high)


async def test_previous_as_gate_outcome(tools):
    flow, result, _ = await tools.run_sample("validate_judge")
    phase = flow.phase("check-response")
    ctx = context_from_state(flow, result.state, "check-response")
    judge_reply = result.state.phases["check-response"].output
    outcome = await evaluate_gate(phase, ctx, ScriptedRunner({"check-response#judge": judge_reply}))
    out = what_if_gate(phase, ctx, ScoreOverrides(), previous=outcome)
    assert out.reused_reply and out.after_verdict == outcome.verdict == "pass"
    assert before_line(out) == outcome.arithmetic


async def test_eval_pass_unresolved_target_and_task_fallback(tools):
    data = {
        "phases": [
            {"id": "gen", "task": "write"},
            {"id": "e", "type": "gate", "dependsOn": ["gen"], "eval": ["{steps.gen.output} contains ok"],
             "score": {"target": "{steps.gen.output}", "scorers": [{"type": "contains", "value": "zz"}]}},
            {"id": "u", "type": "gate", "dependsOn": ["gen"],
             "score": {"target": "{steps.nope.output}", "scorers": [{"type": "contains", "value": "zz"}]}},
            {"id": "t", "type": "gate", "dependsOn": ["gen"], "task": "judge {steps.gen.output}",
             "score": {"target": "{steps.gen.output}", "scorers": [{"type": "contains", "value": "ok"}]}},
        ]
    }
    flow, result, _ = await tools.run_dict(data, {"gen": "ok then", "t": "VERDICT: BLOCK"})
    ctx = lambda pid: context_from_state(flow, result.state, pid)  # noqa: E731
    ev_out = what_if_gate(flow.phase("e"), ctx("e"), ScoreOverrides(scorers={0: {"value": "ok"}}))
    assert (ev_out.after_verdict, ev_out.after_source) == ("pass", "eval")
    un = what_if_gate(flow.phase("u"), ctx("u"), ScoreOverrides(scorers={0: {"value": "ok"}}))
    assert (un.after_verdict, un.after_source) == ("pass", "fail-open") and "steps.nope.output" in after_line(un)
    # task fallback: scorers pass now (no LLM); making them fail again needs the gate task
    prev = gate_records(result.events, "t", flow)[-1]
    assert prev.verdict == "pass" and prev.source == "score"
    fail = what_if_gate(flow.phase("t"), ctx("t"), ScoreOverrides(scorers={0: {"value": "zz"}}), previous=prev)
    assert fail.needs_llm and fail.llm_node_path == "t" and fail.flips is None
    assert fail.llm_prompt.startswith("judge ok then\n\n---\n\n## Deterministic scorer report\n- [FAIL]")


async def test_combine_mode_what_if_keeps_the_block_valid_and_writes_it(tools):
    import json

    from tftui.engine.whatif import apply_score_edit_to_source
    from tftui.tui.screens.whatif import form_fields, overrides_from_form

    flow, result = await _weighted_run(tools)  # "alpha only": 1 of 2 scorers passes
    phase = flow.phase("g")
    score = phase.score
    previous = gate_records(result.events, "g", flow)[-1]
    ctx = context_from_state(flow, result.state, "g")
    assert ("combine", "combine (all/any/weighted)", "weighted") in form_fields(score)

    # weighted -> all: every scorer must pass now, and weights/threshold leave the block.
    ov, errors = overrides_from_form(score, {"combine": "all", "threshold": "0.9"})
    assert errors == [] and ov.removed == ("weights", "threshold") and ov.threshold is None
    out = what_if_gate(phase, ctx, ov, previous=previous)
    assert out.errors == [] and (out.before_verdict, out.after_verdict) == ("pass", "block")
    text = json.dumps(WEIGHTED, indent=2)
    written = json.loads(apply_score_edit_to_source(text, "g", ov).text)["phases"][1]["score"]
    assert written["combine"] == "all" and "weights" not in written and "threshold" not in written

    # any: one passing scorer is enough.
    ov, _ = overrides_from_form(score, {"combine": "any"})
    assert what_if_gate(phase, ctx, ov, previous=previous).after_verdict == "pass"

    # all -> weighted on a block without weights: equal weights are filled in (and written whole).
    plain = {**score, "combine": "all"}
    plain.pop("weights"), plain.pop("threshold")
    ov, errors = overrides_from_form(plain, {"combine": "weighted"})
    assert errors == [] and ov.new_weights == [1, 1]
    assert ov.apply(plain)["weights"] == [1, 1]
    edited = {**WEIGHTED, "phases": [WEIGHTED["phases"][0], {**WEIGHTED["phases"][1], "score": plain}]}
    rewritten = json.loads(apply_score_edit_to_source(json.dumps(edited, indent=2), "g", ov).text)
    assert rewritten["phases"][1]["score"]["weights"] == [1, 1]
    assert rewritten["phases"][1]["score"]["combine"] == "weighted"

    ov, errors = overrides_from_form(score, {"combine": "most"})
    assert errors == ["combine: 'most' must be one of all|any|weighted"] and ov.empty


async def test_context_preread_is_kept_in_the_prompts_what_if_reuses_and_would_send(tools):
    data = {
        "phases": [
            {"id": "gen", "task": "write"},
            {"id": "g", "type": "gate", "dependsOn": ["gen"], "context": ["{steps.gen.output}"],
             "score": {"target": "{steps.gen.output}", "combine": "weighted", "weights": [1, 1], "threshold": 0.8,
                       "scorers": [{"type": "contains", "value": "alpha"}],
                       "judge": {"task": "Is it good?"}}},
        ]
    }
    flow, result, _ = await tools.run_dict(data, {"gen": "alpha beta", "g#judge": '{"score": 0.9}'})
    previous = gate_records(result.events, "g", flow)[-1]
    assert previous.source == "judge" and previous.judge_prompt.startswith("## Context: {steps.gen.output}")
    ctx = context_from_state(flow, result.state, "g")
    same = what_if_gate(flow.phase("g"), ctx, ScoreOverrides(), previous=previous)
    assert same.reused_reply and same.after_verdict == previous.verdict == "pass"
    higher = what_if_gate(flow.phase("g"), ctx, ScoreOverrides(threshold=0.99), previous=previous)
    assert higher.needs_llm and higher.llm_prompt != previous.judge_prompt
    prefix = previous.judge_prompt[: previous.judge_prompt.index("Is it good?")]
    assert prefix and higher.llm_prompt.startswith(prefix + "Is it good?")
    assert higher.estimate_verdict == "block"  # (1 + 0.9) / 2 = 0.95 < 0.99
