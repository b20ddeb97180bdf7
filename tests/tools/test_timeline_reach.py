"""Attempts timeline (transient reasons, backoff, rounds strip, diffs), guard feedback, reachability."""

from __future__ import annotations

from tftui.engine.admission import reachability_preview
from tftui.engine.statectx import context_from_state
from tftui.engine.timeline import phase_timeline, timelines
from tftui.flow.reach import guard_feedback
from tftui.present.timeline import evaluation_strip, output_diff, transient_reason, transient_why
from tftui.present.whatif_text import explain_skip, reach_why


async def test_transient_reasons_and_backoff(tools):
    _, result, _ = await tools.run_sample("transient_retry")
    rows = phase_timeline(result.events, "fetch").attempts
    assert [(r.attempt, r.status, r.transient, r.backoff_ms) for r in rows] == [
        (0, "failed", True, 2000),
        (1, "failed", True, 4000),
        (2, "ok", False, None),
    ]
    assert transient_why(rows[0]) == 'transient: matched "429"'
    assert transient_why(rows[1]) == 'transient: matched "503"'
    assert rows[0].prompt.startswith("List the three most important changes in the latest release of taskflow")
    assert rows[0].error.startswith("429 Too Many Requests") and rows[2].output.startswith("1. Retries")


async def test_non_transient_and_contract_reasons(tools):
    data = {
        "phases": [
            {"id": "a", "task": "t", "retry": {"max": 1, "backoffMs": 5}},
            {"id": "b", "task": "t", "output": "json", "expect": {"required": ["k"]}, "retry": {"max": 1, "backoffMs": 0}},
        ]
    }
    replies = {"a": [{"error": "boom"}, "fine"], "b": ['{"x": 1}', '{"k": 1}']}
    _, result, _ = await tools.run_dict(data, replies)
    tl = timelines(result.events)
    a0 = tl["a"].attempts[0]
    assert (a0.transient, a0.will_retry, a0.backoff_ms) == (False, True, 5)
    assert transient_why(a0) == "not transient: no transient pattern (rate limit, 429, 503, timeout, …) in the error"
    b0 = tl["b"].attempts[0]
    assert b0.kind == "contract" and transient_why(b0).startswith("not transient: contract violations")
    assert transient_reason("upstream timed out", kind="error") == 'transient: matched "timed out"'


async def test_onblock_strip_reasons_and_reruns(tools):
    data = {
        "phases": [
            {"id": "gen", "task": "write"},
            {"id": "g", "type": "gate", "dependsOn": ["gen"], "task": "check {steps.gen.output}",
             "onBlock": "retry", "retry": {"max": 3, "backoffMs": 0}},
        ]
    }
    replies = {
        "gen": ["v1", "v2", "v3"],
        "g": ['{"verdict": "block", "reason": "too short"}', '{"verdict": "block", "reason": "still short"}', "VERDICT: PASS"],
    }
    _, result, _ = await tools.run_dict(data, replies)
    tl = timelines(result.events)
    assert evaluation_strip(tl["g"]) == "1✗ 2✗ 3✓"
    assert [(r.round, r.reason, r.rerun) for r in tl["g"].rounds] == [
        (0, None, []),
        (1, "too short", ["gen"]),
        (2, "still short", ["gen"]),
    ]
    gen = tl["gen"]
    assert gen.runs == 3 and [(a.run, a.round, a.output) for a in gen.attempts] == [(0, 0, "v1"), (1, 1, "v2"), (2, 2, "v3")]
    assert [a.round for a in tl["g"].attempts] == [0, 1, 2]
    diff = output_diff(gen.attempts[0].output, gen.attempts[1].output, label_a="round 0", label_b="round 1")
    assert diff == "--- round 0\n+++ round 1\n@@ -1 +1 @@\n-v1\n+v2\n"
    assert output_diff("same", "same") == ""


FLOW = {
    "phases": [
        {"id": "triage", "task": "t", "output": "json"},
        {"id": "deep", "dependsOn": ["triage"], "when": "{steps.triage.json.severity} == high", "task": "d"},
        {"id": "quick", "dependsOn": ["triage"], "when": "{steps.triage.json.severity} != high", "task": "q"},
        {"id": "report", "dependsOn": ["deep"], "task": "r {steps.deep.output}"},
        {"id": "either", "dependsOn": ["deep", "quick"], "join": "any", "task": "e"},
    ]
}
REPLIES = {"triage": '{"severity": "high", "n": 3}', "deep": "D", "quick": "Q", "report": "R", "either": "E"}


async def test_reachability_preview(tools):
    flow, result, _ = await tools.run_dict(FLOW, REPLIES)
    assert result.phases["quick"].status == "skipped"
    now = reachability_preview(flow, result.state, "deep", flow.phase("deep").when)
    assert [(r.phase_id, r.outcome) for r in now] == [("deep", "run"), ("report", "run"), ("either", "run")]
    off = reachability_preview(flow, result.state, "deep", "{steps.triage.json.n} > 5")
    assert [tuple(r)[:2] for r in off] == [("deep", "skip"), ("report", "skip"), ("either", "skip")]
    assert reach_why(off[0]) == "Condition not met: {steps.triage.json.n} > 5 — {steps.triage.json.n} > 5 was false: n = 3"
    assert reach_why(off[1]) == "Upstream dependency not satisfied (deep)"
    assert reach_why(off[2]) == "All dependencies failed or were skipped"
    # opening the other branch: quick runs, `either` (join any) still runs through it
    other = reachability_preview(flow, result.state, "quick", "true")
    assert [tuple(r)[:2] for r in other] == [("quick", "run"), ("either", "run")]
    broken = reachability_preview(flow, result.state, "deep", "{steps.triage.json.n} >")
    assert broken[0].outcome == "run" and "fail-open" in reach_why(broken[0])


