"""The debugger's answers equal what the engine then does, on every flow of sample_flows/
(with each of its replies files), of the conformance flows and of the corpus flows
(tests/conformance/corpus/, each of their reply scenarios) that have a gate or a `when` guard:

- what-if on a gate with unchanged parameters reproduces each recorded evaluation (verdict,
  combined score, source); with an edited threshold or weight it equals a real run of the
  edited flow file, or says which model call it would make exactly when that run makes one
  whose prompt was not recorded;
- the guard preview's run/skip list equals what the engine does once the guard is applied.
"""

from __future__ import annotations

import asyncio
import atexit
import copy
import importlib.util
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tftui.agents.scripted import MarkerRunner, ScriptedRunner
from tftui.engine.admission import reachability_preview
from tftui.engine.clock import InstantClock
from tftui.engine.debugger import Debugger
from tftui.engine.events import Event
from tftui.engine.gate_history import GateRecord, gate_records
from tftui.engine.resume import guard_rerun
from tftui.engine.run import RunResult, run_flow
from tftui.engine.state import RunState, fold
from tftui.engine.statectx import context_from_state
from tftui.engine.whatif import (
    RecordedCalls,
    ScoreOverrides,
    WouldCall,
    apply_score_edit_to_source,
    what_if_gate,
)
from tftui.flow.graph import Dag
from tftui.flow.load import load_flow_text
from tftui.flow.model import Flow
from tftui.present.gates import evaluation_label
from tftui.run_service import seed

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_flows"
CONFORMANCE_FLOWS = ROOT / "tests" / "conformance" / "flows.json"

