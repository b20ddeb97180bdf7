"""kill -9 at 20 seeded random points for each runner kind (issue 17): scripted replies, a loopback
OpenAI-compatible HTTP server, and a CLI agent. Each killed run is resumed with
`tftui run --resume`; the result equals the uninterrupted run's in statuses, outputs and
attempt counts, and its trace counts each attempt once.

The runs are forked from the test process (tftui is imported once), so 60 kills take seconds,
not minutes. The kill point is a number of journal lines, drawn from a fixed seed, and the run
kills itself (SIGKILL) the moment it has written that line: no clock and no polling decide where
the kill lands, so a failure names its seed and line and reproduces exactly, and a run can no
longer finish before a watcher's kill arrives.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

# What `tftui run` imports lazily, imported once here so every forked run starts warm.
import tftui.agents.command  # noqa: E402, F401
import tftui.agents.openai  # noqa: E402, F401
import tftui.commands.run_exec  # noqa: E402, F401
import tftui.commands.runner_select  # noqa: E402, F401
import tftui.engine.run  # noqa: E402, F401
import tftui.run_service  # noqa: E402, F401
import tftui.trace.record  # noqa: E402, F401
from tftui.cli import main as _main  # noqa: E402, F401

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="forks (Linux)")

TRIALS = 20
SEED = 17


def _flow(kind: str) -> dict[str, Any]:
    phases: list[dict[str, Any]] = [
        {"id": "plan", "task": "plan the work"},
        {"id": "left", "task": "left of {steps.plan.output}", "dependsOn": ["plan"]},
        {"id": "right", "task": "right of {steps.plan.output}", "dependsOn": ["plan"]},
        {"id": "each", "type": "map", "over": "{args.items}", "task": "item {item}", "dependsOn": ["left"]},
        {"id": "merge", "task": "merge {steps.each.output} and {steps.right.output}", "dependsOn": ["each", "right"],
         "final": True},
    ]
    if kind == "replies":  # one phase fails twice before it answers: attempts must not count twice
        phases[2]["retry"] = {"max": 3, "backoffMs": 5, "factor": 1}
    return {"name": f"kill-{kind}", "args": {"items": {"default": ["x", "y", "z"]}}, "concurrency": 2,
            "phases": phases}


def _replies() -> dict[str, Any]:
    return {
        "plan": ["P"],
        "left": ["L"],
        "right": [{"error": "503 service unavailable"}, {"error": "503 service unavailable"}, "R"],
        **{f"each#item-{i}": [f"I{i}"] for i in range(3)},
        "merge": ["M"],
    }


class _Echo(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat completions endpoint answering `echo: <last message>`."""

    requests = 0  # calls that reached the server (counted as each arrives)
    kill_at = 0  # kill -9 `kill_pid` as this request arrives (0: never)
    kill_pid: int | None = None
    lock = threading.Lock()  # two calls can arrive at once (concurrency 2)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        with _Echo.lock:
            _Echo.requests += 1
            arrived = _Echo.requests
        if arrived == _Echo.kill_at:
            deadline = time.monotonic() + 30  # the test sets the pid right after the fork
            while _Echo.kill_pid is None and time.monotonic() < deadline:
                time.sleep(0.001)
            if _Echo.kill_pid is not None:
                os.kill(_Echo.kill_pid, signal.SIGKILL)
                return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        content = "echo: " + str(body["messages"][-1]["content"])[:40]
        payload = json.dumps({
            "id": "x", "object": "chat.completion", "model": "tiny",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def echo_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _project(tmp_path: Path, kind: str, url: str) -> tuple[Path, list[str]]:
    """The flow file and the runner flags for `kind`."""
    flow = tmp_path / f"{kind}.json"
    flow.write_text(json.dumps(_flow(kind)))
    if kind == "replies":
        (tmp_path / f"{kind}.replies.json").write_text(json.dumps(_replies()))
        return flow, ["--no-wait"]
    if kind == "http":
        (tmp_path / "tftui.toml").write_text(
            f'[providers.local]\nbase_url = "{url}"\nmodel = "tiny"\napi_key_env = "KILL_TEST_KEY"\nstream = false\n')
        return flow, ["--provider", "local", "--no-wait"]
    # each call notes that it started (in $KILL_CALLS) before it answers
    return flow, ["--agent-cmd", "sh -c 'echo >> \"$KILL_CALLS\"; printf \"cli: \"; head -c 40'", "--no-wait"]


def _kill_after(lines: int) -> None:
    """In this (forked) process: SIGKILL itself as soon as the run has appended its `lines`-th
    journal line, whether or not that line has reached the OS yet (lines are written in batches,
    docs/scheduling.md §4.4): a kill -9 arriving right after any event of the run."""
    from tftui.engine.journal import Journal

    queue_line = Journal.queue_line

    def queue_then_maybe_die(self: Journal, data: bytes) -> None:
        queue_line(self, data)
        if self.appended >= lines:
            os.kill(os.getpid(), signal.SIGKILL)

    Journal.queue_line = queue_then_maybe_die  # type: ignore[method-assign]


def _fork_cli(argv: list[str], out: Path, cwd: Path, env: dict[str, str], kill_after: int | None = None) -> int:
    """Run `tftui.cli.main(argv)` in a forked child (stdout to `out`); returns the child's pid.
    `kill_after`: the child kills itself with SIGKILL once its journal has that many lines."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            if kill_after is not None:
                _kill_after(kill_after)
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - the child's whole life
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            from tftui.cli import main

            code = main(argv)
            sys.stdout.flush()
        finally:
            os._exit(code)
    return pid


def _wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _comparable(doc: dict[str, Any]) -> dict[str, Any]:
    return {pid: (p["status"], p["output"], p["attempts"]) for pid, p in doc["phases"].items()}


def _trace_attempts(run_dir: Path) -> list[tuple[str, int | None]]:
    from tftui.trace.record import trace_of_run_dir

    trace, _ = trace_of_run_dir(run_dir)
    assert trace is not None
    return sorted((s.name, s.attempt) for s in trace.steps if s.kind == "model")


@pytest.mark.parametrize("kind", ["replies", "http", "cli"])
def test_kill9_at_random_points_then_resume_equals_the_uninterrupted_run(
    kind: str, tmp_path: Path, echo_server: str, tftui: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    flow, flags = _project(tmp_path, kind, echo_server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    calls_log = tmp_path / "calls.log"  # the CLI agent's: one line per call it started
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"), KILL_TEST_KEY="sk-test-kill",
               KILL_CALLS=str(calls_log))
    env.pop("NO_COLOR", None)

    # The uninterrupted run is made in this process (the same isolation: tests/cli/conftest.py),
    # which also warms every lazy import and cache the 40 forked runs then start with.
    reference_root = tmp_path / "reference"
    monkeypatch.setenv("KILL_TEST_KEY", env["KILL_TEST_KEY"])
    monkeypatch.setenv("KILL_CALLS", env["KILL_CALLS"])
    done = tftui("run", str(flow), "--json", "--runs-dir", str(reference_root), *flags)
    assert done.code == 0, done.stderr
    reference = done.json()
    assert reference["status"] == "completed"
    (reference_dir,) = reference_root.iterdir()
    total = _lines(reference_dir / "events.jsonl")
    reference_trace = _trace_attempts(reference_dir)

    rng = random.Random(f"{SEED}-{kind}")
    for trial in range(TRIALS):
        kill_at = rng.randint(1, total - 1)  # journal lines written before the kill
        root = tmp_path / f"runs-{trial}"
        calls_log.write_text("")
        _Echo.requests = 0
        pid = _fork_cli(["run", str(flow), "--json", "--runs-dir", str(root), *flags], tmp_path / "killed.json",
                        tmp_path, env, kill_after=kill_at)
        assert _wait(pid) == -signal.SIGKILL, f"{kind} trial {trial}: the run ended before line {kill_at} of {total}"
        (run_dir,) = root.iterdir()
        journal = run_dir / "events.jsonl"
        where = f"{kind} trial {trial} (seed {SEED}, killed after journal line {kill_at} of {total})"
        assert _lines(journal) <= kill_at, where  # what was still queued is lost, nothing more
        # ... and nothing an agent could see: every call that reached the agent had its start
        # (and everything before it) in the OS before it was made
        started = sum(1 for line in journal.read_bytes().splitlines() if b'"kind":"attempt_started"' in line)
        seen = {"replies": 0, "http": _Echo.requests, "cli": calls_log.read_text().count("\n")}[kind]
        assert started >= seen, (where, started, seen)

        resumed_out = tmp_path / "resumed.json"
        code = _wait(_fork_cli(["run", str(flow), "--json", "--runs-dir", str(root), "--resume", journal.parent.name,
                                *flags], resumed_out, tmp_path, env))
        assert code == 0, (where, resumed_out.read_text())
        resumed = json.loads(resumed_out.read_text())
        assert resumed["status"] == "completed", where
        assert _comparable(resumed) == _comparable(reference), where
        assert resumed["final_output"] == reference["final_output"], where
        assert _trace_attempts(journal.parent) == reference_trace, where



@pytest.mark.parametrize("kind", ["http", "cli"])
def test_kill9_by_the_agent_as_its_call_arrives_finds_that_call_journaled(
    kind: str, tmp_path: Path, echo_server: str, tftui: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The k-th call kills the run (kill -9) the moment it reaches the agent: the HTTP server as
    the request arrives, the CLI agent (killing its parent) as it starts. The journal already
    holds that call's start and everything before it (the run writes its queued lines before
    any call that leaves the process, docs/scheduling.md §4.4), and the resumed run equals the
    uninterrupted one."""
    flow, flags = _project(tmp_path, kind, echo_server)
    calls_log, kill_at = tmp_path / "calls.log", tmp_path / "kill-at"
    if kind == "cli":
        # (-ge, not -eq: two calls starting at once may both count past k before either looks)
        flags = ["--agent-cmd", "sh -c 'echo \"$TFTUI_NODE_PATH\" >> \"$KILL_CALLS\"; k=$(cat \"$KILL_AT\"); "
                 "[ \"$k\" -gt 0 ] && [ \"$(wc -l < \"$KILL_CALLS\")\" -ge \"$k\" ] && kill -9 $PPID; "
                 "printf \"cli: \"; head -c 40'", "--no-wait"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"), KILL_TEST_KEY="sk-test-kill",
               KILL_CALLS=str(calls_log), KILL_AT=str(kill_at))
    env.pop("NO_COLOR", None)
    for name in ("KILL_TEST_KEY", "KILL_CALLS", "KILL_AT"):
        monkeypatch.setenv(name, env[name])
    kill_at.write_text("0")  # never
    calls_log.write_text("")
    _Echo.requests, _Echo.kill_at, _Echo.kill_pid = 0, 0, None
    done = tftui("run", str(flow), "--json", "--runs-dir", str(tmp_path / "reference"), *flags)
    assert done.code == 0, done.stderr
    reference = done.json()
    total = _Echo.requests if kind == "http" else calls_log.read_text().count("\n")
    try:
        for k in sorted({1, (total + 1) // 2, total}):
            root = tmp_path / f"runs-{k}"
            calls_log.write_text("")
            kill_at.write_text(str(k))
            _Echo.requests, _Echo.kill_at, _Echo.kill_pid = 0, k if kind == "http" else 0, None
            argv = ["run", str(flow), "--json", "--runs-dir", str(root), *flags]
            pid = _fork_cli(argv, tmp_path / "killed.json", tmp_path, env)
            _Echo.kill_pid = pid
            assert _wait(pid) == -signal.SIGKILL, k
            (run_dir,) = root.iterdir()
            rows = [json.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]
            started = [r["node_path"] for r in rows if r["kind"] == "attempt_started"]
            # every call that reached the agent is journaled (concurrency 2: the other worker's
            # next call may have started too)
            assert len(started) >= k, (k, started)
            if kind == "cli":
                assert calls_log.read_text().splitlines()[k - 1] in started, (k, started)
            kill_at.write_text("0")
            _Echo.kill_at = 0
            out = tmp_path / "resumed.json"
            argv = ["run", str(flow), "--json", "--runs-dir", str(root), "--resume", run_dir.name, *flags]
            assert _wait(_fork_cli(argv, out, tmp_path, env)) == 0, (k, out.read_text())
            assert _comparable(json.loads(out.read_text())) == _comparable(reference), k
    finally:
        _Echo.kill_at, _Echo.kill_pid = 0, None
