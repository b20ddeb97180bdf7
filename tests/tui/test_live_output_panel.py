"""Issue 15 item 15: while a long answer streams in, the Output tab shows its newest words at the
bottom of the panel, and the note above them says truly how much of it is shown (README "Streaming")."""

from __future__ import annotations

import json
import re

import pytest
from rich.text import Text

from tftui.tui.widgets.live_panel import live_rows

SIZES = [(80, 24), (120, 40)]
LOOKS = [False, True]
NOTE = re.compile(r"\(streaming: ([\d,]+) characters so far; the newest ([\d,]+) shown\)")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii", LOOKS)
async def test_a_long_streamed_answer_shows_its_newest_words_as_the_note_says(h, tmp_path, fake_provider, size, ascii):
    from tftui.agents.openai import OpenAIRunner
    from tftui.config import ProviderConfig
    from tftui.present.live import LiveText

    flow = tmp_path / "stream.json"
    flow.write_text(json.dumps({"name": "stream", "phases": [{"id": "write", "task": "Write."}]}))
    words = [f"w{i:04d}" for i in range(600)]
    pieces = [" ".join(words[i : i + 5]) + " " for i in range(0, len(words), 5)]
    answer = "".join(pieces)
    events = fake_provider.stream_events(pieces, usage=(5, 7))
    fake_provider.add("sse", events=events, hold_at=len(events) - 2)  # every piece is in; the end is held
    live = LiveText()
    runner = OpenAIRunner(ProviderConfig(name="loop", base_url=fake_provider.url, model="m", stream=True),
                          env={}, on_chunk=live.add)
    app = h.make_app(flow, runner=runner, ascii=ascii, live_text=live)
    async with app.run_test(size=size) as pilot:
        app.main.detail.active = "output"
        await pilot.press("c")
        scroll = app.main.detail.query_one("#detail-scroll")

        def pane() -> str:
            return " ".join(" ".join(h.pane_lines(app, scroll)).split())

        await h.settle(pilot, lambda: fake_provider.holding.is_set() and "w0599" in pane(), limit=2000)
        shown_text = pane()
        note = NOTE.search(shown_text)
        assert note is not None, shown_text
        total, shown = (int(n.replace(",", "")) for n in note.groups())
        assert total == len(answer) and 0 < shown < total
        body = shown_text[note.end():].split()
        assert body == answer[-shown:].split(), (shown, body[:3], body[-3:])  # the newest words, all of them
        assert body[-1] == "w0599"
        assert len(h.pane_lines(app, scroll)) == scroll.scrollable_content_region.height
        fake_provider.release.set()
        await h.run_to_end(pilot, app)
        await h.settle(pilot, lambda: "streaming" not in pane())
        assert pane().startswith("w0000 w0001")  # the answer, from its start, once it is in


def test_live_rows_are_the_newest_rows_padded_to_the_panel():
    tail = Text(" ".join(f"w{i:02d}" for i in range(40)))  # 159 characters
    rows = live_rows(lambda shown: Text(f"note {shown}"), tail, 12, 5)
    lines = rows.content.plain.split("\n")
    assert len(lines) == 5 and lines[0] == f"note {rows.shown}"
    assert lines[-1].endswith("w39") and all(len(line) <= 12 for line in lines)
    assert " ".join(lines[1:]).split() == tail.plain[-rows.shown:].split()
    short = live_rows(lambda shown: Text("note"), Text("just this"), 12, 5).content.plain.split("\n")
    assert short == ["note", "just this", "", "", ""]  # blank rows keep the panel's size
    full = live_rows(lambda shown: Text("a long note that wraps"), tail, 8, 2)
    assert len(full.content.plain.split("\n")) == 2 and full.shown == 0
