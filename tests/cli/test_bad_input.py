"""Bad input (issue 14): a typed arg out of range, an unknown field and a `cwd: "{args.X}"` without
the opt-in each get an error naming the file, line:col, phase, field and the fix, through
`tftui check`, `tftui run` and the debugger entry (`tftui FLOW`), and nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TYPED = """{
  "name": "typed",
  "args": {"limit": {"type": "number", "maximum": 100}},
  "phases": [
    {"id": "count", "task": "count to {args.limit}"}
  ]
}
"""
UNKNOWN = """{
  "name": "unknown",
  "phases": [
    {"id": "a", "task": "hi"},
    {"id": "b", "task": "{steps.a.output}", "dependOn": ["a"]},
    {"id": "c", "type": "expand", "def": {"name": "x", "phases": [{"id": "q", "task": "t"}]}, "mode": "graft"}
  ]
}
"""
CWD = """{
  "name": "cwd",
  "args": {"dir": {"type": "relative-path", "default": "sub"}},
  "phases": [
    {"id": "build", "task": "hi", "cwd": "{args.dir}"}
  ]
}
"""


def _where(text: str, needle: str) -> str:
    offset = text.index(needle)
    return f"{text.count(chr(10), 0, offset) + 1}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


# (file text, extra argv, [(where the error points, its text: phase tag and fix)])
CASES = {
    "typed-arg": (
        TYPED,
        ["--arg", "limit:=500"],
        [(_where(TYPED, '{"type": "number"'),
          "error: Argument 'limit' must be a number <= 100, got 500 (type 'number') — pass a value that fits, "
          "e.g. --arg limit:=100 [count]")],
    ),
    "unknown-field": (
        UNKNOWN,
        [],
        [(_where(UNKNOWN, '"dependOn"'), "error: Phase 'b': unknown field 'dependOn' — did you mean 'dependsOn'? [b]"),
         (_where(UNKNOWN, '"mode"'), "error: Phase 'c': unknown field 'mode' — did you mean 'expandMode'? [c]")],
    ),
    "cwd-bridge": (
        CWD,
        [],
        [(_where(CWD, '"{args.dir}"'),
          "error: Phase 'build': field 'cwd' ({args.dir}) picks the working folder from an argument, which tftui "
          "does only when you opt in (the path check is not a sandbox) — pass --allow-cwd-bridge, or set "
          "run.allow_cwd_bridge = true in your user config")],
    ),
}


def _flow(tmp_path: Path, text: str) -> Path:
    (tmp_path / "sub").mkdir(exist_ok=True)
    path = tmp_path / "flow.json"
    path.write_text(text, encoding="utf-8")
    path.with_name("flow.replies.json").write_text(json.dumps({"a": "x", "b": "y", "count": "1", "build": "built"}), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("entry", ["check", "run", "open"])
def test_bad_input_is_refused_with_its_place_and_fix(tftui, tmp_path: Path, case: str, entry: str):
    text, extra, expected = CASES[case]
    flow = _flow(tmp_path, text)
    done = tftui(entry, str(flow), *extra)
    shown = done.stdout + done.stderr
    for where, message in expected:
        line = f"{flow}:{where}: {message}"
        if entry == "check" and case == "cwd-bridge":  # taskflow's validator accepts it: check only warns
            line = line.replace(": error: ", ": warning: ")
        assert line in shown, shown
    if entry == "check":
        assert done.code == (0 if case == "cwd-bridge" else 1)
    else:
        assert done.code == 2
        assert not (tmp_path / "runs").exists() and not (tmp_path / ".tftui").exists()  # nothing ran


def test_the_cwd_bridge_opt_in_is_a_flag_or_a_user_setting(tftui, tmp_path: Path):
    flow = _flow(tmp_path, CWD)
    assert tftui("run", str(flow), "--allow-cwd-bridge").code == 0
    assert tftui("check", str(flow), "--allow-cwd-bridge").stdout.endswith("0 errors, 0 warnings\n")
    user = tmp_path / "xdg" / "tftui"
    user.mkdir(parents=True)
    (user / "config.toml").write_text("[run]\nallow_cwd_bridge = true\n", encoding="utf-8")
    assert tftui("run", str(flow)).code == 0
    assert tftui("check", str(flow)).stdout.endswith("0 errors, 0 warnings\n")


def test_a_project_tftui_toml_cannot_opt_its_flow_in(tftui, tmp_path: Path):
    flow = _flow(tmp_path, CWD)
    flow.with_name("tftui.toml").write_text("[run]\nallow_cwd_bridge = true\n", encoding="utf-8")
    done = tftui("run", str(flow))
    assert done.code == 2 and "pass --allow-cwd-bridge" in done.stderr


def test_the_debugger_runs_with_the_opt_in(tftui, tmp_path: Path, monkeypatch):
    from tftui.tui.app import TftuiApp

    seen: list[bool] = []
    monkeypatch.setattr(TftuiApp, "run", lambda self, *a, **k: seen.append(self.ctl.cwd_bridge) or 0)
    flow = _flow(tmp_path, CWD)
    assert tftui("open", str(flow), "--allow-cwd-bridge").code == 0
    assert seen == [True]
