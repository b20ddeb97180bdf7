"""The detail tabs' line view splits a tab's text into lines itself (widgets/text_lines.py,
README "Large flows"): each line must carry the text and styles Textual's own conversion and
split give it, so a tab draws exactly what it drew when the whole text went through Textual."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style as RichStyle
from rich.text import Span, Text
from textual.app import App
from textual.content import Content

from tftui.tui.widgets.text_lines import text_lines

STYLES = st.sampled_from(["bold", "dim", "italic red", "on blue", RichStyle(bold=True), RichStyle(color="green")])


@st.composite
def texts(draw: st.DrawFn) -> Text:
    plain = draw(st.text(alphabet="ab \n\t界", max_size=30))
    text = Text(plain, style=draw(st.sampled_from(["", "dim", RichStyle(italic=True)])))
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(plain) + 2))
        text.spans.append(Span(start, draw(st.integers(0, len(plain) + 4)), draw(STYLES)))
    return text


async def test_lines_carry_what_textuals_split_gives_them() -> None:
    async with App().run_test() as pilot:
        app = pilot.app

        @settings(max_examples=150, deadline=None)
        @given(texts())
        def check(text: Text) -> None:
            want = Content.from_rich_text(text, app.console).split(allow_blank=True)
            got = text_lines(text, app.console, app.ansi_theme)
            assert [(line.plain, list(line.spans)) for line in got] == [(line.plain, list(line.spans)) for line in want]

        check()
