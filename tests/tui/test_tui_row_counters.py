"""What the tree rows and the run header say while a run is paused or done: map item counts,
loop iterations, sub-flow children vs dependents, grafted phases in n/m, distinct --ascii glyphs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tftui import present
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.run_header import RunHeader

SAMPLES = Path(__file__).parents[2] / "sample_flows"


def header(app) -> str:
    return str(app.query_one(RunHeader).render())


async def stops(pilot, app, h, key: str, count: int) -> list[tuple[str, str, str]]:
    """Press `key` up to `count` times; after each new pause: (pause point, the header, every label)."""
    seen: list[tuple[str, str, str]] = []
    last = 0
    for _ in range(count):
        await pilot.press(key)
        await h.settle(pilot, lambda last=last: (app.state.paused is not None and app.state.paused.seq > last)
                       or app.last_result is not None)
        paused = app.state.paused
        if paused is None:
            break
        last = paused.seq
        await pilot.pause()
        seen.append((paused.node_path or paused.phase_id or "", header(app), h.tree_labels(app)))
    return seen


async def test_map_row_never_claims_all_items_done_while_it_runs(h):
    app = h.make_app(SAMPLES / "map_reduce.json")
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(DagTree).select_phase("review-each")
        await pilot.press("b", "c")
        await h.settle(pilot, lambda: app.state.paused is not None)
        rows = {where: labels["review-each"] for where, _h, labels in await stops(pilot, app, h, "n", 3)}
        # a map over a step's output: the total comes from its ItemsResolved event
        assert "review-each map 1/3" in rows["review-each#item-1"]
        assert "review-each map 2/3" in rows["review-each#item-2"]
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert "review-each map 3/3" in h.tree_labels(app)["review-each"]


async def test_map_over_a_literal_list_counts_against_its_total(h, tmp_path):
    flow = tmp_path / "literal.json"
    # a fixed list comes from an arg default: taskflow rejects a literal array as `over` (issue 14)
    flow.write_text(json.dumps({"name": "lit", "args": {"items": {"default": ["a", "b", "c"]}}, "phases": [
        {"id": "each", "type": "map", "over": "{args.items}", "task": "Say {item}."}]}))
    (tmp_path / "literal.replies.json").write_text(json.dumps({f"each#item-{i}": ["ok"] for i in range(3)}))
    app = h.make_app(flow)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = {where: labels["each"] for where, _h, labels in await stops(pilot, app, h, "n", 4)}
        assert "each map 1/3" in rows["each#item-1"]
        assert "each map 2/3" in rows["each#item-2"]


async def test_loop_pause_and_row_name_the_iteration(h):
    app = h.make_app(SAMPLES / "loop_reflexion.json")
    async with app.run_test(size=(80, 24)) as pilot:
        seen = await stops(pilot, app, h, "n", 4)
        attempts = [(head, labels["headline"]) for where, head, labels in seen if "start" not in head]
        assert [head.split(" · ")[2] for head, _ in attempts] == [
            "paused at headline: iteration 1/4 (step)",
            "paused at headline: iteration 2/4 (step)",
            "paused at headline: iteration 3/4 (step)",
        ]
        assert [row.split(" loop ")[1].split()[0] for _, row in attempts] == ["i1", "i2", "i3"]  # live
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert "headline loop i3" in h.tree_labels(app)["headline"]


def _subflow_race(tmp_path: Path) -> Path:
    for name in ("subflow_race.json", "subflow_race.replies.json"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    shutil.copytree(SAMPLES / "flows", tmp_path / "flows")
    return tmp_path / "subflow_race.json"


async def test_subflow_race_tree_nests_dependents_and_marks_children(h, tmp_path):
    app = h.make_app(_subflow_race(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = app.query_one(DagTree)
        top = [node.data for node in tree.root.children]
        assert top == ["research", "plan", "fetch", "fanout", "report"]  # the join of four branches last
        plan = next(n for n in tree._phase_nodes["plan"] if not tree.is_reference(n))
        assert [c.data for c in plan.children] == ["execute"]  # a dependent, under its upstream
        assert "0/6" in header(app).split(" · ")  # grafted phases do not exist yet
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        labels = h.tree_labels(app)
        # run inside the parent: marked; a dependent (execute under plan) is not
        for pid in ("research/points", "execute/write", "fanout-draft", "fanout-polish"):
            assert labels[pid].startswith("⤷ ✓ "), labels[pid]
        assert labels["execute"].startswith(" ✓ execute flow")
        # n/m counts the grafted phases, as `tftui run` does (8 done)
        assert " · 8/8 · " in header(app), header(app)
        app.query_one(DagTree).select_phase("fanout")
        await pilot.pause()
        from tftui.tui.widgets.phase_detail import PhaseDetail

        overview = app.query_one(PhaseDetail).text("overview")
        assert "top-level phases (fanout-draft, fanout-polish)" in overview


async def test_ascii_status_glyphs_differ_from_tree_guides(h, tmp_path):
    # what Textual draws of a guide at guide_depth 2: its first character
    guides = {line[0] for line in DagTree(glyphs=present.ASCII).LINES["default"]} - {" "}
    marks = set(present.ASCII.status.values())
    assert len(marks) == len(present.ASCII.status)  # one glyph per status
    assert not marks & (guides | {">", "v", present.ASCII.breakpoint, present.ASCII.here})
    others = marks - {present.ASCII.status["running"]}
    assert not set(present.ASCII.spinner) & (others | guides)  # a running frame reads as nothing else
    app = h.make_app(_subflow_race(tmp_path), ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        labels = h.tree_labels(app)
        assert labels["plan"].startswith(" * plan agent")
        assert labels["research/points"].startswith("\\_ * research/points agent")
