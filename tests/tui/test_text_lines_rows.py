"""The detail body (widgets/text_lines.py) draws each row of a long line alone, cut where Textual's
own wrap of the whole line cuts it (a landed 30,000-character answer is one line of hundreds of
rows, and only those on screen are drawn): every row, its styles and its selection offsets are
the ones the whole text drawn at once has (what the panel's Static drew)."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

from tftui.tui.widgets.text_lines import TextLines

WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "


def texts() -> list[Text]:
    styled = Text(WORDS * 12)
    styled.stylize("bold", 40, 400)
    styled.stylize("italic red", 390, 700)
    return [
        Text((WORDS * 40)[:2500]),  # one long line of words (a landed answer)
        Text("short line\n" + WORDS * 9 + "\n\n" + "x" * 700 + "\nend"),  # a word longer than a row: folded
        Text(("word   " * 120) + "   tail   "),  # runs of spaces where rows are cut
        Text("数据" * 200 + " mixed " + "ｗｉｄｅ " * 60),  # double-width cells
        styled,
        Text("a\tb " * 50 + "\n" + WORDS * 5),  # a line with tabs (drawn whole) and a long one
    ]


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TextLines(id="body")


def normal(strip: Strip) -> list[tuple[str, object]]:
    """A row as (character run, style) pairs, adjacent runs of one style joined."""
    return [(segment.text, segment.style) for segment in Segment.simplify(strip)]


async def drawn_rows(body: TextLines, rows: int) -> list[Strip]:
    height = body.scrollable_content_region.height
    out: dict[int, Strip] = {}
    for top in range(0, rows, height):
        body.scroll_to(y=top, animate=False, immediate=True)
        at = body.scroll_offset.y  # the last page stops at the end
        out.update({at + y: body.render_line(y) for y in range(min(height, rows - at))})
    return [out[row] for row in range(rows)]


async def test_each_row_of_a_long_line_is_the_row_the_whole_text_draws() -> None:
    app = Host()
    async with app.run_test(size=(60, 12)) as pilot:
        body = app.query_one(TextLines)
        for size in ((60, 12), (37, 12), (81, 14)):
            await pilot.resize_terminal(*size)
            for text in texts():
                body.update(text)
                await pilot.pause()
                width = body.text_width
                whole = Visual.to_strips(body, body.whole_content, width, None, body.visual_style)
                assert body.virtual_size.height == len(whole)
                assert body.show_vertical_scrollbar == (len(whole) > body.container_size.height)
                base, background = body.background_colors
                inner = Style(background=base + background).rich_style
                pad = [Segment(" ", inner)]
                expected = [Strip([*pad, *row.adjust_cell_length(width, inner), *pad]) for row in whole]
                got = await drawn_rows(body, len(whole))
                for number, (row, want) in enumerate(zip(got, expected, strict=True)):
                    assert normal(row) == normal(want), (size, text.plain[:30], number, row.text, want.text)
                body.scroll_to(y=0, animate=False, immediate=True)
