"""Long text (issue 15, item 8): the panel's note says which lines it draws and draws them;
the `o` viewer finds (`/`, n/N), goes to the start/end (g/G, ctrl+home/ctrl+end), wraps (`w`).
Copy (item 10): `y` says whether a clipboard program confirmed the copy or the text went to a
file (the terminal's OSC 52 cannot be confirmed)."""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from tftui.agents.scripted import ScriptedRunner
from tftui.tui.screens.full_text import FullTextScreen
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.phase_detail import PhaseDetail

SIZED = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
MODES = pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
# Long enough to be cut in the panel five times over (it draws at most 300 lines or 30,000 characters)
# and to need the viewer's g/G and search; more lines only cost the viewer's soft wrap more CPU.
LINES = 1000
TEXT = "\n".join(f"line {i + 1}: " + "lorem ipsum dolor sit amet " * 5 for i in range(LINES))  # ~150 chars each


def _flow(tmp_path: Path) -> tuple[Path, ScriptedRunner]:
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"name": "long", "phases": [{"id": "a", "task": "write a lot"}]}))
    return path, ScriptedRunner({"a": [TEXT]})


async def _open_output(h, app, pilot) -> PhaseDetail:
    await pilot.press("c")
    await h.run_to_end(pilot, app)
    app.query_one(DagTree).select_phase("a")
    detail = app.query_one(PhaseDetail)
    detail.active = "output"
    await pilot.pause()
    return detail


@SIZED
@MODES
async def test_the_panel_draws_the_lines_its_note_names(h, tmp_path, size, ascii):
    path, runner = _flow(tmp_path)
    app = h.make_app(path, runner=runner, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        detail = await _open_output(h, app, pilot)
        body = str(detail.body.content)
        drawn, note = body.rstrip("\n").rsplit("\n", 1)
        match = re.search(r"the panel shows lines 1[–-]([\d,]+) of ([\d,]+)", note)
        assert match, note
        said, total = int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))
        assert total == LINES
        assert drawn.count("\n") + 1 == said  # what it says is what it draws
        assert drawn.splitlines()[-1].startswith(f"line {said}: ")
        assert f"{LINES - said:,} more lines not drawn here" in note and note.endswith("o shows the whole text")
        # and the screen shows the note when scrolled to the end of the panel
        detail.query_one("#detail-scroll").scroll_end(animate=False)
        await pilot.pause()
        shown = " ".join(" ".join(h.pane_lines(app, detail.query_one("#detail-scroll"))).split())
        assert "o shows the whole text" in shown


def _hint_shown(h, app) -> str:
    """The viewer's hint as the screen shows it (on as many rows as it takes)."""
    hint = app.screen.query_one("#full-text-hint")
    rows = h.screen_lines(app)[hint.region.y : hint.region.bottom]
    return " ".join(row[hint.region.x : hint.region.right].strip() for row in rows)


def _hint_whole(h, app) -> bool:
    return _hint_shown(h, app).endswith("y copy · esc/q close".replace("·", "|" if app.ascii_filter.enabled else "·"))


def _viewer_rows(h, app) -> list[str]:
    return h.pane_lines(app, app.screen.query_one(TextArea))


