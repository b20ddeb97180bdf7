"""Answers recorded from a real LiteLLM proxy (tests/agents/fixtures/litellm/, README.md there),
replayed byte for byte from a local server: tftui's OpenAI-compatible runner makes of each one
exactly what it made of the live proxy (output, usage, error text), and the retry layer treats
each as the requirement documents say (docs/retry.md §2). litellm is not needed here."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tftui.agents.base import AgentRequest
from tftui.agents.openai import OpenAIRunner
from tftui.config import ProviderConfig
from tftui.engine import events as ev
from tftui.engine.clock import InstantClock
from tftui.engine.retry import backoff_honouring_retry_after, is_transient
from tftui.engine.run import run_flow
from tftui.flow.model import Flow

FIXTURES = Path(__file__).parent / "fixtures" / "litellm"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))
KEY = "sk-tftui-master-5678"  # the proxy's master key in config.yaml (a test value, never a real key)


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


class _Replay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.requests += 1
        spec = self.server.script.popleft()
        body = spec["body"].encode("utf-8")
        self.send_response(spec["status"])
        for name, value in spec["headers"]:
            self.send_header(name, value)
        streamed = any(n.lower() == "content-type" and "event-stream" in v for n, v in spec["headers"])
        if not streamed:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        cut = spec.get("cut_at")
        data = body[:cut] if cut is not None else body
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
        if cut is not None:  # the stream stops mid-way: no last chunk, the connection goes
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: deque[dict[str, Any]]
    requests: int


@pytest.fixture
def replay() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Replay)
    server.script = deque()
    server.requests = 0
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()


def _runner(server: _Server, *, stream: bool, model: str = "mock-ok") -> OpenAIRunner:
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    provider = ProviderConfig(name="litellm", base_url=url, model=model, api_key_env="LITELLM_KEY", stream=stream)
    return OpenAIRunner(provider, env={"LITELLM_KEY": KEY})


async def _ask(server: _Server, spec: dict[str, Any]) -> Any:
    server.script.append(spec)
    runner = _runner(server, stream=spec["request"]["stream"], model=spec["request"]["model"])
    try:
        return await runner.run(AgentRequest(node_path="gen", phase_id="gen", agent="executor", task="Say hello."))
    finally:
        await runner.aclose()


def test_every_case_of_the_recorder_has_a_fixture() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("litellm_record", FIXTURES / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sorted(c["name"] for c in module.CASES) == NAMES
    for name in NAMES:
        assert fixture(name)["recorded_with"].startswith("litellm proxy ")


@pytest.mark.parametrize("name", NAMES)
async def test_replayed_answer_parses_as_the_live_one(replay: _Server, name: str) -> None:
    spec = fixture(name)
    result = await _ask(replay, spec)
    usage = result.usage.to_json() if result.usage is not None else None
    assert {"output": result.output, "usage": usage, "error": result.error} == spec["live"]


@pytest.mark.parametrize(("name", "transient"), [
    ("rate_limit_429", True), ("rpm_exhausted", True), ("overloaded_529_stream", True),
    ("server_error_500", False), ("midstream_error_nonstream_500", False),
    ("bad_request_400", False), ("bad_key", False),
])
async def test_which_recorded_failures_are_transient(replay: _Server, name: str, transient: bool) -> None:
    result = await _ask(replay, fixture(name))
    assert result.failed
    assert is_transient(result.error, stderr=result.stderr, output=result.output) is transient


async def test_litellm_retry_after_raises_the_backoff(replay: _Server) -> None:
    spec = fixture("rpm_exhausted")
    assert ["llm_provider-retry-after", "60"] in spec["headers"]  # LiteLLM's name for the provider's wait
    result = await _ask(replay, spec)
    delay, asked = backoff_honouring_retry_after(None, 0, result.error)
    assert (delay, asked) == (60000, 60000)


async def test_a_stream_cut_mid_way_fails_transient(replay: _Server) -> None:
    spec = fixture("stream_usage")
    cut = dict(spec, cut_at=len(spec["body"].encode("utf-8")) // 2)
    result = await _ask(replay, cut)
    assert result.failed and result.output == ""
    assert is_transient(result.error, stderr=result.stderr, output=result.output)


def _one_phase() -> Flow:
    return Flow.model_validate({"name": "hello", "phases": [{"id": "gen", "task": "Say hello."}]})


async def _run(replay: _Server, names: list[str], *, stream: bool) -> tuple[Any, list[ev.Event]]:
    replay.script.clear()  # answers a run did not ask for are not the next run's
    for name in names:
        replay.script.append(fixture(name))
    runner = _runner(replay, stream=stream)
    try:
        result = await asyncio.wait_for(
            run_flow(_one_phase(), runner=runner, clock=InstantClock(), keep_events=True), 30)
    finally:
        await runner.aclose()
    return result, list(result.events or [])


async def test_a_recorded_529_is_retried_and_a_500_is_not(replay: _Server) -> None:
    result, events = await _run(replay, ["overloaded_529_stream", "stream_usage"], stream=True)
    assert result.status == "completed" and result.phases["gen"].output == "Hello from the LiteLLM mock."
    assert result.phases["gen"].attempts == 2 and replay.requests == 2
    result, _ = await _run(replay, ["server_error_500", "ok"], stream=False)
    assert result.status == "failed" and replay.requests == 3  # one more request: no retry
    assert result.phases["gen"].error.startswith("500 Internal Server Error: litellm.InternalServerError")
    result, events = await _run(replay, ["rpm_exhausted", "ok"], stream=False)
    assert result.status == "completed"
    [backoff] = [e for e in events if isinstance(e, ev.BackoffStarted)]
    assert (backoff.delay_ms, backoff.retry_after_ms) == (60000, 60000)
