"""The interrupted-run hint (issue 15 item 17): the command it prints resumes the run as it
started — the same agent command, approvals, cwd-bridge opt-in and journal — and asks again for
the arguments the journal masked (docs/inputs.md §3)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tftui.cli import build_parser


def test_the_hint_repeats_what_the_run_needs(tftui, tmp_path: Path) -> None:
    flow = tmp_path / "hold.json"
    flow.write_text(json.dumps({"name": "hold", "args": {"api_token": {"type": "string"}, "topic": {}},
                                "phases": [{"id": "a", "task": "about {args.topic} with {args.api_token}"}]}))
    agent = "sh -c 'kill -TERM $PPID; sleep 30'"  # the agent interrupts tftui (its parent) mid-call
    done = tftui("run", str(flow), "--agent-cmd", agent, "--approve", "--allow-cwd-bridge",
                 "--arg", "topic=rust", "--arg", "api_token=s3cret-value-1234", subprocess=True,
                 timeout=20)  # (a cancel while the agent starts once waited for it to end: 30 s)
    assert done.code == 130, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("interrupted — resume with: tftui run "))
    command, _, note = line.removeprefix("interrupted — resume with: tftui run ").partition(" (VALUE: ")
    assert note == "the journal does not keep secrets)"
    again = build_parser().parse_args(["run", *shlex.split(command)])
    assert again.flow == str(flow) and again.resume
    assert (again.agent_cmd, again.approve, again.allow_cwd_bridge) == (agent, True, True)
    assert again.args == ["api_token=VALUE"]  # topic is in the journal; the token is masked there
    assert "s3cret" not in done.stderr
