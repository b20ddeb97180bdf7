"""Plain terminals: NO_COLOR is honoured, --ascii swaps every glyph, animations can be off."""

from __future__ import annotations

from tftui import present


async def test_no_color_env_is_honoured(h, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = h.make_app(h.FIXTURES / "gate_block.json")
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.no_color
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.status == "blocked"


async def test_ascii_labels_have_no_unicode_glyphs(h):
    app = h.make_app(h.FIXTURES / "review.json", ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        labels = h.tree_labels(app)
        assert labels["fetch"].startswith(" * fetch agent a2")  # done is `*`: `+` is a tree guide
        assert all(text.isascii() for text in labels.values()), labels
        assert all(g.isascii() for g in present.ASCII.status.values())
        assert app.animation_level == "none"  # make_app passes animations=False


async def test_flow_file_warnings_show_in_log_and_overview(h, tmp_path):
    from tftui.flow.load import load_flow
    from tftui.tui.widgets.phase_detail import PhaseDetail

    flow = tmp_path / "warn.json"
    flow.write_text('{"name": "w", "phases": [{"id": "a", "task": "x", "until": "true"}]}')
    (tmp_path / "warn.replies.json").write_text('{"a": ["ok"]}')
    warnings = load_flow(flow).warnings
    assert warnings
    app = h.make_app(flow, initial_diagnostics=warnings)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert any("only meaningful on loop phases" in e.text for e in app.query_one("#log").entries)
        assert "Flow file warnings:" in app.query_one(PhaseDetail).text("overview")


async def test_ascii_tree_guides_and_expand_icons_are_ascii(h):
    from tftui.tui.widgets.dag_tree import DagTree

    app = h.make_app(h.FIXTURES / "gate_block.json", ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        tree = app.query_one(DagTree)
        lines = [tree.render_line(y).text for y in range(tree.size.height)]
        drawn = [line for line in lines if line.strip()]
        assert len(drawn) >= 4  # nested children: guides and expand icons are drawn
        assert all(line.isascii() for line in drawn), drawn  # was ▼ ├ └ │ under --ascii
