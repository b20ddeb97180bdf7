"""`cwd: "{args.X}"` (a relative-path arg picks the phase's folder) runs only with the opt-in."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tftui.agents.scripted import ScriptedRunner
from tftui.engine.clock import InstantClock
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

FLOW = {
    "name": "bridge",
    "args": {"pkg": {"type": "relative-path", "required": True}},
    "phases": [
        {"id": "review", "task": "review", "cwd": "{args.pkg}"},
        {"id": "where", "type": "script", "run": ["pwd"], "cwd": "{args.pkg}", "dependsOn": ["review"]},
    ],
}


async def run(tmp_path, *, enabled, pkg="packages/api"):
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(FLOW))
    runner = ScriptedRunner({"review": "ok"})
    result = await run_flow(
        Flow.model_validate(FLOW), args={"pkg": pkg}, runner=runner, clock=InstantClock(),
        flow_path=str(path), cwd_bridge=enabled,
    )
    return result, runner


async def test_off_the_phase_fails_before_any_call_naming_the_opt_in(tmp_path):
    (tmp_path / "packages" / "api").mkdir(parents=True)
    result, runner = await run(tmp_path, enabled=False)
    review = result.phases["review"]
    assert (str(review.status), review.output) == ("failed", None)
    # names the file, line:col, phase, field and the fix
    assert re.match(rf"{re.escape(str(tmp_path / 'flow.json'))}:1:\d+: Phase 'review': field 'cwd'", review.error)
    assert "pass --allow-cwd-bridge, or set run.allow_cwd_bridge = true" in review.error  # both opt-ins (issue 14)
    assert runner.calls == []
    assert result.status == "failed" and result.final_output == "(no output)"


async def test_on_the_phase_runs_in_the_named_folder(tmp_path):
    folder = tmp_path / "packages" / "api"
    folder.mkdir(parents=True)
    result, runner = await run(tmp_path, enabled=True)
    assert result.status == "completed"
    assert runner.calls[0].extra["cwd"] == os.path.realpath(folder)
    assert result.phases["where"].output == os.path.realpath(folder)


async def test_on_a_bad_or_missing_folder_fails_the_phase(tmp_path):
    result, runner = await run(tmp_path, enabled=True, pkg="../outside")
    assert "'.' or '..' segments" in result.phases["review"].error and runner.calls == []
    result, _ = await run(tmp_path, enabled=True, pkg="nope")
    assert "is not a folder inside" in result.phases["review"].error


def test_tftui_run_flag(tmp_path):
    (tmp_path / "pkg").mkdir()
    flow = {**FLOW, "phases": [FLOW["phases"][1] | {"dependsOn": []}]}
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(flow))
    (tmp_path / "flow.replies.json").write_text("{}")  # a script-only flow makes no model call
    base = [sys.executable, "-m", "tftui", "run", str(path), "--no-journal", "--quiet", "--arg", "pkg=pkg"]
    off = subprocess.run([*base, "--json"], capture_output=True, text=True, cwd=tmp_path)
    # issue 14: without the opt-in nothing runs (exit 2), and the diagnostic names both opt-ins
    assert off.returncode == 2
    report = json.loads(off.stdout)
    assert report["status"] == "invalid"
    [diag] = report["diagnostics"]
    assert diag["phase_id"] == "where" and diag["field"] == "cwd"
    assert "--allow-cwd-bridge" in diag["message"] and "run.allow_cwd_bridge" in diag["message"]
    on = subprocess.run([*base, "--allow-cwd-bridge"], capture_output=True, text=True, cwd=tmp_path)
    assert on.returncode == 0, on.stderr
    assert on.stdout.strip() == os.path.realpath(tmp_path / "pkg")
