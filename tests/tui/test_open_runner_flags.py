"""`tftui FLOW` takes the runner flags `tftui run` takes (issue 15, item 7): the README's
`--agent-cmd "CMD ARGS"` was refused by the debugger."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from tftui.cli import build_parser, main
from tftui.tui.app import TftuiApp
from tftui.tui.widgets.dag_tree import DagTree
from tftui.tui.widgets.phase_detail import PhaseDetail

SAMPLES = Path(__file__).parents[2] / "sample_flows"


def _group(parser: argparse.ArgumentParser, title_start: str) -> list[str]:
    group = next(g for g in parser._action_groups if (g.title or "").startswith(title_start))
    return [option for action in group._group_actions for option in action.option_strings]


def test_the_debugger_and_run_list_the_same_runner_flags():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    opened, ran = sub.choices["open"], sub.choices["run"]
    assert _group(opened, "who answers") == _group(ran, "who answers") == ["--replies", "--provider", "--agent-cmd"]
    assert "--agent-cmd CMD" in opened.format_help()


@pytest.mark.skipif(shutil.which("cat") is None, reason="needs cat")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_agent_cmd_answers_in_the_debugger(tmp_path, monkeypatch, h, size, ascii):
    """`tftui FLOW --agent-cmd cat`: every prompt comes back as its answer (cat echoes stdin),
    and the header says the agent reported no usage (issue 15 items 7 and 16)."""
    flow = tmp_path / "echo.json"
    flow.write_text('{"name": "echo", "phases": [{"id": "a", "task": "say the magic word: xyzzy"}]}')
    opened: list[TftuiApp] = []
    monkeypatch.setattr(TftuiApp, "run", lambda self, *a, **k: opened.append(self) or 0)
    looks = ["--ascii"] if ascii else []
    assert main([str(flow), "--agent-cmd", "cat", "--no-journal", "--no-watch", "--no-animations", *looks]) == 0
    (app,) = opened
    assert type(app.ctl.runner).__name__ == "CommandRunner"
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert app.state.phases["a"].status == "done"
        app.query_one(DagTree).select_phase("a")
        detail = app.query_one(PhaseDetail)
        detail.active = "output"
        await pilot.pause()
        shown = "\n".join(h.pane_lines(app, detail.query_one("#detail-scroll")))
        assert "say the magic word: xyzzy" in shown
        header = h.screen_lines(app)[0]
        assert "? tok cost unknown" in header and "0 tok" not in header, header
        assert header.isascii() or not ascii


def test_agent_cmd_and_replies_together_are_refused(tmp_path, capsys):
    flow = SAMPLES / "gate_block.json"
    code = main([str(flow), "--agent-cmd", "cat", "--replies", str(flow.with_name("gate_block.replies.json")),
                 "--no-journal"])
    assert code == 2
    assert "choose one of --replies, --agent-cmd" in capsys.readouterr().err
