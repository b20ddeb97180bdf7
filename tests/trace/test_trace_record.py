"""Run → trace mapping (SPEC §9.8) on real engine runs with scripted replies and an instant clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tftui.agents.scripted import ScriptedRunner
from tftui.cli import main
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow
from tftui.trace.integrity import check_integrity
from tftui.trace.model import trace_to_json
from tftui.trace.record import trace_from_events
from tftui.trace.report import evaluate_trace
from tftui.trace.rules import MaxAttempts, MaxTotalTokens, NoExternalWorkAfterBlock, Order, RequiredSteps


def ok(text: str, i: int = 10, o: int = 5) -> dict[str, Any]:
    return {"output": text, "usage": {"input": i, "output": o}}


async def record(flow: dict[str, Any], replies: dict[str, Any], **kw: Any) -> tuple[Any, dict[str, Any]]:
    result = await run_flow(Flow.model_validate(flow), runner=ScriptedRunner(replies), clock=InstantClock(),
                            keep_events=True)
    trace = trace_from_events(result.events, "fx", **kw)
    assert check_integrity(trace) == []  # a recorded trace is always sound
    return result, trace_to_json(trace)


def brief(steps: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(s["sequence"], s["name"], s["kind"], s["status"], s.get("attempt")) for s in steps]


async def test_retries_usage_and_script() -> None:
    flow = {
        "name": "demo",
        "phases": [
            {"id": "plan", "agent": "a", "task": "plan", "retry": {"max": 2, "backoffMs": 1}},
            {"id": "lint", "type": "script", "run": ["true"], "dependsOn": ["plan"]},
            {"id": "write", "agent": "a", "task": "write {steps.plan.output}", "dependsOn": ["lint"]},
        ],
    }
    replies = {"plan": [{"error": "503 service unavailable", "exitCode": 1}, ok("p", 100, 20)], "write": "w"}
    result, trace = await record(flow, replies)
    assert result.status == "completed"
    steps = trace["steps"]
    assert brief(steps) == [
        (0, "demo", "run", "ok", None),
        (1, "plan", "model", "error", 1),
        (2, "plan", "model", "ok", 2),
        (3, "lint", "tool", "ok", 1),
        (4, "write", "model", "ok", 1),
    ]
    assert trace["status"] == "ok" and trace["fixture"] == "fx"
    assert steps[0]["metadata"] == {"runStatus": "completed", "skippedCount": 0}
    assert steps[1]["metadata"] == {"phase": "plan", "phaseType": "agent", "transient": True}
    assert "inputTokens" not in steps[1]  # the failed call reported no usage: absent, never 0
    assert (steps[2]["inputTokens"], steps[2]["outputTokens"]) == (100, 20)
    assert steps[2]["metadata"] == {"phase": "plan", "phaseType": "agent", "transient": False}
    assert "inputTokens" not in steps[4]  # a plain-string reply has no usage
    assert all("durationMs" not in s for s in steps)  # real-clock durations are dropped
    assert all(s["parentId"] == "s0" for s in steps[1:])

    report = evaluate_trace(trace_from_events(result.events, "fx"), [
        RequiredSteps(names=("plan", "lint", "write")), Order(before="lint", after="write"),
        MaxAttempts(name="plan", limit=2), MaxTotalTokens(limit=1000), NoExternalWorkAfterBlock(),
    ])
    assert [(r.passed, r.message) for r in report.results] == [
        (True, "All required steps ran"),
        (True, "lint occurred before write"),
        (True, "plan stayed within 2 attempts"),
        (False, "Model usage is missing"),
        (True, "Run was not blocked"),
    ]


async def test_fake_clock_keeps_durations() -> None:
    flow = {"name": "d", "phases": [{"id": "a", "agent": "x", "task": "t"}]}
    _, trace = await record(flow, {"a": ok("x")}, fake_clock=True)
    assert trace["steps"][0]["metadata"]["fakeClock"] is True
    assert "durationMs" in trace["steps"][1]


async def test_gate_block_halts_and_skips() -> None:
    flow = {
        "name": "g",
        "phases": [
            {"id": "draft", "agent": "w", "task": "draft"},
            {"id": "review", "type": "gate", "agent": "r", "task": "review {steps.draft.output}",
             "dependsOn": ["draft"]},
            {"id": "publish", "agent": "p", "task": "publish", "dependsOn": ["review"]},
        ],
    }
    replies = {"draft": ok("d"), "review": ok('{"verdict": "block", "reason": "no sources"}')}
    result, trace = await record(flow, replies)
    assert result.status == "blocked"
    steps = trace["steps"]
    assert brief(steps) == [
        (0, "g", "run", "blocked", None),
        (1, "draft", "model", "ok", 1),
        (2, "review", "model", "ok", 1),
        (3, "review", "policy", "blocked", None),
    ]
    assert steps[0]["metadata"] == {"runStatus": "blocked", "skippedCount": 1}
    assert steps[3]["metadata"] == {"phase": "review", "verdict": "block", "source": "task", "round": 0}
    report = evaluate_trace(trace_from_events(result.events, "fx"), [NoExternalWorkAfterBlock()])
    assert report.results[0].passed and report.results[0].evidence == {"forbiddenCount": 0}


async def test_onblock_rework_is_not_a_halting_block() -> None:
    flow = {
        "name": "rework",
        "phases": [
            {"id": "implement", "agent": "a", "task": "implement"},
            {"id": "quality", "type": "gate", "agent": "r", "onBlock": "retry", "retry": {"max": 2},
             "dependsOn": ["implement"], "task": "check {steps.implement.output}"},
            {"id": "ship", "agent": "a", "task": "ship", "dependsOn": ["quality"]},
        ],
    }
    replies = {"implement": [ok("v1"), ok("v2")], "quality": [ok("VERDICT: BLOCK missing tests"), ok("VERDICT: PASS")],
               "ship": ok("s")}
    result, trace = await record(flow, replies)
    assert result.status == "completed"
    policy = [s for s in trace["steps"] if s["kind"] == "policy"]
    assert [(p["status"], p["metadata"]["verdict"], p["metadata"]["round"], p["metadata"].get("halted"))
            for p in policy] == [("error", "block", 0, False), ("ok", "pass", 1, None)]
    names = [s["name"] for s in trace["steps"] if s["kind"] == "model"]
    assert names == ["implement", "quality", "implement", "quality", "ship"]
    report = evaluate_trace(trace_from_events(result.events, "fx"), [NoExternalWorkAfterBlock()])
    assert report.results[0].message == "Run was not blocked"


async def test_fallback_and_loop_iterations() -> None:
    flow = {
        "name": "lp",
        "phases": [
            {"id": "gate", "type": "gate", "agent": "r", "task": "judge this"},
            {"id": "poll", "type": "loop", "agent": "a", "task": "poll", "until": "\"{steps.poll.output}\" == \"done\"",
             "maxIterations": 3, "dependsOn": ["gate"]},
        ],
    }
    replies = {"gate": ok("I am not sure."), "poll": [ok("wait 1"), ok("wait 2"), ok("done")]}
    result, trace = await record(flow, replies)
    steps = trace["steps"]
    fallback = [s for s in steps if s["kind"] == "fallback"]
    assert len(fallback) == 1 and fallback[0]["name"] == "gate#fallback" and fallback[0]["status"] == "ok"
    assert "fail-open" in fallback[0]["metadata"]["reason"]
    loops = [s for s in steps if s["name"] == "poll"]
    assert [s["metadata"]["iteration"] for s in loops] == [1, 2, 3]
    assert all(s["metadata"]["phaseType"] == "loop" for s in loops)


def test_unfinished_stream_and_subflow_paths() -> None:
    events = [
        ev.RunStarted(flow_name="f", phase_types={"research": "flow"}),
        ev.PhaseStarted(phase_id="research", phase_type="flow"),
        ev.AttemptStarted(phase_id="research", node_path="research/summarize#item-2", attempt=0),
        ev.AgentReturned(phase_id="research", node_path="research/summarize#item-2", attempt=0,
                         usage={"input": 3, "output": 4, "cacheRead": 2}),
        ev.AttemptStarted(phase_id="research", node_path="research/summarize#item-3", attempt=0),
        ev.PhaseSkipped(phase_id="other"),
    ]
    trace = trace_from_events(events, "partial")
    data = trace_to_json(trace)
    assert check_integrity(trace) == []
    assert brief(data["steps"]) == [
        (0, "f", "run", "cancelled", None),
        (1, "research", "run", "ok", None),
        (2, "research/summarize#item-2", "model", "ok", 1),
        (3, "research/summarize#item-3", "model", "cancelled", 1),
    ]
    assert data["steps"][0]["metadata"] == {"runStatus": "interrupted", "skippedCount": 1}
    assert data["steps"][2]["parentId"] == "s1" and data["steps"][2]["metadata"]["cacheReadTokens"] == 2
    assert data["status"] == "cancelled"


def test_trace_command_writes_beside_journal(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    flow = tmp_path / "mini.json"
    flow.write_text(json.dumps({"name": "mini", "phases": [{"id": "a", "agent": "x", "task": "t"}]}), "utf-8")
    (tmp_path / "mini.replies.json").write_text(json.dumps({"a": ok("x")}), "utf-8")
    runs = tmp_path / "runs"
    assert main(["run", str(flow), "--runs-dir", str(runs)]) == 0
    capsys.readouterr()
    (run_dir,) = list(runs.iterdir())
    rules = tmp_path / "r.toml"
    rules.write_text('[[rules]]\nid = "required_steps"\nnames = ["a"]\n', encoding="utf-8")
    # every journaled run writes its trace; without one, the gate traces the journal in memory
    assert (run_dir / "trace.json").exists()
    (run_dir / "trace.json").unlink()
    assert main(["gate", str(run_dir), "--rules", str(rules)]) == 0
    assert capsys.readouterr().out.startswith("PASS mini: 1 rule, 0 failures, 0 warnings (")
    assert main(["trace", str(run_dir)]) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written == run_dir / "trace.json"
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["fixture"] == "mini" and [s["name"] for s in data["steps"]] == ["mini", "a"]
    assert main(["gate", str(run_dir), "--rules", str(rules)]) == 0
    assert main(["trace", str(tmp_path / "nope")]) == 2


def test_rewriting_a_trace_replaces_the_file_a_reader_holds_open(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    """`tftui trace RUN_DIR` over an existing trace.json: a reader that opened the old file (a
    `tftui gate` reading it a block at a time) still reads all of the old one, never half of each."""
    flow = tmp_path / "mini.json"
    flow.write_text(json.dumps({"name": "mini", "phases": [{"id": "a", "agent": "x", "task": "t"}]}), "utf-8")
    (tmp_path / "mini.replies.json").write_text(json.dumps({"a": ok("x")}), "utf-8")
    runs = tmp_path / "runs"
    assert main(["run", str(flow), "--runs-dir", str(runs)]) == 0
    (run_dir,) = list(runs.iterdir())
    path = run_dir / "trace.json"
    old = path.read_bytes()
    path.write_bytes(old.replace(b'"mini"', b'"MINI"'))  # an older version, same size
    with path.open("rb") as reader:
        assert main(["trace", str(run_dir)]) == 0
        assert reader.read() == old.replace(b'"mini"', b'"MINI"')
    capsys.readouterr()
    assert path.read_bytes() == old and [p.name for p in run_dir.iterdir() if p.name.endswith(".tmp")] == []


SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


async def test_sample_rule_set_on_sample_validate_flows() -> None:
    from tftui.flow.load import load_flow
    from tftui.trace.ruleset import load_ruleset

    rules = load_ruleset(SAMPLES / "validate.rules.toml").rules
    outcomes = {}
    for name in ("validate", "validate_judge"):
        flow = load_flow(SAMPLES / f"{name}.json").flow
        runner = ScriptedRunner.from_file(SAMPLES / f"{name}.replies.json")
        result = await run_flow(flow, runner=runner, clock=InstantClock(), keep_events=True)
        report = evaluate_trace(trace_from_events(result.events, name), rules)
        outcomes[name] = (report.passed, [w.rule_id for w in report.warnings])
    assert outcomes == {
        "validate": (True, []),
        # the judge variant is asked for a judgement: allowed, but flagged for review
        "validate_judge": (True, ["max_attempts:check-response#judge@1"]),
    }


def test_a_resumed_run_counts_each_interrupted_call_once() -> None:
    """Issue 17, fault 8: killed during b's second attempt, the resume journals b's first (replayed)
    call again and re-makes the second as the same attempt; the trace has each attempt once."""
    from tftui.engine.events import event_from_json
    from tftui.trace.record import trace_columns_from_events

    def call(attempt: int, error: str | None, *, done: bool = True) -> list[dict]:
        rows = [{"kind": "attempt_started", "phase_id": "b", "node_path": "b", "attempt": attempt, "prompt": "b"}]
        if done:
            rows.append({"kind": "agent_returned", "phase_id": "b", "node_path": "b", "attempt": attempt,
                         "output": "" if error else "B", "error": error, "exit_code": 1 if error else 0})
            if error:
                rows.append({"kind": "attempt_failed", "phase_id": "b", "node_path": "b", "attempt": attempt,
                             "error": error, "transient": True, "why": "error", "will_retry": True})
        return rows

    start = {"kind": "run_started", "flow_name": "k", "phase_ids": ["b"], "phase_types": {"b": "agent"}}
    before = [start, {"kind": "phase_started", "phase_id": "b"}, *call(0, "503"), *call(1, None, done=False)]
    after = [{**start, "resumed": True}, {"kind": "phase_started", "phase_id": "b"}, *call(0, "503"), *call(1, "503"),
             *call(2, None), {"kind": "phase_finished", "phase_id": "b", "status": "done", "output": "B", "attempts": 3},
             {"kind": "run_finished", "status": "completed"}]
    uninterrupted = [start, {"kind": "phase_started", "phase_id": "b"}, *call(0, "503"), *call(1, "503"), *call(2, None),
                     *after[-2:]]
    seq = 0

    def events(rows: list[dict]) -> list:
        nonlocal seq
        out = []
        for row in rows:
            seq += 1
            out.append(event_from_json({**row, "seq": seq}))
        return out

    resumed = trace_columns_from_events(events(before) + events(after), "k")
    reference = trace_columns_from_events(events(uninterrupted), "k")
    assert list(zip(resumed.names, resumed.attempts, resumed.statuses, strict=True)) == \
        list(zip(reference.names, reference.attempts, reference.statuses, strict=True))
    assert resumed.attempts == [None, 1, 2, 3]
    assert resumed.parent_ids == reference.parent_ids and resumed.ids == reference.ids


def test_the_recorders_numbering_is_what_a_pass_over_its_columns_finds() -> None:
    """The recorder says its steps are numbered 0, 1, ... with ids `s<n>` (TraceColumns.record_numbering)
    instead of normalization checking it again: true of a stream with sub-flow parents and of a resume
    that drops superseded steps (renumbered)."""
    from dataclasses import fields

    from tftui.trace.columns import TraceColumns
    from tftui.trace.record import trace_columns_from_events

    start = ev.RunStarted(flow_name="f", phase_types={"a": "agent", "r": "flow"})
    streams = [
        [start, ev.PhaseStarted(phase_id="r", phase_type="flow"),
         ev.AttemptStarted(phase_id="r", node_path="r/x/y", attempt=0),
         ev.AttemptStarted(phase_id="r", node_path="r/z", attempt=0), ev.RunFinished(status="completed")],
        [start, ev.PhaseStarted(phase_id="a"), ev.AttemptStarted(phase_id="a", node_path="a", attempt=0),
         ev.PhaseStarted(phase_id="r", phase_type="flow"), ev.AttemptStarted(phase_id="r", node_path="r/z", attempt=0),
         ev.AgentReturned(phase_id="r", node_path="r/z", attempt=0, output="z"),
         ev.PhaseFinished(phase_id="r", status="done"),
         ev.RunStarted(flow_name="f", phase_types={"a": "agent", "r": "flow"}, resumed=True),
         ev.PhaseStarted(phase_id="a"), ev.AttemptStarted(phase_id="a", node_path="a", attempt=0),
         ev.AgentReturned(phase_id="a", node_path="a", attempt=0, output="A"),
         ev.PhaseFinished(phase_id="a", status="done"), ev.RunFinished(status="completed")],
    ]
    for events in streams:
        cols = trace_columns_from_events(events, "f")
        again = TraceColumns(**{f.name: getattr(cols, f.name) for f in fields(TraceColumns) if f.init})
        assert (cols.increasing(), cols.canonical_ids()) == (again.increasing(), again.canonical_ids()) == (True, True)
        assert cols.ids == [f"s{q}" for q in range(len(cols))] and cols.sequences == list(range(len(cols)))
        assert all(p is None or p in cols.ids[:i] for i, p in enumerate(cols.parent_ids))
    assert cols.names == ["f", "r", "r/z", "a"] and cols.parent_ids == [None, "s0", "s1", "s0"]


def test_the_recorders_metadata_summary_reads_each_shared_dict_once_and_misses_nothing() -> None:
    """The recorder's columns summarize their metadata from each distinct dict once (a map's calls
    share one: TraceColumns.summarize_shared_metadata); the summary is what a pass over every step
    finds, and normalization still drops a volatile value it holds (a phase named like a timestamp)."""
    from dataclasses import fields

    from tftui.trace.columns import TraceColumns
    from tftui.trace.record import trace_columns_from_events

    stamp = "2024-01-01T10:00:00"
    events: list[ev.Event] = [ev.RunStarted(flow_name="f", phase_types={stamp: "map", "b": "agent"}),
                              ev.PhaseStarted(phase_id=stamp, phase_type="map")]
    for i in range(3):
        events += [ev.AttemptStarted(phase_id=stamp, node_path=f"{stamp}#item-{i}", attempt=0),
                   ev.AgentReturned(phase_id=stamp, node_path=f"{stamp}#item-{i}", attempt=0, output="x",
                                    usage={"input": 1, "output": 2, "costUSD": 0.5} if i == 1 else None)]
    events += [ev.AttemptStarted(phase_id="b", node_path="b", attempt=0), ev.RunFinished(status="completed")]
    cols = trace_columns_from_events(events, "f")
    again = TraceColumns(**{f.name: getattr(cols, f.name) for f in fields(TraceColumns) if f.init})
    assert cols.metadata_summary() == again.metadata_summary()
    assert [m and m.get("phase") for m in cols.metadata] == [None, None, None, None, "b"]
    assert cols.metadata[2] == {"phaseType": "map", "transient": False, "costUSD": 0.5}


def test_one_rule_names_a_trace_s_fixture_for_trace_json_tftui_trace_and_the_trace_tab() -> None:
    from tftui.trace.record import fixture_name

    assert fixture_name("flows/review.json", "Review flow") == "review"  # the file's stem first
    assert fixture_name(None, "Review flow") == "Review flow"  # else the flow's name
    assert fixture_name("", "") == "run"  # else `run`
    assert fixture_name(None, None) == "run"
