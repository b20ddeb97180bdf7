"""Hot reload admits a saved version as `tftui run`, `tftui check` and `tftui FLOW` admit the file
(tftui/admit.py): a `cwd: "{args.X}"` without the opt-in, a missing comma each
show the same `file:line:col: error: …` line in the debugger's panel as `tftui run` prints, and the
debugger keeps running the last good flow (issue 15, issue 13 "one author per answer")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.admit import AdmitRules


def _bridged(text: str) -> str:
    data = json.loads(text)
    data["args"] = {"dir": {"type": "relative-path", "default": "sub"}}
    for phase in data["phases"]:
        if phase["id"] == "notes":
            phase["cwd"] = "{args.dir}"
    return json.dumps(data, indent=2)


def _missing_comma(text: str) -> str:
    return text.replace('"id": "notes",', '"id": "notes"', 1)


BAD = {"cwd-bridge": _bridged, "missing-comma": _missing_comma}


def _error_lines(text: str, path: Path) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"{path}:") and ": error: " in line]


@pytest.mark.parametrize("case", sorted(BAD))
async def test_a_bad_save_shows_what_tftui_run_says_and_the_last_good_flow_runs(
    h, workdir, monkeypatch, capsys, case
):
    flow_path = workdir / "review.json"
    (workdir / "sub").mkdir()
    good = flow_path.read_text()
    bad = BAD[case](good)
    bad_copy = workdir / "bad" / "review.json"  # the same text through the commands (same folder layout)
    bad_copy.parent.mkdir()
    (bad_copy.parent / "sub").mkdir()
    bad_copy.write_text(bad)
    code, said = h.cli(monkeypatch, capsys, workdir, "run", str(bad_copy), "--replies", str(workdir / "review.replies.json"))
    expected = [line.replace(str(bad_copy), str(flow_path)) for line in _error_lines(said, bad_copy)]
    assert code == 2 and expected, said
    assert f"tftui run: {bad_copy} is not a valid flow" in said
    _, opened = h.cli(monkeypatch, capsys, workdir, "open", str(bad_copy))
    assert [line.replace(str(bad_copy), str(flow_path)) for line in _error_lines(opened, bad_copy)] == expected
    assert f"tftui: {bad_copy} is not a valid flow" in opened
    _, checked = h.cli(monkeypatch, capsys, workdir, "check", str(bad_copy))
    check_lines = [line.replace(": warning: ", ": error: ") for line in checked.splitlines()]  # check only warns on the bridge
    assert all(line.replace(str(flow_path), str(bad_copy)) in check_lines for line in expected), checked

    app = h.make_app(flow_path, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.query_one("#diagnostics")
        before = app.flow
        flow_path.write_text(bad)
        await h.settle(pilot, lambda: panel.has_class("-visible"))
        shown = str(panel.render()).splitlines()
        assert shown[1:] == expected
        assert app.flow is before and all(p.cwd is None for p in app.flow.phases)  # the last good flow runs
        assert set(h.tree_labels(app)) == {"fetch", "draft", "review", "notes", "publish"}


async def test_with_the_opt_in_a_bridged_cwd_reloads(h, workdir):
    flow_path = workdir / "review.json"
    (workdir / "sub").mkdir()
    app = h.make_app(flow_path, watch=True)
    app.admit_rules = AdmitRules(cwd_bridge=True)  # as `tftui FLOW --allow-cwd-bridge` sets it
    async with app.run_test(size=(120, 40)) as pilot:
        flow_path.write_text(_bridged(flow_path.read_text()))
        notes = lambda: next(p for p in app.flow.phases if p.id == "notes")  # noqa: E731
        await h.settle(pilot, lambda: notes().cwd is not None)
        assert notes().cwd == "{args.dir}"
        assert not app.query_one("#diagnostics").has_class("-visible")
