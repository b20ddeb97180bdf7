"""A long flow in the debugger (README "Large flows"): tree labels are built as their lines are
drawn, yet every line the user scrolls to, and every label read, shows the phase's state."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.agents.scripted import MarkerRunner
from tftui.tui.widgets.dag_tree import DagTree

PHASES = 120  # more lines than a 120x40 screen shows


def _labels(tree: DagTree) -> dict[str, str]:
    """Each phase's own line (not its `↪` references), as the tree would draw it."""
    return {pid: next(n for n in nodes if not tree.is_reference(n)).label.plain
            for pid, nodes in tree._phase_nodes.items()}


def _flow(tmp_path: Path) -> Path:
    phases = [{"id": f"p{i}", "task": f"step {i}"} for i in range(PHASES)]
    for i in range(2, PHASES):
        phases[i]["dependsOn"] = ["p0", "p1"]  # a fan-out under p1, each with a reference under p0
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"name": "long", "phases": phases}))
    return path


async def test_lines_scrolled_to_show_the_run(h, tmp_path: Path) -> None:
    app = h.make_app(_flow(tmp_path), runner=MarkerRunner())
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(DagTree)
        assert "p0" in h.screen_text(app) and f"p{PHASES - 1} " not in h.screen_text(app)
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        labels = _labels(tree)  # read off screen too
        assert len(labels) == PHASES and all("✓" in label for label in labels.values())
        tree.focus()
        await pilot.press("end")
        await pilot.pause()
        last = next(line for line in h.screen_lines(app) if f"p{PHASES - 1} agent" in line)
        assert "✓" in last
        await pilot.press("home")
        await pilot.pause()
        first = next(line for line in h.screen_lines(app) if " p0 agent" in line)
        assert "✓" in first


async def test_a_save_marks_an_off_screen_phase_stale(h, tmp_path: Path) -> None:
    path = _flow(tmp_path)
    app = h.make_app(path, runner=MarkerRunner(), watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        data = json.loads(path.read_text())
        leaf = f"p{PHASES - 1}"
        data["phases"][-1]["task"] = "step, edited"
        path.write_text(json.dumps(data))
        await h.settle(pilot, lambda: leaf in app.stale, limit=1000)
        assert _labels(app.query_one(DagTree))[leaf].split()[0] == "~"  # the stale glyph, off screen
        assert "~" not in _labels(app.query_one(DagTree))["p0"]
        app.query_one(DagTree).focus()
        await pilot.press("end")
        await pilot.pause()
        assert f"~ {leaf} agent" in h.screen_text(app)
        await pilot.press("u")
        await h.run_to_end(pilot, app)
        assert leaf not in app.stale and "✓" in _labels(app.query_one(DagTree))[leaf]
