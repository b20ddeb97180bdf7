"""Escape sequences in phase ids, flow names, replies and error texts never reach the terminal raw
(issue 17, fault 4): `check`, `run`, `runs`, `replay --print` and `gate` show them escaped
(`\\x1b`); `--json` and the files tftui writes keep the raw text."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

TITLE = "\x1b]0;PWNED\x07"  # set the window title
CLEAR = "\x1b[2J"  # clear the screen
CLIPBOARD = "\x1b]52;c;aGVsbG8=\x07"  # write the user's clipboard (OSC 52)
BIDI = "\u202e"  # right-to-left override
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def _hostile_flow(tmp_path: Path) -> Path:
    flow = {
        "name": f"evil{TITLE}name",
        "phases": [
            {"id": f"a{CLEAR}b", "type": "agent", "agent": "x", "task": "hi"},
            {"id": "broken", "type": "agent", "agent": "x", "task": "hi", "dependsOn": [f"a{CLEAR}b"],
             "optional": True},
            {"id": "last", "type": "agent", "agent": "x", "task": "{steps.broken.output}",
             "dependsOn": ["broken"]},
        ],
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(flow), encoding="utf-8")
    replies = {
        f"a{CLEAR}b": [f"reply {CLIPBOARD} end"],
        "broken": [{"error": f"boom {TITLE}{BIDI} \x9b31m", "exitCode": 1}],
        "last": [f"final {CLIPBOARD}{BIDI} done"],
    }
    (tmp_path / "evil.replies.json").write_text(json.dumps(replies), encoding="utf-8")
    return path


def _assert_clean(text: str) -> None:
    for char in RAW:
        assert char not in text, f"raw {char!r} reached the terminal: {text!r}"


def test_every_cli_output_shows_escapes_escaped(tftui, tmp_path: Path) -> None:
    flow = _hostile_flow(tmp_path)

    check = tftui("check", str(flow))
    _assert_clean(check.stdout + check.stderr)
    assert "a\\x1b[2Jb" in check.stdout  # the id's warning names it, escaped

    run = tftui("run", str(flow))
    _assert_clean(run.stderr)
    assert "a\\x1b[2Jb" in run.stderr  # the progress line of the phase
    assert "boom \\x1b]0;PWNED\\x07\\u202e \\x9b31m" in run.stderr  # the error text
    # stdout is not a terminal here: the final output is the product, kept raw (as --json is)
    assert f"final {CLIPBOARD}{BIDI} done" in run.stdout

    runs = tftui("runs")
    _assert_clean(runs.stdout + runs.stderr)
    assert "evil\\x1b]0;PWNED\\x07name" in runs.stdout

    run_dir = next((tmp_path / "runs").iterdir())
    replay = tftui("replay", str(run_dir), "--print")
    _assert_clean(replay.stdout + replay.stderr)
    assert "a\\x1b[2Jb" in replay.stdout

    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\nid = "required_steps"\nnames = ["x\\u001b[2J"]\n', encoding="utf-8")  # TOML's own escape
    gate = tftui("gate", str(run_dir), "--rules", str(rules))
    _assert_clean(gate.stdout + gate.stderr)
    assert "x\\x1b[2J" in gate.stdout + gate.stderr


def test_json_and_files_keep_the_raw_text(tftui, tmp_path: Path) -> None:
    flow = _hostile_flow(tmp_path)
    done = tftui("run", str(flow), "--json")
    data = done.json()
    assert data["final_output"] == f"final {CLIPBOARD}{BIDI} done"
    assert f"a{CLEAR}b" in data["phases"]
    run_dir = next((tmp_path / "runs").iterdir())
    meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
    assert meta["flowName"] == f"evil{TITLE}name"
    listed = tftui("runs", "--json").json()
    assert listed[0]["flow"] == f"evil{TITLE}name"


def _run_on_a_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run tftui with stdout and stderr on a pseudo-terminal; everything it wrote there."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tftui", *argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=follower, stderr=follower)
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty behaviour checked on Linux")
def test_the_final_output_on_a_terminal_is_escaped(tmp_path: Path) -> None:
    flow = _hostile_flow(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env.update(TFTUI_RUNS_DIR=str(tmp_path / "runs"), XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "h"))
    env["NO_COLOR"] = "1"  # tftui's own colours off: any ESC left would be the reply's
    shown = _run_on_a_terminal(["run", str(flow)], tmp_path, env)
    assert "final \\x1b]52;c;aGVsbG8=\\x07\\u202e done" in shown
    without_status_line = shown.replace("\r\x1b[K", "")  # the live status line's own erase code
    _assert_clean(without_status_line)


def test_a_lone_surrogate_in_a_reply_is_shown_not_a_crash(tftui, tmp_path: Path) -> None:
    """An emoji cut in half (a lone UTF-16 surrogate, as a JSON reply can carry) ends cleanly."""
    flow = tmp_path / "half.json"
    flow.write_text(json.dumps({"name": "half\ud83d", "phases": [
        {"id": "a", "type": "agent", "agent": "x", "task": "hi"}]}), encoding="utf-8")
    (tmp_path / "half.replies.json").write_text(json.dumps({"a": ["half an emoji \ud83d end"]}), encoding="utf-8")
    done = tftui("run", str(flow), subprocess=True)
    assert done.code == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == "half an emoji \\ud83d end\n"
    as_json = tftui("run", str(flow), "--json", subprocess=True)
    assert as_json.json()["final_output"] == "half an emoji \ud83d end"  # JSON keeps the code unit
    listed = tftui("runs", subprocess=True)
    assert "half\\ud83d" in listed.stdout
