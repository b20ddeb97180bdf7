"""`tftui FLOW` opens before the linter has run (issue 18: its warnings never refuse a flow, and a
5,000-phase flow's lint was part of first paint); the warnings then show on their phase and in
the event log in the words `tftui check` prints, each once."""

from __future__ import annotations

import json

import pytest

from tftui import present
from tftui.present.asciifold import to_ascii


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_the_linters_warnings_show_after_the_debugger_opens(h, tmp_path, monkeypatch, capsys, size, ascii):
    from tftui.tui.app import TftuiApp

    flow = tmp_path / "typo.json"
    flow.write_text(json.dumps({"name": "typo", "phases": [
        {"id": "fetch", "task": "Fetch."},
        {"id": "notes", "task": "Notes on {steps.fetch.outptu}", "dependsOn": ["fetch"]},
    ]}, indent=2))
    flow.with_name("typo.replies.json").write_text(json.dumps({"fetch": "F", "notes": "N"}))
    _, checked = h.cli(monkeypatch, capsys, tmp_path, "check", str(flow))
    [line] = [line for line in checked.splitlines() if "outptu" in line]
    assert ": warning: " in line

    opened: list[TftuiApp] = []
    with monkeypatch.context() as m:
        m.setattr(TftuiApp, "run", lambda self, *a, **k: opened.append(self) or 0)
        code, said = h.cli(monkeypatch, capsys, tmp_path, str(flow), "--no-journal", "--no-watch",
                             *(["--ascii"] if ascii else []))
    assert code == 0 and opened, said
    app = opened[0]
    assert app.pending_lint is not None  # not linted before it opens
    assert (app.glyphs is present.ASCII) is ascii
    async with app.run_test(size=size) as pilot:
        await h.settle(pilot, lambda: "notes" in app.file_warnings)
        message = line.split(": warning: ", 1)[1].removesuffix(" [notes]")  # the overview names no phase tag
        assert [w for w in app.file_warnings["notes"] if "outptu" in w] == [message]
        await pilot.pause()
        shown = to_ascii(line) if ascii else line  # the log folds what it writes under --ascii (the dash)
        assert [entry for entry in app.main.event_log.lines if "outptu" in entry] == [f"{app.glyphs.mark} {shown}"]
        assert all(row.isascii() for row in h.screen_lines(app)) or not ascii
