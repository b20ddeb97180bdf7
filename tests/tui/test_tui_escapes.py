"""The debugger never draws a control character raw (issue 17, fault 4): escape sequences in phase
ids, flow names, replies and error texts appear escaped (`\\x1b`) in the tree, header, detail
tabs, event log and toasts; nothing of them reaches the terminal as a sequence."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from tftui.tui.widgets.phase_detail import PhaseDetail

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;PWNED\x07"
CLIPBOARD = "\x1b]52;c;aGVsbG8=\x07"
RAW = ("\x1b", "\x07", "\u202e", "\x9b")
_TEXT = re.compile(r"<text[^>]*>(.*?)</text>")


def _drawn(app) -> str:
    return "".join(html.unescape(t).replace("\xa0", " ") for t in _TEXT.findall(app.export_screenshot()))


def _flow(tmp_path: Path) -> Path:
    flow = {
        "name": f"evil{TITLE}name",
        "phases": [
            {"id": f"a{CLEAR}b", "type": "agent", "agent": "x", "task": "say hi"},
            {"id": "broken", "type": "agent", "agent": "x", "task": "hi", "dependsOn": [f"a{CLEAR}b"],
             "optional": True},
        ],
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(flow), encoding="utf-8")
    replies = {f"a{CLEAR}b": [f"reply {CLIPBOARD}\u202e end"], "broken": [{"error": f"boom {TITLE} \x9b31m"}]}
    (tmp_path / "evil.replies.json").write_text(json.dumps(replies), encoding="utf-8")
    return path


async def test_ids_names_replies_and_errors_are_drawn_escaped(h, tmp_path: Path) -> None:
    app = h.make_app(_flow(tmp_path))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # toasts too
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        await pilot.pause()
        tree = app.query_one("#tree")
        detail = app.query_one(PhaseDetail)

        tree.select_phase(f"a{CLEAR}b")
        detail.active = "output"
        await pilot.pause()
        await pilot.pause()
        screen = _drawn(app)
        assert "a\\x1b[2Jb" in screen  # the tree's id
        assert "reply \\x1b]52;c;aGVsbG8=" in screen and "\\u202e end" in screen  # the reply, in the output tab
        assert "\\x1b]0;PWNED\\x07" in screen  # the flow's name, in the header
        for char in RAW:
            assert char not in screen

        tree.select_phase("broken")
        detail.active = "overview"
        await pilot.pause()
        await pilot.pause()
        screen = _drawn(app)
        assert "boom \\x1b]0;PWNED\\x07 \\x9b31m" in screen  # the error text
        for char in RAW:
            assert char not in screen

        app.notify(f"toast {CLEAR}")
        await h.settle(pilot, lambda: "toast" in _drawn(app), limit=100)
        screen = _drawn(app)
        assert "toast \\x1b[2J" in screen
        for char in RAW:
            assert char not in screen