@SIZED
@MODES
async def test_the_viewer_goes_to_the_end_finds_and_wraps(h, tmp_path, size, ascii):
    path, runner = _flow(tmp_path)
    app = h.make_app(path, runner=runner, ascii=ascii)
    async with app.run_test(size=size) as pilot:
        await _open_output(h, app, pilot)
        await pilot.press("o")
        await h.settle(pilot, lambda: isinstance(app.screen, FullTextScreen))
        area = app.screen.query_one(TextArea)
        assert any("g/G start/end" in row for row in h.screen_lines(app))
        await pilot.press("n")  # nothing searched yet: the hint says so and still shows every key
        await pilot.pause()
        assert _hint_shown(h, app).startswith("/ first: nothing to find yet") and _hint_whole(h, app)
        await pilot.press("G")  # one key to the end of all the lines
        await pilot.pause()
        assert area.cursor_location[0] == LINES - 1
        assert any(f"line {LINES}: " in row for row in _viewer_rows(h, app))
        await pilot.press("g")
        await pilot.pause()
        assert area.cursor_location == (0, 0) and "line 1: " in _viewer_rows(h, app)[0]
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert area.cursor_location[0] == LINES - 1
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert area.cursor_location[0] == 0

        await pilot.press("slash")
        box = app.screen.query_one("#full-text-search", Input)
        h.type_fast(app, "LINE 932:")  # case-insensitive; key by key, in one burst
        await h.settle(pilot, lambda: box.value == "LINE 932:")
        await pilot.press("enter")
        await pilot.pause()
        assert area.selection.start == (931, 0) and area.selected_text == "line 932:"
        assert any("line 932: " in row for row in _viewer_rows(h, app))  # scrolled to it
        assert any("match 1 of 1" in row for row in h.screen_lines(app))
        await pilot.press("slash", "ctrl+u")
        h.type_fast(app, "dolor")
        await h.settle(pilot, lambda: box.value == "dolor")
        await pilot.press("enter")
        await pilot.pause()
        first = area.selection.start
        await pilot.press("n")
        await pilot.pause()
        assert area.selection.start > first and area.selected_text == "dolor"
        await pilot.press("N")
        await pilot.pause()
        assert area.selection.start == first
        assert any(f"of {LINES * 5:,}" in row for row in h.screen_lines(app))

        await pilot.press("g")
        await pilot.pause()
        unwrapped = _viewer_rows(h, app)
        await pilot.press("w")
        await pilot.pause()
        assert area.soft_wrap
        assert _hint_shown(h, app).startswith("wrap on") and _hint_whole(h, app)  # not cut at 80 columns
        wrapped = _viewer_rows(h, app)
        assert wrapped != unwrapped and "line 2: " not in " ".join(wrapped[:2])  # line 1 now takes rows
        assert "amet" in " ".join(wrapped[:3]).split("line 2")[0]  # the end of line 1 shows
        await pilot.press("escape")
        await h.settle(pilot, lambda: not isinstance(app.screen, FullTextScreen))


def _fake_clipboard(tmp_path: Path, code: int) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\n{shutil.which('cat')} > {tmp_path / 'clipboard.txt'}\nexit {code}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return bin_dir


@SIZED
@MODES
@pytest.mark.parametrize("confirmed", [True, False], ids=["clipboard-program", "no-clipboard"])
async def test_copy_says_what_it_did(h, tmp_path, monkeypatch, size, ascii, confirmed):
    bin_dir = _fake_clipboard(tmp_path, 0 if confirmed else 1)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    path, runner = _flow(tmp_path)
    app = h.make_app(path, runner=runner, ascii=ascii)
    async with app.run_test(size=size, notifications=True) as pilot:
        await _open_output(h, app, pilot)
        await pilot.press("o")
        await h.settle(pilot, lambda: isinstance(app.screen, FullTextScreen))
        await pilot.press("y")
        await h.settle(pilot, lambda: len(app.screen.query("Toast")) > 0)
        toast = app.screen.query("Toast").last()
        screen = " ".join(" ".join(h.pane_lines(app, toast)).split())  # the toast as drawn, rows joined
        saved = tmp_path / ".tftui" / "copied.txt"
        assert screen.isascii() or not ascii, screen
        if confirmed:
            assert "to the clipboard (xclip)" in screen, screen
            assert (tmp_path / "clipboard.txt").read_text() == TEXT
            assert not saved.exists()
        else:
            assert "Saved the whole text" in screen, screen
            assert str(saved) in "".join(row.strip() for row in h.pane_lines(app, toast))  # the path, whole
            assert "cannot be confirmed" in screen
            assert saved.read_text() == TEXT
            assert "to the clipboard" not in screen.replace("terminal clipboard", "")


