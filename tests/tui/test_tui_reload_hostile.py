"""Hot reload of valid-but-extreme flow files never crashes the debugger (issue 17, fault 6): a
~300-deep `expect` schema is a diagnostic naming the nesting limit, a lone `\\ud800` escape in a
task reloads like any other edit."""

from __future__ import annotations

import json


def _deep_schema(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


async def test_a_deep_expect_schema_on_reload_is_a_diagnostic(h, workdir):
    flow_path = workdir / "review.json"
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one("#diagnostics")
        data = json.loads(flow_path.read_text())
        data["phases"][0]["expect"] = _deep_schema(300)
        flow_path.write_text(json.dumps(data))
        await h.settle(pilot, lambda: panel.has_class("-visible"))
        assert "nested deeper than 100 levels" in str(panel.render())
        assert set(h.tree_labels(app)) == {"fetch", "draft", "review", "notes", "publish"}  # the last good flow


async def test_a_lone_surrogate_escape_reloads(h, workdir):
    flow_path = workdir / "review.json"
    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        text = flow_path.read_text()
        data = json.loads(text)
        for phase in data["phases"]:
            if phase["id"] == "notes":
                phase["task"] = "Write notes \ud800 on: {steps.fetch.output}"
        flow_path.write_text(json.dumps(data))  # json.dumps writes it as the escape `\ud800`
        assert "\\ud800" in flow_path.read_text()
        await h.settle(pilot, lambda: bool(app.stale))
        assert app.stale == {"notes", "publish"}
        app.last_result = None
        await pilot.press("u")
        await h.run_to_end(pilot, app)
        assert h.statuses(app)["notes"] == "done"
        assert app.state.phases["notes"].attempt_log[-1].prompt.startswith("Write notes \ud800")
