"""Running a flow in the TUI: every phase ends with the right status in the tree."""

from __future__ import annotations

from tftui.tui.widgets.event_log import EventLog


async def test_run_shows_every_phase_with_final_status(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        labels = h.tree_labels(app)
        assert set(labels) == {"fetch", "draft", "review", "notes", "publish"}
        assert all("○" in text for text in labels.values())
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        assert h.statuses(app) == {p: "done" for p in labels}
        labels = h.tree_labels(app)
        assert "✓ fetch agent a2" in labels["fetch"]  # the transient 503 then success
        assert "✓ review gate r1" in labels["review"]  # one onBlock round
        header = str(app.query_one("#run-header").render())
        assert "COMPLETED" in header and "5/5" in header


async def test_blocked_gate_renders_blocked_and_skips_rest(h):
    app = h.make_app(h.FIXTURES / "gate_block.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "blocked"
        got = h.statuses(app)
        assert got["draft"] == "done"
        assert got["review"] == "blocked"  # SPEC §3.5: done + verdict block shows as BLOCKED
        assert got["publish"] == "skipped" and got["tweet"] == "skipped"
        assert "BLOCKED" in h.tree_labels(app)["review"]
        app.query_one("#tree").select_phase("publish")
        await pilot.pause()
        from tftui.tui.widgets.phase_detail import PhaseDetail

        overview = app.query_one(PhaseDetail).text("overview")
        assert "Skipped because an earlier gate or approval blocked the run" in overview


async def test_log_filter_failed_only(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        log = app.query_one(EventLog)
        log.set_filter("failed")
        shown = [line for line in log.lines]
        assert shown and all(("failed" in s) or ("BLOCK" in s) for s in shown)
        log.set_filter("phase:notes")
        assert all(line.startswith("notes") for line in log.lines)
        log.set_filter("")
        assert len(log.lines) == len(log.entries)
