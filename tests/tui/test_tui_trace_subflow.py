"""TUI runs are journaled (events.jsonl + trace.json, listed by `tftui runs`); the Trace tab;
sub-flows and grafted expand children in the tree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tftui.engine.journal import decode_events, list_runs, read_journal
from tftui.engine.state import fold
from tftui.tui.widgets.phase_detail import PhaseDetail

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"

RULES = """
[[rules]]
id = "required_steps"
names = ["fetch", "publish"]

[[rules]]
id = "max_attempts"
name = "fetch"
limit = 1
"""


async def test_tui_run_writes_journal_and_trace(h, tmp_path, capsys):
    runs = tmp_path / "runs"
    app = h.make_app(h.FIXTURES / "review.json", runs_root=runs)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        run_dir = app.run_dir
    assert run_dir is not None and run_dir.parent == runs
    assert (run_dir / "events.jsonl").is_file() and (run_dir / "flow.json").is_file()
    trace = json.loads((run_dir / "trace.json").read_text())
    assert trace["fixture"] == "review" and trace["status"] == "ok"
    names = [s["name"] for s in trace["steps"]]
    assert names.count("fetch") == 2  # the transient failure, then the success
    rows, meta, warnings = read_journal(run_dir)
    assert not warnings and meta["flowName"] == "tui-review"
    events, _ = decode_events(rows)
    assert fold(events).status == "completed"
    assert [e.run_id for e in list_runs(runs)] == [run_dir.name]

    from tftui.cli import main

    assert main(["runs", "--runs-dir", str(runs), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(e["run_id"], e["status"]) for e in listed] == [(run_dir.name, "completed")]


async def test_restart_and_stale_rerun_get_new_journals(h, tmp_path):
    runs = tmp_path / "runs"
    app = h.make_app(h.FIXTURES / "review.json", runs_root=runs)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        first = app.run_dir
        app.stale.update({"notes", "publish"})
        app.main.action_rerun_stale()
        await h.run_to_end(pilot, app)
        second = app.run_dir
        assert app.state.status == "completed"
    assert first is not None and second is not None and first != second
    # the re-run's journal starts with the first run's events, so it folds to the whole run
    rows, _, _ = read_journal(second)
    first_rows, _, _ = read_journal(first)
    assert rows[: len(first_rows)] == first_rows and len(rows) > len(first_rows)
    events, _ = decode_events(rows)
    state = fold(events)
    assert state.status == "completed" and state.phases["fetch"].status == "done"
    assert state.phases["publish"].runs >= 1
    trace = json.loads((second / "trace.json").read_text())
    assert trace["status"] == "ok"
    # trace.json is built from the events in memory: the same as tracing the journal on disk
    from tftui.trace.model import dump_trace
    from tftui.trace.record import trace_of_run_dir

    for run_dir in (first, second):
        from_disk, warnings = trace_of_run_dir(run_dir)
        assert not warnings and from_disk is not None
        assert dump_trace(from_disk) == (run_dir / "trace.json").read_text()

    # `tftui runs`: each line counts what that run spent; the re-run's copy of the first run's
    # events is not counted twice (notes + publish were re-run: 2 calls, no usage in these replies
    # except fetch's, which was not re-run).
    from tftui.commands.runs import summarize

    one, two = summarize(first), summarize(second)
    assert two["seeded_from"] == first.name and one["seeded_from"] is None
    assert two["tokens_with_seed"] == one["tokens"] + two["tokens"]
    assert one["tokens"] > 0 and two["tokens"] == 0


async def test_no_journal_when_runs_root_is_none(h, tmp_path):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.run_dir is None


async def test_trace_tab_shows_steps_and_rule_results(h, workdir):
    (workdir / "rules.toml").write_text(RULES)
    app = h.make_app(workdir / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(PhaseDetail)
        detail.active = "trace"
        await pilot.pause()
        assert "No run yet" in detail.text("trace")
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        text = detail.text("trace")
        assert f"Rules {workdir / 'rules.toml'} · FAIL · 2 rules, 1 failure, 0 warnings" in text
        assert "PASS required_steps@1 (error)" in text
        fail = [line for line in text.splitlines() if line.startswith("FAIL max_attempts")]
        assert len(fail) == 1 and "fetch" in fail[0] and "2" in fail[0]  # its message names step and count
        assert "evidence:" in text
        assert "Trace review" in text and "(run completed)" in text
        lines = [line.split() for line in text.splitlines()]
        fetch_steps = [cols for cols in lines if cols[-1:] == ["fetch"] and cols[1:2] == ["model"]]
        assert [cols[2:4] for cols in fetch_steps] == [["error", "1"], ["ok", "2"]]


async def test_trace_tab_without_rules_and_with_bad_rules(h, workdir, tmp_path):
    app = h.make_app(workdir / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        detail = app.query_one(PhaseDetail)
        assert "No rule set" in detail.text("trace")
        bad = tmp_path / "bad.toml"
        bad.write_text("[[rules]]\nid = 'no_such_rule'\n")
        app.rules_path = str(bad)
        assert f"Rules {bad}: " in detail.text("trace")


def _subflow_workdir(tmp_path: Path) -> Path:
    for name in ("subflow_race.json", "subflow_race.replies.json"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    shutil.copytree(SAMPLES / "flows", tmp_path / "flows")
    return tmp_path / "subflow_race.json"


async def test_T_jumps_to_the_trace_tab_and_back(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        detail = app.query_one(PhaseDetail)
        detail.active = "prompt"
        await pilot.press("T")
        assert detail.active == "trace"
        await pilot.press("T")
        assert detail.active == "prompt"


def _children(tree, pid: str) -> list[str]:
    node = next(n for n in tree._phase_nodes[pid] if not tree.is_reference(n))
    return [c.data for c in node.children if not tree.is_reference(c)]


async def test_subflow_subtrees_and_graft_ids_in_the_tree(h, tmp_path):
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(_subflow_workdir(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(DagTree)
        assert "fanout-draft" not in tree.phase_ids()  # grafted children exist only once they run
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        labels = h.tree_labels(app)
        # nested sub-flows: a subtree under the flow phase, with the child run's own statuses
        assert _children(tree, "research") == ["research/points", "research/each"]
        assert _children(tree, "execute") == ["execute/outline", "execute/write"]  # a generated `def`
        assert labels["research/points"].startswith("⤷ ✓ research/points agent")  # run inside its parent
        assert labels["research/each"].startswith("⤷ ✓ research/each map")
        # graft mode: `<expandId>-<childId>` top-level phases, shown under the expand phase
        assert _children(tree, "fanout") == ["fanout-draft", "fanout-polish"]
        assert labels["fanout-polish"].startswith("⤷ ✓ fanout-polish agent")
        tree.select_phase("research/points")
        await pilot.pause()
        detail = app.query_one(PhaseDetail)
        assert detail.text("overview").startswith("research/points  (agent)  DONE")
        # its model call is journaled as an attempt of `research`: the detail finds it there
        prompt = detail.text("prompt")
        assert "── research/points  attempt 1 ──" in prompt and "List three key points" in prompt
        tree.select_phase("research/each")
        await pilot.pause()
        prompt = detail.text("prompt")
        assert [f"research/each#item-{i}" in prompt for i in range(3)] == [True] * 3
        assert "research/points" not in prompt


async def test_nested_statuses_follow_the_child_run(h, tmp_path):
    """A failing child phase shows failed inside the subtree while its flow phase fails too."""
    flow_path = _subflow_workdir(tmp_path)
    replies = json.loads((tmp_path / "subflow_race.replies.json").read_text())
    replies["execute/write"] = [{"error": "model exploded", "exitCode": 1}]
    (tmp_path / "subflow_race.replies.json").write_text(json.dumps(replies))
    app = h.make_app(flow_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        got = {pid: h.tree_labels(app)[pid] for pid in ("execute", "execute/outline", "execute/write")}
        assert "✓ execute/outline" in got["execute/outline"]
        assert "✗ execute/write" in got["execute/write"]
        assert "✗ execute flow" in got["execute"]


async def test_step_into_a_subflow(h, tmp_path):
    """Stepping walks into a sub-flow: pauses at `research/points` mark and select the nested node."""
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(_subflow_workdir(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(DagTree)
        stops: list[str] = []
        last = 0
        for _ in range(12):
            await pilot.press("n")
            await h.settle(pilot, lambda seen=last: (app.state.paused is not None and app.state.paused.seq > seen)
                           or app.last_result is not None)
            paused = app.state.paused
            if paused is None:
                break
            last = paused.seq
            stops.append(paused.phase_id)
            if "/" in paused.phase_id:
                break
        nested = stops[-1]
        assert nested.startswith("research/"), stops
        assert tree.paused_at == nested and tree.selected_phase() == nested
        assert h.tree_labels(app)[nested].startswith("⤷▶")
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


async def test_breakpoint_on_a_nested_phase(h, tmp_path):
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(_subflow_workdir(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        tree = app.query_one(DagTree)
        tree.select_phase("execute/write")
        await pilot.press("b")
        assert "execute/write" in app.ctl.breakpoints
        await pilot.press("R")
        await pilot.press("y")  # confirm replacing the finished run's view (issue 15 item 5)
        await h.settle(pilot, lambda: app.state.paused is not None or (app.last_result is not None
                                                                        and not app.ctl.running))
        assert app.state.paused is not None and app.state.paused.phase_id == "execute/write"
        assert tree.selected_phase() == "execute/write"
        assert h.tree_labels(app)["execute/write"].startswith("⤷▶")
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


def test_open_command_journal_options(tmp_path, monkeypatch):
    import argparse

    from tftui.commands import open_flow
    from tftui.tui.app import TftuiApp

    flow = tmp_path / "ok.json"
    flow.write_text('{"name": "ok", "phases": [{"id": "a", "task": "x"}]}')
    (tmp_path / "ok.replies.json").write_text('{"a": ["hi"]}')
    monkeypatch.delenv("TFTUI_RUNS_DIR", raising=False)
    opened: list[TftuiApp] = []
    monkeypatch.setattr(TftuiApp, "run", lambda self: opened.append(self) or 0)

    def run(*extra: str) -> TftuiApp:
        parser = argparse.ArgumentParser()
        open_flow.add_arguments(parser)
        assert open_flow.run(parser.parse_args([str(flow), *extra])) == 0
        return opened[-1]

    assert run().runs_root == tmp_path.resolve() / ".tftui" / "runs"
    assert run("--no-journal").runs_root is None
    app = run("--runs-dir", str(tmp_path / "elsewhere"), "--rules", "my.toml")
    assert app.runs_root == tmp_path / "elsewhere" and app.rules_path == "my.toml"


async def test_nested_expand_inside_a_flow_phase(h, tmp_path):
    """Two levels: an `expand` (nested mode) inside an inline `flow` def: `outer/inner/a`."""
    flow = {
        "name": "nest",
        "phases": [
            {
                "id": "outer",
                "type": "flow",
                "def": {
                    "name": "mid",
                    "phases": [
                        {
                            "id": "inner",
                            "type": "expand",
                            "def": {"name": "leaf", "phases": [
                                {"id": "a", "task": "A"},
                                {"id": "b", "dependsOn": ["a"], "task": "B {steps.a.output}", "final": True},
                            ]},
                        },
                    ],
                },
            },
            {"id": "after", "dependsOn": ["outer"], "task": "done: {steps.outer.output}", "final": True},
        ],
    }
    path = tmp_path / "nest.json"
    path.write_text(json.dumps(flow))
    (tmp_path / "nest.replies.json").write_text(
        json.dumps({"outer/inner/a": ["alpha"], "outer/inner/b": ["beta"], "after": ["ok"]})
    )
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed", app.state.error
        tree = app.query_one(DagTree)
        assert _children(tree, "outer") == ["outer/inner"]
        assert _children(tree, "outer/inner") == ["outer/inner/a", "outer/inner/b"]
        labels = h.tree_labels(app)
        assert labels["outer/inner"].startswith("⤷ ✓ outer/inner expand")
        assert labels["outer/inner/b"].startswith("⤷ ✓ outer/inner/b agent")


async def test_a_graft_inside_a_flow_phase_hangs_under_its_expand_phase(h, tmp_path):
    """A graft-mode expand inside a sub-flow: its children (`outer/ex-a`) hang under the expand
    phase (`outer/ex`) that the engine records as their parent, as a top-level graft's do, not
    under the sub-flow phase their id starts with."""
    flow = {
        "name": "nested-graft",
        "phases": [
            {"id": "outer", "type": "flow", "def": {"name": "mid", "phases": [
                {"id": "ex", "type": "expand", "expandMode": "graft", "def": {"name": "frag", "phases": [
                    {"id": "a", "task": "A"},
                    {"id": "b", "dependsOn": ["a"], "task": "B {steps.a.output}"},
                ]}},
                {"id": "after", "dependsOn": ["ex"], "task": "after {steps.ex-b.output}", "final": True},
            ]}},
        ],
    }
    path = tmp_path / "nested-graft.json"
    path.write_text(json.dumps(flow))
    (tmp_path / "nested-graft.replies.json").write_text(
        json.dumps({"outer/ex-a": ["alpha"], "outer/ex-b": ["beta"], "outer/after": ["ok"]})
    )
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed", app.state.error
        assert app.state.phases["outer"].sub.graft_parent == {"ex-a": "ex", "ex-b": "ex"}  # the engine's record
        tree = app.query_one(DagTree)
        assert _children(tree, "outer/ex") == ["outer/ex-a", "outer/ex-b"]
        assert _children(tree, "outer") == ["outer/ex", "outer/after"]


async def test_trace_steps_are_capped_to_the_selected_phase(h):
    from tftui.agents.scripted import ScriptedRunner
    from tftui.engine import run_flow
    from tftui.engine.clock import InstantClock
    from tftui.flow.load import load_flow
    from tftui.trace.record import trace_from_events
    from tftui.tui import trace_text

    flow = load_flow(h.FIXTURES / "review.json").flow
    runner = ScriptedRunner.from_file(h.FIXTURES / "review.replies.json")
    result = await run_flow(flow, runner=runner, clock=InstantClock(), keep_events=True)
    trace = trace_from_events(result.events, "review")
    assert len(trace.steps) > 4
    text = trace_text.steps_text(trace, selected="fetch", max_steps=4).plain
    assert f"showing 2 steps of fetch of {len(trace.steps)}" in text
    assert [line.split()[-1] for line in text.splitlines()[-2:]] == ["fetch", "fetch"]
    text = trace_text.steps_text(trace, selected=None, max_steps=4).plain
    assert f"showing 4 steps of {len(trace.steps)}" in text
    assert text.count("(all of them: the run's trace.json)") == 1
    assert "showing" not in trace_text.steps_text(trace, selected="fetch").plain
    # while the run goes there is no trace.json yet (qa18): the note says when it is written
    live = trace_text.steps_text(trace, selected=None, max_steps=4, running=True).plain
    assert "(all of them: the run's trace.json, once the run ends)" in live


async def test_restart_while_paused_journals_both_runs(h, tmp_path):
    from tftui.tui.widgets.event_log import EventLog

    runs = tmp_path / "runs"
    app = h.make_app(h.FIXTURES / "review.json", runs_root=runs)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await h.settle(pilot, lambda: app.state.paused is not None)
        first = app.run_dir
        await pilot.press("R")  # cancels the paused run, then starts again from scratch
        await h.run_to_end(pilot, app)
        second = app.run_dir
        notes = [line for line in app.query_one(EventLog).lines if "journal:" in line]
        assert any(str(second) in line for line in notes)
    assert first != second and second is not None
    stopped = json.loads((first / "trace.json").read_text())
    assert stopped["steps"][0]["metadata"]["runStatus"] == "paused"  # the cancelled run says why it stopped
    assert json.loads((second / "trace.json").read_text())["status"] == "ok"


async def test_trace_tab_is_live_while_paused(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(PhaseDetail)
        await pilot.press("T")
        for _ in range(3):  # before fetch, before its attempt 0, before its attempt 1
            seen = app.state.paused.seq if app.state.paused else 0
            await pilot.press("n")
            await h.settle(pilot, lambda seen=seen: app.state.paused is not None and app.state.paused.seq > seen)
        text = detail.text("trace")
        assert "live: the run is in progress" in text and "(run interrupted)" in text
        assert [line.split()[1:3] for line in text.splitlines() if line.endswith(" fetch")] == [["model", "error"]]
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        text = detail.text("trace")
        assert "live:" not in text and "(run completed)" in text


async def test_subtrees_survive_a_reload_that_rebuilds_the_tree(h, tmp_path):
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(_subflow_workdir(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        tree = app.query_one(DagTree)
        tree.select_phase("research/each")
        tree.load(app.flow)  # what a reload that changes the flow's shape does
        await pilot.pause()
        assert _children(tree, "research") == ["research/points", "research/each"]
        assert _children(tree, "fanout") == ["fanout-draft", "fanout-polish"]
        assert tree.selected_phase() == "research/each"


async def test_rerun_on_a_nested_phase_says_how_it_can_run_again(h, tmp_path):
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(_subflow_workdir(tmp_path))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        app.query_one(DagTree).select_phase("research/points")
        await pilot.pause()
        calls = app.state.event_count
        await pilot.press("r")
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any("research/points runs inside 'research' and re-runs only with it" in m for m in shown), shown
        assert app.state.event_count == calls and not app.ctl.running  # nothing was started


async def test_trace_steps_stay_one_line_each_at_80x24(h):
    """The detail panel is ~38 columns at 80x24: a step row keeps its status, kind and name on
    one line (attempt and tokens after the name) instead of wrapping the wide table."""
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.press("T")
        await pilot.pause()
        text = app.query_one(PhaseDetail).text("trace")
        rows = [line for line in text.splitlines() if line[:4].strip().isdigit()]
        assert rows and all(len(line) <= 38 or "#" in line for line in rows), rows
        fetch = [r for r in rows if r.split()[3:4] == ["fetch"]]
        assert [r.split()[1:3] for r in fetch] == [["✗", "model"], ["✓", "model"]]  # a 503, then the retry
        assert fetch[1].split()[-2:] == ["a2", "10+5"]  # in their columns
