"""Honest screens (qa: a 1,000-item map's Info tab said 121/1000 in the frame where the tree said
160/1000): every frame written while a map runs shows the map's n/m from one folded state, in
the tree's row and in the Info tab alike, at 80x24 and 120x40, with and without --ascii."""

from __future__ import annotations

import json
import re

import pytest

ITEMS = 400
DELAY_MS = [10, 30]  # each item's call takes a while: the run spans many folds and frames


def _map_flow(tmp_path, items: int = ITEMS, delay_ms: object = DELAY_MS):
    flow = {"name": "map-frames", "concurrency": 8, "phases": [
        {"id": "src", "type": "agent", "agent": "a", "task": "list", "output": "json"},
        {"id": "m", "type": "map", "over": "{steps.src.json}", "as": "item", "agent": "a",
         "task": "process {item.id}", "dependsOn": ["src"], "final": True},
    ]}
    replies = {"src": [json.dumps(list(range(items)))]}
    for i in range(items):
        replies[f"m#item-{i}"] = [{"output": f"ok {i}", "delayMs": delay_ms}]
    path = tmp_path / "map.json"
    path.write_text(json.dumps(flow))
    (tmp_path / "map.replies.json").write_text(json.dumps(replies))
    return path


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("ascii", [False, True])
async def test_tree_and_info_tab_show_one_count_in_every_frame(h, tmp_path, size, ascii):
    items = ITEMS
    app = h.make_app(_map_flow(tmp_path), ascii=ascii)
    frames: list[tuple[str, str]] = []  # (the map's tree row, the detail pane) of each frame written
    display = app._display

    def recorded(screen, renderable) -> None:  # noqa: ANN001 - Textual's signature
        display(screen, renderable)
        main = getattr(app, "main", None)
        if main is not None and screen is main and main.is_mounted:
            tree_rows = [r for r in h.pane_lines(app, main.dag) if re.search(r"\bm map\b", r)]
            frames.append((tree_rows[0] if tree_rows else "", " ".join(h.pane_lines(app, main.detail.scroller))))

    app._display = recorded
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.main.dag.select_phase("m")
        await pilot.pause()
        assert app.main.detail.active == "overview"  # the Info tab
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
    during = []
    for tree_row, detail in frames:
        tree_n = re.search(r"\bm map .*?(\d+)/(\d+)", tree_row)
        info_n = re.search(r"Calls: \d+\s+\((\d+)/(\d+)\)", detail)
        if tree_n and info_n:
            assert tree_n.groups() == info_n.groups(), (tree_row, detail)
            if int(tree_n.group(1)) < items:
                during.append(tree_n.group(1))
    assert len(set(during)) >= 2, frames[-5:]  # the counts were compared while the map ran, more than once
