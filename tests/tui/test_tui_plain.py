"""Plain terminals: NO_COLOR is honoured, --ascii swaps every glyph, animations can be off."""

from __future__ import annotations

from tftui.tui import present


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
        assert labels["fetch"].startswith(" + fetch agent a2")
        assert all(text.isascii() for text in labels.values()), labels
        assert all(g.isascii() for g in present.ASCII.status.values())
        assert app.animation_level == "none"  # make_app passes animations=False
