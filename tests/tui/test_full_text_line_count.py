"""The `o` viewer's title counts the lines it shows."""

from __future__ import annotations

from textual.widgets import TextArea

from tftui.tui.screens.full_text import FullTextScreen


async def test_title_counts_the_lines_the_viewer_shows(h):
    app = h.make_app(h.FIXTURES / "review.json")
    async with app.run_test(size=(80, 24)) as pilot:
        for text, lines in (("a\nb\nc\n", 3), ("a\nb\nc", 3), ("one\n", 1), ("a\r\nb\r\n", 2), ("a\n\n", 2)):
            screen = FullTextScreen("t", text)
            await app.push_screen(screen)
            await pilot.pause()
            area = screen.query_one(TextArea)
            assert area.document.line_count == lines, repr(text)  # no empty line for the final newline
            title = str(screen.query_one(".modal-title").render())
            assert title == f"t — {lines} line{'s' if lines != 1 else ''}", title
            screen.dismiss()
            await pilot.pause()