async def test_guard_feedback_and_explain_skip(tools):
    flow, result, _ = await tools.run_dict(FLOW, REPLIES)
    ctx = context_from_state(flow, result.state, "quick")
    fb = guard_feedback("{steps.triage.json.severity} == high &&", ctx)
    assert fb.error == "unexpected end" and fb.caret_col == 39 and fb.result is None
    assert fb.caret_text == "{steps.triage.json.severity} == high &&\n" + " " * 39 + "^"
    assert [(p.ref, p.value, p.shown) for p in fb.placeholders] == [("{steps.triage.json.severity}", "high", '"high"')]
    multi = guard_feedback("{steps.triage.json.n} > 1 &&\n  (true", ctx)
    assert (multi.caret_line, multi.error) == (1, "missing )")
    ok = guard_feedback("{steps.triage.json.n} >= 3 && {steps.nope.output}", ctx)
    assert ok.error is None and ok.result is False
    assert [p.shown for p in ok.placeholders] == ["3", "unresolved"]
    assert guard_feedback("", ctx).result is True
    assert explain_skip(flow, result.state, "quick") == (
        'skipped because {steps.triage.json.severity} != high was false: severity = "high"'
    )
    assert explain_skip(flow, result.state, "deep").startswith("not skipped: ")


def test_reachability_before_a_run_waits_for_unfinished_upstream():
    from tftui.engine.state import RunState
    from tftui.flow.model import Flow

    flow = Flow.model_validate({"name": "t", **FLOW})
    before = reachability_preview(flow, RunState(), "quick", flow.phase("quick").when)
    # triage has not run: nothing downstream is "not satisfied" yet, it is undecided
    assert [tuple(r)[:2] for r in before] == [("quick", "wait"), ("either", "wait")]
    assert reach_why(before[0]) == "decided when triage finishes (not run yet)"
    assert reach_why(before[1]) == "decided when deep, quick finishes (not run yet)"


async def test_reachability_guard_removed_only_when_there_was_one(tools):
    flow, result, _ = await tools.run_dict(FLOW, REPLIES)
    assert reach_why(reachability_preview(flow, result.state, "report", None)[0]) == "no guard"
    assert reach_why(reachability_preview(flow, result.state, "deep", None)[0]) == "no guard (guard removed)"


async def test_calls_tab_of_a_big_map_shows_the_latest_attempts_and_says_so(tools):
    from tftui.engine.timeline import TimelineBuilder
    from tftui.tui.timeline_text import MAX_ATTEMPTS_SHOWN, calls

    items = [f"m{i}" for i in range(MAX_ATTEMPTS_SHOWN + 25)]
    data = {"phases": [{"id": "each", "type": "map", "over": items, "task": "review {item}"}]}
    replies = {f"each#item-{i}": f"review of {name}" for i, name in enumerate(items)}
    _, result, _ = await tools.run_dict(data, replies)

    # Fed batch by batch (as the TUI does) or all at once: the same timeline.
    builder = TimelineBuilder()
    for start in range(0, len(result.events), 7):
        for event in result.events[start : start + 7]:
            builder.feed(event)
    fed = builder.get("each")
    assert [(r.node_path, r.output) for r in fed.attempts] == [
        (r.node_path, r.output) for r in phase_timeline(result.events, "each").attempts
    ]

    text = calls(fed).plain
    assert f"Calls: {len(items)} " in text
    assert f"25 earlier attempts not shown (the latest {MAX_ATTEMPTS_SHOWN} are" in text
    assert "review of m24\n" not in text and f"review of m{len(items) - 1}" in text  # the latest, not the first
    assert text.count("attempt 1") == MAX_ATTEMPTS_SHOWN


def test_the_guard_editor_and_the_engine_agree_on_blank_guards_and_skip_reasons():
    """One rule for a blank guard (JS whitespace, as conditions trim) and one skip reason: the
    editor says "no condition" exactly when the engine has nothing to evaluate, and a false
    guard's text carries the reason the engine records for the skip."""
    from tftui.engine.admission import Admission, has_guard
    from tftui.lang.interpolate import Context

    ctx = Context({}, {})
    for expr in ["", "  \t", "\u00a0", "\u2028", "\ufeff", "\x85", "\x1c", "true", " false "]:
        fb = guard_feedback(expr, ctx)
        assert (fb.result_text == "no condition — the phase runs") == (not has_guard(expr)), repr(expr)
    fb = guard_feedback(" false ", ctx)
    assert fb.result is False and f"({Admission('guard', expr=' false ').reason})" in fb.result_text
