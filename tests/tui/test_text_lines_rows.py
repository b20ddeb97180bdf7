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


def shown(body: TextLines) -> list[list[tuple[str, object]]]:
    """The panel's rows as the compositor takes them (Textual's kept rows, the dirty ones drawn again)."""
    return [normal(strip) for strip in body.render_lines(body.size.region)]


def drawn_afresh(body: TextLines) -> list[list[tuple[str, object]]]:
    body._styles_cache.clear()
    return shown(body)


def count_drawn(body: TextLines) -> list[int]:
    """The rows `body` draws from now on (Textual asks for a row only when it is dirty)."""
    drawn: list[int] = []
    draw = body.render_line

    def counted(y: int) -> Strip:
        drawn.append(y)
        return draw(y)

    body.render_line = counted  # type: ignore[method-assign]
    return drawn


def lines(count: int, changed: dict[int, str] | None = None) -> Text:
    rows = [f"line {i}" for i in range(count)]
    for index, text in (changed or {}).items():
        rows[index] = text
    text = Text("\n".join(rows))
    text.stylize("bold", 0, 6)
    return text


async def showing(app: Host, pilot, text: Text) -> TextLines:
    """The app's panel, showing `text` on screen."""
    body = app.query_one(TextLines)
    body.update(text)
    await pilot.pause()
    return body


def update_drawn(body: TextLines, drawn: list[int], text: Text) -> tuple[list[int], list[str]]:
    """Show `text`: the rows drawn again for it, and the panel's rows as plain text, after checking
    that they are the rows a panel drawn afresh shows."""
    drawn.clear()
    body.update(text)
    rows = shown(body)
    again = list(drawn)
    assert rows == drawn_afresh(body)
    return again, ["".join(piece for piece, _ in row).strip() for row in rows]


async def test_an_update_repaints_only_the_rows_that_changed_and_shows_the_new_text() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        body = await showing(app, pilot, lines(5))
        drawn = count_drawn(body)
        assert update_drawn(body, drawn, lines(5))[1][:6] == ["line 0", "line 1", "line 2", "line 3", "line 4", ""]
        # one line changed (a count going up while a run goes): that row alone is drawn again
        again, rows = update_drawn(body, drawn, lines(5, {2: "line 2 changed"}))
        assert again == [2]
        assert rows[2] == "line 2 changed"
        # lines changed and added: "first", "line 2" again, two new rows
        assert update_drawn(body, drawn, lines(7, {1: "first"}))[0] == [1, 2, 5, 6]
        # row 1 changed back; rows 3-6 are blank now
        assert update_drawn(body, drawn, lines(3))[0] == [1, 3, 4, 5, 6]
        # the same text: nothing drawn
        assert update_drawn(body, drawn, lines(3))[0] == []
        # a line inserted: the rows below it move, so they are drawn again
        inserted = Text("line 0\nnew\nline 1\nline 2")
        inserted.stylize("bold", 0, 6)  # as lines() styles its first line
        assert update_drawn(body, drawn, inserted) == ([1, 2, 3], ["line 0", "new", "line 1", "line 2", *[""] * 6])


async def test_a_scrolled_panel_repaints_only_changed_rows_on_screen() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        body = await showing(app, pilot, lines(40))
        body.scroll_to(y=20, animate=False, immediate=True)
        await pilot.pause()
        shown(body)
        drawn = count_drawn(body)
        again, rows = update_drawn(body, drawn, lines(40, {3: "above the panel", 22: "on screen"}))
        assert again == [2]  # row 22, the panel's third
        assert rows[2] == "on screen"


async def test_an_update_that_brings_a_scrollbar_repaints_the_whole_panel() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        body = await showing(app, pilot, lines(3))
        body.update(lines(30))  # more rows than the panel: a scrollbar narrows every row
        await pilot.pause()
        assert body.show_vertical_scrollbar
        assert shown(body) == drawn_afresh(body)


async def test_a_text_that_shrinks_under_the_scroll_position_is_shown_whole() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        body = await showing(app, pilot, lines(40))
        body.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        shown(body)
        body.update(lines(12, {11: "the last"}))  # the panel was scrolled past the new end
        await pilot.pause()
        rows = shown(body)
        assert rows == drawn_afresh(body)
        assert "the last" in "".join(piece for piece, _ in rows[-1])