@SIZED
async def test_a_search_typed_fast_reaches_the_search_box(h, tmp_path, size):
    """`/line 777:` and enter arriving in one burst (tmux send-keys): no key goes to the viewer's own n/g/q."""
    path, runner = _flow(tmp_path)
    app = h.make_app(path, runner=runner)
    async with app.run_test(size=size) as pilot:
        await _open_output(h, app, pilot)
        await pilot.press("o")
        await h.settle(pilot, lambda: isinstance(app.screen, FullTextScreen))
        h.type_fast(app, "/line 777:\r")
        await h.settle(pilot, lambda: app.screen.query_text != "")
        area = app.screen.query_one(TextArea)
        assert app.screen.query_text == "line 777:" and area.selection.start == (776, 0)
        assert any("match 1 of 1" in row for row in h.screen_lines(app))
        h.type_fast(app, "/a/b\r")  # a slash inside the search
        await h.settle(pilot, lambda: app.screen.query_text != "line 777:")
        assert app.screen.query_text == "a/b"


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_copy_takes_the_text_itself_masked_not_the_screen_rendering(h, tmp_path, monkeypatch, ascii):
    """`y` copies the answer as it is (not folded for --ascii, not escaped), a selection too, and
    never a known secret (issue 15)."""
    from tftui.redaction import forget_secrets, register_secret

    key = "sk-copy-0123456789abcdef"
    answer = f"Grüße — “quoted” dög\nthe key is {key}\nlast line"
    bin_dir = _fake_clipboard(tmp_path, 0)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    path = tmp_path / "copy.json"
    path.write_text(json.dumps({"name": "copy", "phases": [{"id": "a", "task": "write"}]}))
    register_secret(key)
    try:
        app = h.make_app(path, runner=ScriptedRunner({"a": [answer]}), ascii=ascii)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await _open_output(h, app, pilot)
            await pilot.press("o")
            await h.settle(pilot, lambda: isinstance(app.screen, FullTextScreen))
            viewer = app.screen
            await pilot.press("y")
            copied = tmp_path / "clipboard.txt"
            await h.settle(pilot, lambda: copied.exists() and len(app.screen.query("Toast")) > 0)
            text = copied.read_text()
            assert text.startswith("Grüße — “quoted” dög\nthe key is …") and text.endswith("last line"), text
            assert key not in text and key[-4:] in text
            copied.unlink()
            area = viewer.query_one(TextArea)
            area.selection = area.selection.__class__((0, 6), (1, 3))  # from the dash to "the"
            await pilot.press("y")
            await h.settle(pilot, lambda: copied.exists())
            expected = "— “quoted” dög\nthe" if not ascii else "Grüße — “quoted” dög\nthe key is …" + key[-4:]
            assert copied.read_text() == expected
    finally:
        forget_secrets()


async def test_copy_waits_for_the_clipboard_program_off_the_ui_thread(h, tmp_path, monkeypatch):
    """A clipboard program that takes its time (a slow X server) does not hold the keys: the
    viewer answers while it runs, and the toast comes when it has answered (issue 15)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    release = tmp_path / "release"
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\n{shutil.which('cat')} > {tmp_path / 'got.txt'}\n"
                    f"while [ ! -e {release} ]; do sleep 0.02; done\nexit 0\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    path = tmp_path / "copy.json"
    path.write_text(json.dumps({"name": "copy", "phases": [{"id": "a", "task": "write"}]}))
    app = h.make_app(path, runner=ScriptedRunner({"a": ["a short answer"]}))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await _open_output(h, app, pilot)
        await pilot.press("o")
        await h.settle(pilot, lambda: isinstance(app.screen, FullTextScreen))
        area = app.screen.query_one(TextArea)
        await pilot.press("y")
        await h.settle(pilot, lambda: (tmp_path / "got.txt").exists())
        await pilot.press("w")  # while the program still runs
        assert area.soft_wrap and not app.screen.query("Toast")
        release.touch()
        await h.settle(pilot, lambda: len(app.screen.query("Toast")) > 0)
        toast = " ".join(" ".join(h.pane_lines(app, app.screen.query("Toast").last())).split())
        assert "to the clipboard (xclip)" in toast, toast


def test_a_lone_surrogate_is_copied_not_dropped(tmp_path):
    # A reply can hold half an emoji (a stream cut its escape pair); the copy still lands.
    from tftui.tui.clipboard import copy_text, copyable

    sent: list[str] = []
    copied = copy_text(copyable("emoji cut \ud83d here"), tmp_path, osc52=sent.append, env={"PATH": ""})
    assert copied.path == tmp_path / "copied.txt"
    assert copied.path.read_text(encoding="utf-8") == "emoji cut \\ud83d here"
    assert sent == ["emoji cut \\ud83d here"]


def test_a_selection_after_a_unicode_line_separator_copies_the_selected_row():
    # U+2028 breaks a TextArea's rows but not split("\n"): the shown text escapes it, so the
    # row a user selects is the raw row copied.
    from textual.widgets.text_area import Document

    from tftui.present.terminal import term_text
    from tftui.tui.clipboard import raw_selection

    raw = "intro\u2028visible row two\nthe key line\nlast"
    shown = term_text(raw)
    rows = Document(shown).lines
    assert rows[1] == "the key line"
    assert raw_selection(shown, raw, (1, 0), (1, 12), rows[1]) == "the key line"
