"""The gate decision pipeline with a fake runner: which calls happen, with which prompts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tftui.agent_types import AgentRequest, AgentResult, Usage
from tftui.flow.model import GatePhase
from tftui.lang.interpolate import Context, StepView
from tftui.lang.values import MISSING
from tftui.lang.verdict import JUDGE_UNPARSEABLE
from tftui.scoring.gate import (
    BLOCK_OUTPUT,
    EVAL_PASS_OUTPUT,
    GATE_FORMAT_SUFFIX,
    SCORE_PASS_OUTPUT,
    UNRESOLVED_OUTPUT,
    evaluate_gate,
    gate_format_suffix,
)

GOOD = '{"status": "success", "data": {"users": []}, "message": "ok"}'
BAD = '{"status": "error", "message": "x"}'
SEED_SCORERS = [
    {"type": "contains", "value": '"status"', "name": "has-status-field"},
    {"type": "regex", "pattern": '"status"\\s*:\\s*"success"', "name": "status-is-success"},
    {
        "type": "json-schema",
        "schema": {"type": "object", "required": ["status", "data"]},
        "name": "valid-schema",
    },
    {"type": "length-range", "min": 50, "max": 5000, "name": "reasonable-length"},
]


class FakeRunner:
    def __init__(self, replies: dict[str, Any] | None = None) -> None:
        self.replies = replies or {}
        self.requests: list[AgentRequest] = []

    async def run(self, request: AgentRequest) -> AgentResult:
        self.requests.append(request)
        reply = self.replies.get(request.node_path, "VERDICT: PASS")
        if isinstance(reply, AgentResult):
            return reply
        return AgentResult(output=reply, usage=Usage(input=10, output=2))


def gate(**fields: Any) -> GatePhase:
    return GatePhase.model_validate({"id": "g", "type": "gate", "dependsOn": ["gen"], **fields})


def ctx(output: str = GOOD) -> Context:
    return Context(args={}, steps={"gen": StepView(output=output)}, previous_output=output)


def seed_score(**extra: Any) -> dict:
    return {
        "target": "{steps.gen.output}",
        "scorers": SEED_SCORERS,
        "combine": "weighted",
        "weights": [0.2, 0.3, 0.4, 0.1],
        "threshold": 0.7,
        **extra,
    }


JUDGE = {"agent": "reviewer", "task": "Is this a reasonable API response even if some checks failed?"}


async def test_scorers_pass_judge_never_called() -> None:
    runner = FakeRunner()
    out = await evaluate_gate(
        gate(score=seed_score(judge=JUDGE, weights=[0.2, 0.3, 0.4, 0.1, 0.1])), ctx(), runner
    )
    assert runner.requests == []
    assert (out.status, out.verdict, out.source, out.output) == ("done", "pass", "score", SCORE_PASS_OUTPUT)
    assert out.json["verdict"] == "pass" and out.json["threshold"] == 0.7 and "judge" not in out.json
    assert out.combined is not None and out.combined.stage == "early-cutoff" and not out.combined.judge_ran
    assert out.arithmetic.startswith("early cutoff: lower bound 0.91")
    assert out.prompts == [] and out.usage == []


async def test_early_cutoff_with_a_failing_scorer() -> None:
    # regex fails: lower bound (0.2 + 0.4 + 0.1) / (1.0 + 0.001) = 0.699 ≥ 0.69 → the judge is not needed
    target = '{"status": "pending", "data": {"users": [1, 2, 3]}, "message": "fine"}'
    runner = FakeRunner()
    score = seed_score(judge=JUDGE, weights=[0.2, 0.3, 0.4, 0.1, 0.001], threshold=0.69)
    out = await evaluate_gate(gate(score=score), ctx(target), runner)
    assert runner.requests == []
    assert out.combined.stage == "early-cutoff" and out.verdict == "pass"
    assert [r.passed for r in out.scores.results] == [True, False, True, True]


async def test_failing_scorers_ask_the_judge_with_task_and_report() -> None:
    runner = FakeRunner({"g#judge": '{"score": 0.8, "verdict": "pass", "reason": "close enough"}'})
    phase = gate(score=seed_score(judge=JUDGE, weights=[0.2, 0.3, 0.4, 0.1, 1]), agent="executor")
    out = await evaluate_gate(phase, ctx(BAD), runner, preread="CTX\n\n")
    assert [r.node_path for r in runner.requests] == ["g#judge"]
    assert runner.requests[0].agent == "reviewer"
    expected = (
        "CTX\n\nIs this a reasonable API response even if some checks failed?\n\n---\n\n"
        "## Target under evaluation\n```\n" + BAD + "\n```\n\n"
        "## Deterministic scorer report\n"
        "- [PASS] has-status-field (contains)\n"
        '- [FAIL] status-is-success (regex): /"status"\\s*:\\s*"success"/ did not match\n'
        "- [FAIL] valid-schema (json-schema): $.data: required key is missing\n"
        "- [FAIL] reasonable-length (length-range): length 35 outside [50, 5000]\n"
        "Combined score: 0.100 (threshold 0.7)\n\n"
        'Return JSON {"score": 0.0-1.0, "verdict": "pass"|"block", "reason": "..."} (or end with VERDICT: PASS|BLOCK).'
    )
    assert runner.requests[0].task == expected
    assert out.prompts == [("g#judge", expected)]
    # weighted merge: (0.2·1 + 0 + 0 + 0 + 1·0.8) / 2.0 = 0.5 < 0.7 → block although the judge said pass
    assert out.source == "judge" and out.verdict == "block" and out.output.startswith('{"score": 0.8')
    assert out.combined.stage == "judge-weighted" and out.json["combined"] == 0.5
    assert out.json["judge"] == {"score": 0.8, "reason": "close enough"}
    assert out.judge.raw.startswith("{") and out.judge.parsed
    assert (
        out.arithmetic
        == "combined 0.50 = (0.2·1 + 0.3·0 + 0.4·0 + 0.1·0 + 1.0·0.80 judge)/2.0 < threshold 0.70 → block"
    )
    assert out.usage == [("g#judge", Usage(input=10, output=2))]


async def test_judge_fence_cannot_be_closed_by_the_target() -> None:
    runner = FakeRunner({"g#judge": "VERDICT: PASS"})
    target = "text ```js\ncode\n``` more"
    phase = gate(score={"scorers": [{"type": "contains", "value": "DONE"}], "judge": {"task": "judge"}})
    out = await evaluate_gate(phase, ctx(target), runner)
    sent = runner.requests[0].task
    assert "```js" not in sent and "`\u200b``js\ncode\n`\u200b`` more\n```\n\n" in sent
    assert out.verdict == "pass" and out.source == "judge" and runner.requests[0].agent == "default"
    # all/any: the judge's verdict decides and `combined` is the judge score
    assert out.json["combined"] == 1 and out.combined.stage == "judge-authoritative"


async def test_unparseable_judge_output_passes_fail_open() -> None:
    runner = FakeRunner({"g#judge": "I am not sure what to say."})
    phase = gate(score={"scorers": [{"type": "contains", "value": "DONE"}], "judge": {"task": "judge"}})
    out = await evaluate_gate(phase, ctx("draft"), runner)
    assert out.verdict == "pass" and out.reason == JUDGE_UNPARSEABLE
    assert JUDGE_UNPARSEABLE in out.warnings
    assert out.judge.parsed is False and out.judge.score == 1
    assert out.json["judge"] == {"score": 1.0, "reason": JUDGE_UNPARSEABLE}


async def test_judge_call_failure_fails_the_gate() -> None:
    runner = FakeRunner({"g#judge": AgentResult(error="503 service unavailable", exit_code=1)})
    phase = gate(score={"scorers": [{"type": "contains", "value": "DONE"}], "judge": {"task": "judge"}})
    out = await evaluate_gate(phase, ctx("draft"), runner)
    assert (out.status, out.verdict, out.error) == ("failed", None, "503 service unavailable")


async def test_task_fallback_matches_the_conformance_prompt() -> None:
    flows = json.loads((Path(__file__).resolve().parents[1] / "conformance" / "flows.json").read_text())
    case = next(c for c in flows["cases"] if c["id"] == "score-fail-task-fallback")
    spec = next(p for p in case["input"]["flow"]["phases"] if p["id"] == "g")
    output = case["input"]["script"]["gen"][0]["output"]
    runner = FakeRunner({"g": "VERDICT: PASS"})
    out = await evaluate_gate(GatePhase.model_validate(spec), ctx(output), runner)
    assert [r.task for r in runner.requests] == case["tasks_sent"]["g"]
    expected = case["expect"]["phases"]["g"]
    assert out.output == expected["output"] and out.json == expected["json"]
    assert out.scores.to_json() == expected["gate"]["scores"] and out.source == "task"


async def test_deterministic_block_without_judge_or_task() -> None:
    runner = FakeRunner()
    out = await evaluate_gate(
        gate(score={"scorers": [{"type": "contains", "value": "DONE"}]}), ctx("draft"), runner
    )
    assert runner.requests == []
    assert out.verdict == "block" and out.reason == "deterministic scorers below threshold"
    assert out.output == (
        f"{BLOCK_OUTPUT}\n\n## Deterministic scorer report\n"
        '- [FAIL] contains-0 (contains): target does not contain "DONE"\nCombined score: 0.000'
    )
    assert out.json == {"verdict": "block", "combined": 0, "results": [out.scores.results[0].to_json()]}


async def test_unresolved_target_fails_open() -> None:
    runner = FakeRunner()
    score = {"target": "{steps.gen.json.response}", "scorers": [{"type": "contains", "value": "x"}]}
    out = await evaluate_gate(gate(score=score), ctx("not json"), runner)
    assert runner.requests == []
    assert (out.verdict, out.source, out.output) == ("pass", "fail-open", UNRESOLVED_OUTPUT)
    assert out.reason == "score.target unresolved: steps.gen.json.response"
    assert out.warnings == ["gate score.target did not resolve (steps.gen.json.response) — fail-open PASS"]
    assert out.json == {"verdict": "pass", "combined": 0, "results": []}


async def test_unresolved_target_goes_to_the_judge_when_there_is_one() -> None:
    runner = FakeRunner({"g#judge": "VERDICT: BLOCK"})
    score = {
        "target": "{steps.nope.output}",
        "scorers": [{"type": "contains", "value": "x"}],
        "judge": {"task": "J"},
    }
    out = await evaluate_gate(gate(score=score), ctx(), runner)
    assert "(scorers skipped — score.target did not resolve: steps.nope.output)" in runner.requests[0].task
    assert out.verdict == "block" and out.json["results"] == []


async def test_eval_fast_path_makes_no_call() -> None:
    runner = FakeRunner()
    phase = gate(eval=['{steps.gen.output} contains "status"'], task="Check it")
    out = await evaluate_gate(phase, ctx(), runner)
    assert runner.requests == [] and out.source == "eval" and out.output == EVAL_PASS_OUTPUT
    assert out.json is MISSING and out.eval_checks[0].passed


async def test_failed_eval_falls_through_to_score_and_skip_eval() -> None:
    runner = FakeRunner()
    phase = gate(
        eval=["{steps.gen.output} contains NOPE"],
        score={"scorers": [{"type": "contains", "value": "status"}]},
    )
    out = await evaluate_gate(phase, ctx(), runner)
    assert out.source == "score" and out.verdict == "pass" and not out.eval_checks[0].passed
    again = await evaluate_gate(phase, ctx(), runner, skip_eval=True)
    assert again.eval_checks == [] and again.source == "score"


async def test_plain_task_gate_appends_the_suffix_once() -> None:
    runner = FakeRunner({"g": "Looks bad.\nVERDICT: BLOCK"})
    out = await evaluate_gate(gate(task="Review {steps.gen.output}"), ctx("X"), runner, preread="P ")
    assert runner.requests[0].task == "P Review X" + GATE_FORMAT_SUFFIX
    assert out.verdict == "block" and out.source == "task"
    runner = FakeRunner({"g": "ok"})
    out = await evaluate_gate(gate(task="Is it fine? VERDICT: PASS or VERDICT: BLOCK."), ctx(), runner)
    assert runner.requests[0].task.endswith("VERDICT: BLOCK.")
    assert out.verdict == "pass" and out.reason == "unparseable gate verdict (fail-open)"


def test_suffix_rules() -> None:
    assert gate_format_suffix("verdict = x", gate(task="t")) == ""
    assert gate_format_suffix("t", gate(task="t", output="json", expect={"type": "object"})) == ""
    assert gate_format_suffix("t", gate(task="t", output="json")) == GATE_FORMAT_SUFFIX


async def test_malformed_score_is_ignored_with_a_warning() -> None:
    runner = FakeRunner({"g": "VERDICT: PASS"})
    out = await evaluate_gate(gate(score={"scorers": []}, task="T"), ctx(), runner)
    assert out.warnings == [
        "gate 'score' is malformed and was ignored: score.scorers: must be a non-empty array of scorers"
    ]
    assert out.source == "task" and [r.node_path for r in runner.requests] == ["g"]


async def test_unresolved_refs_in_the_task_become_a_warning() -> None:
    runner = FakeRunner({"g": "VERDICT: PASS"})
    out = await evaluate_gate(gate(task="Check {steps.missing.output}"), ctx(), runner)
    assert out.warnings and out.warnings[0].startswith("unresolved refs in task: {steps.missing.output}")


async def test_code_compiles_runs_in_the_pipeline() -> None:
    runner = FakeRunner()
    score = {"scorers": [{"type": "code-compiles", "language": "python"}]}
    out = await evaluate_gate(gate(score=score), ctx("```python\nx = 1\n```"), runner)
    assert out.verdict == "pass"
    out = await evaluate_gate(gate(score=score), ctx("def f(:\n"), runner)
    assert out.verdict == "block" and "SyntaxError" in out.scores.results[0].detail


async def test_onblock_round_of_a_plain_gate_reruns_only_the_task() -> None:
    runner = FakeRunner({"g": "VERDICT: BLOCK"})
    phase = gate(eval=["{steps.gen.output} contains status"], task="Check")
    first = await evaluate_gate(phase, ctx(), runner)
    assert first.source == "eval" and runner.requests == []
    again = await evaluate_gate(phase, ctx(), runner, skip_eval=True)
    assert (
        again.source == "task"
        and again.verdict == "block"
        and [r.node_path for r in runner.requests] == ["g"]
    )
