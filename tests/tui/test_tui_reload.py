"""Hot reload: an edit marks changed phases + downstream stale and `u` re-runs only them;
an invalid edit shows diagnostics while the last good tree stays, until it is fixed."""

from __future__ import annotations

import json

from tftui.agents.scripted import ScriptedRunner


async def test_edit_reruns_only_changed_phase_and_downstream(h, workdir):
    flow_path = workdir / "review.json"
    runner = ScriptedRunner.from_file(workdir / "review.replies.json")
    app = h.make_app(flow_path, runner=runner, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        calls_before = [r.node_path for r in runner.calls]
        tokens_before = app.state.usage["input"] + app.state.usage["output"]

        data = json.loads(flow_path.read_text())
        for phase in data["phases"]:
            if phase["id"] == "notes":
                phase["task"] = "Write SHORT notes on: {steps.fetch.output}"
        flow_path.write_text(json.dumps(data, indent=2))
        await h.settle(pilot, lambda: bool(app.stale))
        assert app.stale == {"notes", "publish"}
        assert h.statuses(app)["notes"] == "stale" and h.statuses(app)["fetch"] == "done"
        assert "~ notes" in h.tree_labels(app)["notes"]
        note = str(app.query_one("#reload-note").render())
        assert "changed notes" in note and "stale: notes, publish" in note

        app.last_result = None
        await pilot.press("u")
        await h.run_to_end(pilot, app)
        new_calls = [r.node_path for r in runner.calls][len(calls_before):]
        assert new_calls == ["notes", "publish"]  # nothing upstream or beside was called again
        assert h.statuses(app) == {p: "done" for p in ("fetch", "draft", "review", "notes", "publish")}
        assert not app.stale
        # unchanged phases cost nothing more: only the two re-run calls add (zero-usage) tokens
        assert app.state.usage["input"] + app.state.usage["output"] == tokens_before
        assert app.state.phases["notes"].attempt_log[-1].prompt.startswith("Write SHORT notes")


async def test_invalid_edit_shows_diagnostics_and_keeps_last_good_tree(h, workdir):
    flow_path = workdir / "review.json"
    good = flow_path.read_text()
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one("#diagnostics")
        assert not panel.has_class("-visible")
        broken = good.replace('"dependsOn": ["fetch"], "task": "Write notes', '"dependsOn": ["nope"], "task": "Write notes')
        assert broken != good
        flow_path.write_text(broken)
        await h.settle(pilot, lambda: panel.has_class("-visible"))
        text = str(panel.render())
        assert "review.json:" in text and "dependsOn unknown phase 'nope'" in text
        assert set(h.tree_labels(app)) == {"fetch", "draft", "review", "notes", "publish"}
        assert app.flow.phase("notes").depends_on == ["fetch"]  # the last good flow stays

        flow_path.write_text("{ not json")
        await h.settle(pilot, lambda: "1:3" in str(panel.render()) or ":1:" in str(panel.render()))
        assert set(h.tree_labels(app)) == {"fetch", "draft", "review", "notes", "publish"}

        flow_path.write_text(good)
        await h.settle(pilot, lambda: not panel.has_class("-visible"))
        assert app.flow.phase("notes").depends_on == ["fetch"]


async def test_save_by_rename_is_seen(h, workdir):
    """Editors that write a temp file and rename it over the flow still trigger a reload."""
    flow_path = workdir / "review.json"
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        data = json.loads(flow_path.read_text())
        data["phases"][4]["task"] = "Publish it: {steps.draft.output}"
        tmp = workdir / ".review.json.swp"
        tmp.write_text(json.dumps(data))
        tmp.replace(flow_path)
        await h.settle(pilot, lambda: bool(app.stale))
        assert app.stale == {"publish"}


async def test_an_edit_saved_during_a_run_marks_what_ran_the_old_version_stale(h, workdir):
    """The run in progress keeps the version it started with (no mixing); what it ran of the
    changed part — the edited phase and everything after it — is stale when it ends, and `u`
    re-runs exactly that with the saved file."""
    flow_path = workdir / "review.json"
    runner = ScriptedRunner.from_file(workdir / "review.replies.json")
    app = h.make_app(flow_path, runner=runner, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one("#tree").select_phase("notes")
        await pilot.press("b", "c")  # paused before `notes`: fetch, draft, review have run
        await h.settle(pilot, lambda: app.state.paused is not None and app.state.paused.phase_id == "notes")
        data = json.loads(flow_path.read_text())
        data["phases"][3]["task"] = "Write SHORT notes on: {steps.fetch.output}"  # notes: not run yet
        flow_path.write_text(json.dumps(data, indent=2))
        await h.settle(pilot, lambda: "this run keeps the version it started with" in str(app.query_one("#reload-note").render()))
        assert app.stale == set()  # nothing that ran is affected yet
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        sent = [r.task for r in runner.calls if r.node_path == "notes"]
        assert sent == ["Write notes on: " + app.state.phases["fetch"].output]  # the run's own version
        assert app.stale == {"notes", "publish"}  # ran the old notes, and what reads it
        assert "stale now: notes, publish" in str(app.query_one("#reload-note").render())

        before = len(runner.calls)
        await pilot.press("b")  # the breakpoint off again (notes is still selected)
        await pilot.press("u")
        await h.run_to_end(pilot, app)
        again = [r.node_path for r in runner.calls[before:]]
        assert sorted(again) == ["notes", "publish"] and not app.stale
        assert runner.calls[before].task.startswith("Write SHORT notes on: ")


async def test_u_with_a_broken_file_says_so(h, workdir):
    flow_path = workdir / "review.json"
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        flow_path.write_text(flow_path.read_text().replace('"task": "Fetch the data."', '"task": '))
        await h.settle(pilot, lambda: app.query_one("#diagnostics").has_class("-visible"))
        await pilot.press("u")
        await pilot.pause()
        assert any("The saved flow has 1 error(s)" in n.message for n in app._notifications)


async def test_every_error_of_a_broken_save_can_be_read_at_80x24(h, workdir):
    """The panel has at most 8 rows; a save with two errors, each a long message, showed the first
    and cut the second at 80x24 (found in QA): each error also goes to the log, whole."""
    flow_path = workdir / "review.json"
    good = flow_path.read_text()
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one("#diagnostics")
        broken = good.replace('"type": "gate"', '"type": "gaet"').replace(
            '"dependsOn": ["fetch"], "task": "Write notes', '"dependsOn": ["drafts"], "task": "Write notes')
        flow_path.write_text(broken)
        # the end of the second error, which the panel cut (the log wraps it: its last words
        # start a row, whatever the log's scrollbar draws at the end of the row before)
        tail = "'drafts' [notes]"
        await h.settle(pilot, lambda: panel.has_class("-visible") and tail in h.screen_text(app), limit=3000)
        assert "all in the log" in str(panel.render())
