"""Helpers for the TUI tests: build a TftuiApp on a fixture flow, wait for the run to settle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.flow.load import load_flow
from tftui.tui.app import TftuiApp

FIXTURES = Path(__file__).parent / "fixtures"


def make_app(flow_path: Path, replies: Path | None = None, *, watch: bool = False, **kwargs) -> TftuiApp:
    result = load_flow(flow_path)
    assert result.flow is not None, result.diagnostics
    if replies is None:
        replies = flow_path.with_name(flow_path.stem + ".replies.json")
    runner = kwargs.pop("runner", None) or ScriptedRunner.from_file(replies)
    return TftuiApp(
        result.flow,
        flow_path=str(flow_path),
        flow_text=result.source_text,
        runner=runner,
        clock=kwargs.pop("clock", None) or InstantClock(),
        show_times=False,
        animations=False,
        watch=watch,
        config_path=kwargs.pop("config_path", None) or (flow_path.parent / "no-config.toml"),
        **kwargs,
    )


def make_human_app(flow_path: Path, **kwargs) -> TftuiApp:
    """An app whose runner asks the person at the screen (answer and approval modals)."""
    from tftui.agents.human import HumanRunner

    holder: dict[str, TftuiApp] = {}
    app = make_app(flow_path, runner=HumanRunner(lambda request: holder["app"].ask_human(request)), **kwargs)
    holder["app"] = app
    return app


async def settle(pilot, predicate, *, limit: int = 500) -> None:
    """Let the app process messages until `predicate()` holds (bounded by a step count, not a clock)."""
    for _ in range(limit):
        await pilot.pause(0.01)
        if predicate():
            await pilot.pause()
            return
    raise AssertionError("the app did not reach the expected state")


async def run_to_end(pilot, app: TftuiApp) -> None:
    await settle(pilot, lambda: app.last_result is not None and not app.ctl.running)


async def what_if(pilot, screen, **values: str) -> str:
    """Set what-if fields (`threshold="0.5"`, `s1_pattern=...`) and wait until the dialog shows its
    answer for exactly these values; returns that answer's text. The answer is worked out in a
    worker thread (docs/trust.md §3: a regex match has a budget), so on a loaded machine it can
    arrive frames after the change: reading it after one pause could read "checking…" or the
    answer for the values before."""
    from textual.widgets import Input

    changes = 0
    asked = screen._asked  # the dialog numbers the form's values as they change
    for key, value in values.items():
        field = screen.query_one(f"#wi-{key.replace('_', '-')}", Input)
        changes += field.value != value  # an unchanged value sends no Changed message
        field.value = value
    await settle(pilot, lambda: screen._asked >= asked + changes and not screen.checking)
    return str(screen.query_one("#whatif-result").render())


def statuses(app: TftuiApp) -> dict[str, str]:
    from tftui import present

    return {pid: present.display_status(st, stale=pid in app.stale) for pid, st in app.state.phases.items()}


def tree_labels(app: TftuiApp) -> dict[str, str]:
    from tftui.tui.widgets.dag_tree import DagTree

    tree = app.query_one(DagTree)
    out = {}
    for pid, nodes in tree._phase_nodes.items():
        out[pid] = nodes[0].label.plain
    return out


def screen_text(app: TftuiApp) -> str:
    return "\n".join(screen_lines(app))




def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp: Path, *argv: str) -> tuple[int, str]:
    """`tftui ARGV` in this process, with its settings and runs under `tmp`: (exit code, what it printed)."""
    import os

    from tftui.cli import main

    with monkeypatch.context() as m:
        for key in [k for k in os.environ if k.startswith("TFTUI_")]:
            m.delenv(key)
        m.setenv("XDG_CONFIG_HOME", str(tmp / "xdg"))
        m.setenv("HOME", str(tmp / "home"))
        m.setenv("TFTUI_RUNS_DIR", str(tmp / "runs"))
        capsys.readouterr()
        code = main(list(argv))
        out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A writable copy of the fixtures (hot-reload tests edit the flow file)."""
    for item in FIXTURES.iterdir():
        if item.is_file():
            shutil.copy(item, tmp_path / item.name)
    return tmp_path


@pytest.fixture
def h():
    """The helpers above, as a fixture (tests cannot import conftest under --import-mode=importlib)."""
    import sys

    return sys.modules[__name__]


def screen_lines(app: TftuiApp) -> list[str]:
    """What the terminal shows, one string per row (after every line filter, --ascii's included)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def pane_lines(app: TftuiApp, widget) -> list[str]:
    """The rows of the screen a widget shows its content in (without border or scrollbars), cut to its columns."""
    region = widget.scrollable_content_region
    rows = screen_lines(app)[region.y : region.y + region.height]
    return [row[region.x : region.x + region.width] for row in rows]


_KEY_NAMES = {"\r": "enter", "\b": "backspace"}


def type_fast(app: TftuiApp, text: str) -> None:
    """Queue `text` as key presses all at once, as a paste, a fast typist or `tmux send-keys`
    delivers them (Pilot's press waits for the app between keys, which hides lost keys).
    A key's name is Textual's own for its character, as pilot.press names it."""
    from textual import events
    from textual.keys import _character_to_key

    for char in text:
        name = _KEY_NAMES.get(char) or (char if char.isalnum() else _character_to_key(char))
        app.post_message(events.Key(name, None if name in ("enter", "backspace") else char))


async def type_into(pilot, app: TftuiApp, field, text: str) -> None:
    """Empty the Input `field` (focused), type `text` into it key by key in one burst (type_fast)
    and wait until it holds the text: every key still goes through the field and every change
    reaches its handlers, without pilot.press's idle wait per key (~50 ms a key, a frame each)."""
    field.value = ""
    type_fast(app, text)
    await settle(pilot, lambda: field.value == text)
