"""A save that edits one phase updates that phase's rows in place (the tree is not rebuilt) and
reuses the last version's per-phase checks: what the debugger then shows, rows and diagnostics,
is what a full rebuild of the tree and a fresh check of the file show."""

from __future__ import annotations

import json

from tftui.admit import AdmitRules, admit
from tftui.tui.widgets.dag_tree import DagTree

FLOW = {
    "name": "memo",
    "phases": [
        {"id": "a", "agent": "w", "task": "Start."},
        {"id": "b", "agent": "w", "dependsOn": ["a"], "task": "Try {steps.a.output}"},
        {"id": "c", "agent": "w", "dependsOn": ["a"], "task": "Also {steps.a.output}"},
        {"id": "d", "agent": "w", "dependsOn": ["b", "c"], "task": "End {steps.b.output}"},
    ],
}
REPLIES = {
    "a": ["out a", "out a"],
    "b": [{"error": "boom", "exitCode": 1}, {"error": "boom again", "exitCode": 1}],
    "c": ["out c", "out c"],
    "d": ["out d", "out d"],
}


def rows(tree: DagTree) -> list[str]:
    """Every row's text, in order, as drawn."""
    return [line.node.label.plain for line in tree._tree_lines]


def rebuilt_rows(tree: DagTree) -> list[str]:
    """The rows after a full rebuild of the tree from the flow shown (what a reload did before)."""
    assert tree.flow is not None
    tree.load(tree.flow)
    return rows(tree)


def per_phase(diagnostics) -> dict[str, list[str]]:  # noqa: ANN001
    out: dict[str, list[str]] = {}
    for d in diagnostics:
        if d.phase_id and not d.is_error:
            out.setdefault(d.phase_id, []).append(d.message)
    return out


async def test_an_edit_of_one_phase_shows_what_a_fresh_load_shows(h, tmp_path):
    path = tmp_path / "memo.json"
    path.write_text(json.dumps(FLOW, indent=1))
    (tmp_path / "memo.replies.json").write_text(json.dumps(REPLIES))
    app = h.make_app(path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert h.statuses(app)["b"] == "failed"
        tree = app.query_one(DagTree)
        built = {pid: list(nodes) for pid, nodes in tree._phase_nodes.items()}

        data = json.loads(path.read_text())
        data["phases"][1]["optional"] = True  # b's failure is tolerated from now on
        data["phases"][1]["agent"] = "nobody"  # a warning the linter adds later
        path.write_text(json.dumps(data, indent=1))
        await h.settle(pilot, lambda: "b" in app.stale)
        assert app.stale == {"b", "d"}
        assert {pid: list(nodes) for pid, nodes in tree._phase_nodes.items()} == built  # not rebuilt
        labels = h.tree_labels(app)
        assert "~ b" in labels["b"] and "~ d" in labels["d"] and "~" not in labels["a"] + labels["c"]

        fresh = admit(path, AdmitRules())
        await h.settle(pilot, lambda: app.file_warnings == per_phase(fresh.warnings))
        assert app.flow.phase("b").optional

        app.last_result = None
        await pilot.press("u")
        await h.run_to_end(pilot, app)
        assert h.statuses(app)["b"] == "failed" and not app.stale
        shown = rows(tree)
        assert any("b" in row and "(optional)" in row for row in shown)  # the saved version's b
        assert shown == rebuilt_rows(tree)