# The corpus runner (its README's replies contract), loaded by path as tests/conformance/test_corpus.py does.
_spec = importlib.util.spec_from_file_location("corpus_harness", ROOT / "tests" / "conformance" / "corpus_harness.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


async def _no_wait(_seconds: float) -> None:
    return None


@dataclass
class FlowCase:
    id: str
    text: str  # the flow file's text (conformance flows: their JSON)
    make_runner: Callable[[], Any]  # a fresh runner, replies from the start
    args: dict[str, Any] | None = None
    flow_path: str | None = None  # where the text lives (sub-flows and context files resolve from it)

    def load(self, text: str | None = None) -> Flow:
        text = self.text if text is None else text
        if self.flow_path is None:  # conformance flows: as the conformance tests build them
            return Flow.model_validate(json.loads(text))
        loaded = load_flow_text(text, self.flow_path)
        assert loaded.flow is not None, [d.message for d in loaded.diagnostics if d.severity == "error"]
        return loaded.flow

    async def run(self, text: str | None = None, **kw: Any) -> tuple[Flow, RunResult]:
        flow = self.load(text)
        result = await run_flow(
            flow, args=self.args, runner=kw.pop("runner", None) or self.make_runner(), clock=InstantClock(),
            keep_events=True, flow_path=self.flow_path, **kw,
        )
        return flow, result


def _sample_cases() -> list[FlowCase]:
    out: list[FlowCase] = []
    for path in sorted(SAMPLES.glob("*.json")):
        if path.name.endswith(".replies.json"):
            continue
        replies = sorted(SAMPLES.glob(f"{path.stem}.replies.json")) + sorted(SAMPLES.glob(f"{path.stem}.*.replies.json"))
        for reply_file in replies:
            label = reply_file.name.removesuffix(".replies.json")
            out.append(
                FlowCase(
                    id=f"sample:{label}",
                    text=path.read_text(encoding="utf-8"),
                    make_runner=lambda f=reply_file: ScriptedRunner.from_file(f, sleep=_no_wait),
                    flow_path=str(path),
                )
            )
    return out


def _conformance_cases() -> list[FlowCase]:
    data = json.loads(CONFORMANCE_FLOWS.read_text(encoding="utf-8"))
    out: list[FlowCase] = []
    for case in data["cases"]:
        inp = case["input"]
        out.append(
            FlowCase(
                id=f"conformance:{case['id']}",
                text=json.dumps(inp["flow"], indent=2, ensure_ascii=False),
                make_runner=lambda s=inp.get("script") or {}: MarkerRunner(json.loads(json.dumps(s))),
                args=inp.get("args") or None,
            )
        )
    return out


def _corpus_cases() -> list[FlowCase]:
    """Every scenario of every corpus flow with a top-level gate or `when` guard, each run from its
    own `flow.json` in a fresh folder (script phases run there, as the corpus README says)."""
    work = Path(tempfile.mkdtemp(prefix="tftui-corpus-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    out: list[FlowCase] = []
    for vector in corpus.vectors():
        flow = vector.get("flow")
        phases = flow.get("phases") if isinstance(flow, dict) else None
        if not isinstance(phases, list) or not any(
            isinstance(p, dict) and (p.get("type") == "gate" or "when" in p) for p in phases
        ):
            continue
        text = corpus.flow_text(vector)
        for name, scenario in sorted((vector.get("scenarios") or {}).items()):
            folder = work / f"{vector['id']}-{name}"
            folder.mkdir()
            (folder / "flow.json").write_text(text, encoding="utf-8")
            out.append(
                FlowCase(
                    id=f"corpus:{vector['id']}:{name}",
                    text=text,
                    make_runner=lambda sc=scenario: corpus.CorpusRunner(
                        sc.get("replies") or {}, sc.get("default_replies") or []
                    ),
                    args=dict(vector.get("args") or {}) or None,
                    flow_path=str(folder / "flow.json"),
                )
            )
    return out


def all_cases() -> list[FlowCase]:
    return _sample_cases() + _conformance_cases()


CORPUS_CASES = _corpus_cases()


def phases_of(case: FlowCase, kind: Callable[[dict[str, Any]], bool]) -> list[tuple[FlowCase, str]]:
    """(case, phase id) for every top-level phase of the case's flow that `kind` accepts."""
    data = json.loads(case.text)
    return [(case, p["id"]) for p in data.get("phases", []) if isinstance(p, dict) and kind(p)]


def _is_gate(p: dict[str, Any]) -> bool:
    return p.get("type") == "gate"


def _is_score_gate(p: dict[str, Any]) -> bool:
    return p.get("type") == "gate" and "score" in p


def _by_flow(kind: Callable[[dict[str, Any]], bool]) -> list[tuple[list[FlowCase], str]]:
    """(every scenario of one corpus flow, phase id) for each phase `kind` accepts: a scenario in
    which the phase never ran (every first call fails) is checked with the others."""
    groups: dict[str, list[FlowCase]] = {}
    for case in CORPUS_CASES:
        groups.setdefault(case.id.rsplit(":", 1)[0], []).append(case)
    return [(cases, pid) for cases in groups.values() for _case, pid in phases_of(cases[0], kind)]


CASES = all_cases()
GATES = [item for case in CASES for item in phases_of(case, _is_gate)]
SCORE_GATES = [item for case in CASES for item in phases_of(case, _is_score_gate)]
CORPUS_GATES = _by_flow(_is_gate)
CORPUS_SCORE_GATES = _by_flow(_is_score_gate)


def _ids(item: tuple[FlowCase, str]) -> str:
    return f"{item[0].id}/{item[1]}"


def _context_at(flow: Flow, events: list[Event], record: GateRecord) -> Any:
    """What the gate saw when it was evaluated: the run folded up to its verdict."""
    return context_from_state(flow, fold(e for e in events if e.seq < record.seq), record.phase_id)


def _evaluations(flow: Flow, result: RunResult, gate: str) -> list[GateRecord]:
    assert result.events is not None
    return [r for r in gate_records(result.events, gate, flow) if r.status == "done"]


def _corpus_ids(item: tuple[list[FlowCase], str]) -> str:
    return f"{item[0][0].id.rsplit(':', 1)[0]}/{item[1]}"


def test_every_flow_has_gates_to_check():
    assert len(GATES) >= 10 and len(SCORE_GATES) >= 5  # the property below is not vacuous
    assert len(CORPUS_GATES) >= 10 and len(CORPUS_SCORE_GATES) >= 2


@pytest.mark.parametrize("item", GATES, ids=_ids)
async def test_what_if_unchanged_reproduces_every_evaluation(item):
    case, gate = item
    assert await _what_if_unchanged(case, gate), f"{gate} was never evaluated"


# Corpus gates that no scenario reaches, so there is no evaluation to re-decide (checked: each
# stays unevaluated in every scenario, or this list is out of date).
NEVER_EVALUATED = {
    "corpus:examples-conditional-research/review": "both guarded branches it joins (any) are skipped: triage's replies route to neither",
    "corpus:examples-guarded-refactor/review": "the approval before it is auto-rejected (no approver), which halts the run",
}


@pytest.mark.parametrize("item", CORPUS_GATES, ids=_corpus_ids)
async def test_what_if_unchanged_reproduces_every_corpus_evaluation(item):
    cases, gate = item
    evaluated = [await _what_if_unchanged(case, gate) for case in cases]
    if _corpus_ids(item) in NEVER_EVALUATED:
        assert sum(evaluated) == 0, "it is evaluated now: remove it from NEVER_EVALUATED"
    else:
        assert sum(evaluated), f"{gate} was never evaluated in any scenario"


async def _what_if_unchanged(case: FlowCase, gate: str) -> int:
    """Check every evaluation of `gate` in a run of `case`; how many there were."""
    flow, result = await case.run()
    records = _evaluations(flow, result, gate)
    if not records:
        return 0
    for record in records:
        ctx = _context_at(flow, result.events, record)
        out = what_if_gate(flow.phase(gate), ctx, ScoreOverrides(), previous=record)
        assert out.errors == [] and out.would_call is None
        assert (out.after_verdict, out.after_score, out.after_source) == (
            record.verdict, record.combined, record.source
        ), evaluation_label(record)
        assert out.flips is False
    final = result.phases[gate]
    assert final.gate is not None and final.gate["verdict"] == records[-1].verdict
    return len(records)


@st.composite
def _score_edits(draw: st.DrawFn, score: dict[str, Any]) -> ScoreOverrides:
    """A changed threshold and/or weight (a non-weighted block is switched to weighted first)."""
    slots = len(score.get("scorers") or []) + (1 if score.get("judge") is not None else 0)
    weight = st.sampled_from([0.1, 0.25, 0.5, 1, 2, 3]) | st.floats(0.05, 5, allow_nan=False)
    threshold = st.sampled_from([0.05, 0.3, 0.5, 0.6, 0.7, 0.8, 0.95, 1]) | st.floats(0.01, 1, allow_nan=False)
    ov = ScoreOverrides()
    if score.get("combine") != "weighted":
        ov.combine, ov.removed = "weighted", ()
        ov.new_weights = draw(st.lists(weight, min_size=slots, max_size=slots))
        ov.threshold = draw(threshold)
        return ov
    if draw(st.booleans()):
        ov.threshold = draw(threshold)
    weights = score.get("weights") if isinstance(score.get("weights"), list) else []
    if weights and (ov.threshold is None or draw(st.booleans())):
        ov.weights = {draw(st.integers(0, len(weights) - 1)): draw(weight)}
    if ov.empty:
        ov.threshold = draw(threshold)
    return ov


@pytest.mark.parametrize("item", SCORE_GATES, ids=_ids)
def test_what_if_edit_equals_a_real_run_of_the_edited_file(item):
    case, gate = item
    assert _what_if_edits(case, gate), f"{gate} was never evaluated"


@pytest.mark.parametrize("item", CORPUS_SCORE_GATES, ids=_corpus_ids)
def test_what_if_edit_equals_a_real_run_of_the_edited_corpus_file(item):
    cases, gate = item
    assert sum(_what_if_edits(case, gate) for case in cases), f"{gate} was never evaluated in any scenario"


def _what_if_edits(case: FlowCase, gate: str) -> bool:
    """Edited thresholds and weights of `gate` against real runs of the edited file; False when
    the gate was never evaluated in a run of `case`."""
    flow, result = asyncio.run(case.run())
    evaluations = _evaluations(flow, result, gate)
    if not evaluations:
        return False
    record = evaluations[0]  # the first evaluation: a fresh run repeats it
    ctx = _context_at(flow, result.events, record)
    recorded = RecordedCalls.of(record, gate)
    score = flow.phase(gate).score

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_score_edits(score))
    def check(ov: ScoreOverrides) -> None:
        out = what_if_gate(flow.phase(gate), ctx, ov, previous=record)
        assert out.errors == []
        edit = apply_score_edit_to_source(case.text, gate, ov)
        assert edit.error is None and edit.text is not None
        edited_flow, rerun = asyncio.run(case.run(edit.text))
        assert rerun.events is not None
        first = next(r for r in gate_records(rerun.events, gate, edited_flow) if r.round == 0)
        new_calls = [
            WouldCall(c.node_path, c.prompt) for c in first.calls if recorded.reply(c.node_path, c.prompt) is None
        ]
        if new_calls:  # the real run asked a model something it had not been asked before
            assert out.would_call == new_calls[0] and out.after_verdict is None
        else:
            assert out.would_call is None
            assert (out.after_verdict, out.after_score, out.after_source) == (
                first.verdict, first.combined, first.source
            )

    check()
    return True


# ---- the guard preview ----------------------------------------------------------------------

WHEN_PHASES = [item for case in CASES + CORPUS_CASES for item in phases_of(case, lambda p: "when" in p)]
# Editing a guard is possible on every phase (adding one where there is none).
ALL_PHASES = [item for case in CASES + CORPUS_CASES for item in phases_of(case, lambda p: True)]


def _variants(when: str | None) -> list[str | None]:
    """The guard as it is, removed, always true, always false, and negated."""
    out: list[str | None] = [when, None, "true", "false"]
    if when:
        out.append(f"!({when})")
    return out


async def _apply_guard(case: FlowCase, flow: Flow, state: RunState, phase_id: str, new_when: str | None):
    """What applying a guard in the debugger does: the phase and its downstream re-run with it."""
    debugger = Debugger()
    if new_when != flow.phase(phase_id).when:
        debugger.set_guard(phase_id, new_when or "")  # an emptied guard: always run
    rerun = guard_rerun(flow, state, phase_id)
    assert rerun is not None  # the phase has finished: applying its guard re-runs it now
    session = seed(flow, copy.deepcopy(state), rerun, "guard-applied", args=dict(case.args or {}),
                   flow_path=case.flow_path, flow_text=None, root=None, previous=None)
    _, result = await case.run(debugger=debugger, resume_state=session.resume_state)
    return result


def rerun_set(flow: Flow, phase_id: str) -> set[str]:
    return {phase_id} | set(Dag.from_flow(flow).downstream(phase_id))  # computed here, not by the engine


def test_every_when_case_is_checked():
    assert len(WHEN_PHASES) >= 10 and {_ids(i) for i in WHEN_PHASES} <= {_ids(i) for i in ALL_PHASES}
    assert sum(1 for case, _pid in WHEN_PHASES if case.id.startswith("corpus:")) >= 10  # the corpus flows too


@pytest.mark.parametrize("item", ALL_PHASES, ids=_ids)
async def test_guard_preview_equals_what_the_engine_then_does(item):
    case, phase_id = item
    flow, result = await case.run()
    assert result.state is not None
    for new_when in _variants(flow.phase(phase_id).when):
        rows = reachability_preview(flow, result.state, phase_id, new_when, args=case.args)
        rerun = await _apply_guard(case, flow, result.state, phase_id, new_when)
        assert [r.phase_id for r in rows] == [
            pid for layer in Dag.from_flow(flow).layers for pid in layer if pid in rerun_set(flow, phase_id)
        ]
        for row in rows:
            assert row.outcome != "wait" or row.wait_cause != "unfinished", (new_when, row)
            if row.outcome == "wait":
                continue
            got = rerun.phases[row.phase_id]
            did = "skip" if str(got.status) == "skipped" else "run"
            assert (row.phase_id, row.outcome) == (row.phase_id, did), (new_when, row, got.error)
            if did == "skip":
                assert row.reason == got.error, new_when


async def test_guard_preview_waits_instead_of_guessing_results_that_do_not_exist_yet():
    data = {
        "name": "t",
        "phases": [
            {"id": "triage", "task": "t"},
            {"id": "quick", "dependsOn": ["triage"], "when": "false", "task": "q"},
            {"id": "after", "dependsOn": ["quick"], "when": "{steps.quick.output} == Q", "task": "a"},
            {"id": "check", "type": "gate", "dependsOn": ["quick"], "task": "review"},
            {"id": "publish", "dependsOn": ["check"], "task": "p"},
        ],
    }
    replies = {"triage": "T", "quick": "Q", "after": "A", "check": "VERDICT: BLOCK", "publish": "P"}
    case = FlowCase("t", json.dumps(data), lambda: ScriptedRunner(replies))
    flow, result = await case.run()
    assert {p: str(s.status) for p, s in result.phases.items()} == {
        "triage": "done", "quick": "skipped", "after": "skipped", "check": "skipped", "publish": "skipped"
    }
    rows = reachability_preview(flow, result.state, "quick", "true")
    # quick never ran: its output (and so `after`'s guard) is not known yet; the gate never
    # gave a verdict, so what is admitted after it is not known either
    assert [(r.phase_id, r.outcome, r.wait_cause, r.waiting) for r in rows] == [
        ("quick", "run", None, ()),
        ("after", "wait", "no-output", ("quick",)),
        ("check", "run", None, ()),
        ("publish", "wait", "no-verdict", ("check",)),
    ]
    rerun = await _apply_guard(case, flow, result.state, "quick", "true")
    assert rerun.phases["check"].gate == {"verdict": "block"} and str(rerun.phases["publish"].status) == "skipped"
