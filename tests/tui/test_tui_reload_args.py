"""Hot reload re-checks the `--arg` names the debugger was opened with (issue 15 follow-up): a save
that removes the `args` entry a passed name matched, or adds a required arg the command line does
not pass, is reported as `tftui check` and `tftui run` report the same file with the same `--arg`
(tftui/admit.py is the one admission); a refused version keeps the last good flow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FLOW = {
    "name": "args-reload",
    "args": {"topic": {"default": "x"}, "topics": {"default": "y"}, "limit": {"type": "number", "default": 1}},
    "phases": [
        {"id": "a", "task": "about {args.topic} and {args.topics}"},
        {"id": "b", "task": "count to {args.limit}", "dependsOn": ["a"]},
    ],
}


def _without_topic() -> dict:
    """`topic` dropped from `args` and from the text: `topics` is still there (a close name)."""
    data = json.loads(json.dumps(FLOW))
    del data["args"]["topic"]
    data["phases"][0]["task"] = "about {args.topics}"
    return data


def _without_limit() -> dict:
    """`limit` dropped from `args` and from the text: no name is close to it."""
    data = json.loads(json.dumps(FLOW))
    del data["args"]["limit"]
    data["phases"][1]["task"] = "count to three"
    return data


def _with_a_required_arg() -> dict:
    data = json.loads(json.dumps(FLOW))
    data["args"]["count"] = {"type": "number", "required": True}
    return data


def _opened(h, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp: Path, flow: Path, *argv: str):
    """The app `tftui FLOW ARGV` builds (with its admission rules), not run yet."""
    from tftui.tui.app import TftuiApp

    opened: list[TftuiApp] = []
    with monkeypatch.context() as m:
        m.setattr(TftuiApp, "run", lambda self, *a, **k: opened.append(self) or 0)
        code, said = h.cli(monkeypatch, capsys, tmp, str(flow), "--no-journal", *argv)
    assert code == 0 and opened, said
    return opened[0]


def _saved_elsewhere(tmp: Path, data: dict) -> Path:
    """The saved text in another folder, for the commands to say what they say about it."""
    copy = tmp / "copy" / "flow.json"
    copy.parent.mkdir(exist_ok=True)
    copy.write_text(json.dumps(data, indent=2))
    copy.with_name("flow.replies.json").write_text(json.dumps({"a": "A", "b": "B"}))
    return copy


def _flow(tmp: Path) -> Path:
    path = tmp / "flow.json"
    path.write_text(json.dumps(FLOW, indent=2))
    path.with_name("flow.replies.json").write_text(json.dumps({"a": "A", "b": "B"}))
    return path


@pytest.mark.parametrize(
    ("argv", "edit", "wanted"),
    [
        (["--arg", "topic=rust"], _without_topic, "--arg topic: the flow has no arg 'topic' — did you mean 'topics'?"),
        (["--arg", "topic=rust"], _with_a_required_arg, "Missing required argument 'count'"),
    ],
    ids=["removed-arg-is-a-typo-now", "added-required-arg"],
)
async def test_a_save_the_passed_args_no_longer_fit_is_refused_as_run_refuses_it(
    h, tmp_path, monkeypatch, capsys, argv, edit, wanted
):
    flow = _flow(tmp_path)
    copy = _saved_elsewhere(tmp_path, edit())
    code, said = h.cli(monkeypatch, capsys, tmp_path, "run", str(copy), *argv)
    assert code == 2 and wanted in said, said
    _, checked = h.cli(monkeypatch, capsys, tmp_path, "check", str(copy), *argv)
    check_errors = [line.replace(str(copy), str(flow)) for line in checked.splitlines() if ": error: " in line]
    assert any(wanted in line for line in check_errors), checked

    app = _opened(h, monkeypatch, capsys, tmp_path, flow, *argv)
    app.watch_enabled = True
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.query_one("#diagnostics")
        before = app.flow
        flow.write_text(copy.read_text())
        await h.settle(pilot, lambda: panel.has_class("-visible"))
        shown = str(panel.render()).splitlines()
        assert shown[1:] == check_errors  # the lines `tftui check` prints for this file and these --arg
        assert app.flow is before  # the last good flow stays
        await pilot.press("u")
        await pilot.pause()
        assert not app.ctl.running  # nothing re-runs the refused version


async def test_a_save_that_drops_a_passed_name_warns_and_reloads(h, tmp_path, monkeypatch, capsys):
    flow = _flow(tmp_path)
    argv = ["--arg", "limit:=3"]
    copy = _saved_elsewhere(tmp_path, _without_limit())
    code, said = h.cli(monkeypatch, capsys, tmp_path, "check", str(copy), *argv)  # (run would run it: not here)
    wanted = "--arg limit: the flow neither declares nor uses 'limit'"
    assert code == 0 and f"{copy}: warning: {wanted}" in said, said

    app = _opened(h, monkeypatch, capsys, tmp_path, flow, *argv)
    assert not any(wanted in note for note in app.config_problems)  # the file it opened uses `limit`
    app.watch_enabled = True
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.main.event_log
        flow.write_text(copy.read_text())
        await h.settle(pilot, lambda: "count to three" in (app.flow.phase("b").task or ""))
        noted = [line for line in log.lines if wanted in line]
        assert len(noted) == 1 and "reload:" in noted[0], list(log.lines)
        assert not app.query_one("#diagnostics").has_class("-visible")
        # saved again with the same names: said once, not on every save
        data = _without_limit()
        data["phases"][0]["task"] += " (again)"
        flow.write_text(json.dumps(data, indent=2))
        await h.settle(pilot, lambda: "(again)" in (app.flow.phase("a").task or ""))
        assert len([line for line in log.lines if wanted in line]) == 1
