"""A real chat-completions server on 127.0.0.1 (a thread running http.server): the one loopback
OpenAI-compatible provider of the tests (the `fake_provider` fixture, tests/conftest.py) and of
benchmarks/tui.py, which load this file by path (`--import-mode=importlib`: test helpers are not
importable by name).

Tests queue responses with `fake.add(...)`; each POST consumes one (the last default is a plain
"ok" answer). Every request is recorded (path, headers, parsed JSON body) for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(content: str, *, prompt_tokens: int | None = 10, completion_tokens: int | None = 5,
               model: str = "test-model") -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + (completion_tokens or 0)}
    return body


def stream_events(pieces: list[str], *, usage: tuple[int, int] | None = (7, 3), model: str = "test-model"
                  ) -> list[Any]:
    events: list[Any] = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}], "model": model}]
    events += [{"choices": [{"index": 0, "delta": {"content": p}}], "model": model} for p in pieces]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "model": model})
    if usage is not None:
        events.append({"choices": [], "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}})
    return events


class FakeProvider:
    def __init__(self) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.routes: dict[str, dict[str, Any]] = {}  # marker in the request body -> response, never consumed
        self.requests: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.holding = threading.Event()  # an SSE answer with `hold_at` has reached its hold
        self.release = threading.Event()  # ...and goes on once this is set (or the server closes)
        self.url = ""
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def add(self, kind: str = "json", **spec: Any) -> FakeProvider:
        self.script.append({"kind": kind, **spec})
        return self

    def route(self, marker: str, kind: str = "json", **spec: Any) -> FakeProvider:
        """Answer every request whose body contains `marker` this way, whatever the queue holds: for
        a call the client may abandon before the server reads it (a timeout on a loaded machine),
        which would otherwise leave its queued answer to the next call."""
        self.routes[marker] = {"kind": kind, **spec}
        return self

    # Body builders, reachable from tests without importing conftest.
    completion = staticmethod(completion)
    stream_events = staticmethod(stream_events)

    def next_spec(self) -> dict[str, Any]:
        return self.script.popleft() if self.script else {"kind": "json", "body": completion("ok")}

    def close(self) -> None:
        """Stop serving: a held or hanging answer ends, the port is released."""
        self.stop.set()
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        fake.requests.append({"path": self.path, "headers": dict(self.headers.items()), "json": parsed})
        routed = [spec for marker, spec in fake.routes.items() if marker.encode() in raw]
        spec = routed[0] if routed else fake.next_spec()
        if spec.get("echo_auth"):  # a provider that quotes the key it was sent (many do, in 401s)
            spec = {**spec, "body": {"error": {"message": f"Incorrect API key provided: "
                                                          f"{self.headers.get('Authorization')}"}}}
        getattr(self, f"_send_{spec['kind']}")(spec)

    def _send_echo(self, spec: dict[str, Any]) -> None:
        """A provider that quotes every credential it was sent: in the answer (status 200), in
        the error body (any other status) and in its response headers."""
        quoted = "; ".join(f"{name}: {value}" for name, value in self.headers.items()
                           if name.lower() not in ("host", "content-length", "content-type", "accept-encoding",
                                                   "connection", "user-agent", "accept"))
        status = spec.get("status", 200)
        body = (completion(f"you sent {quoted}") if status == 200
                else {"error": {"message": f"rejected {quoted}", "type": "invalid_request_error"}})
        echoed = {"Set-Cookie": str(self.headers.get("Cookie")), "X-Echo": quoted.replace("\n", " "),
                  **spec.get("headers", {})}
        self._send_bytes(status, json.dumps(body).encode(), "application/json", echoed)

    def _send_json(self, spec: dict[str, Any]) -> None:
        payload = json.dumps(spec.get("body", {})).encode()
        self._send_bytes(spec.get("status", 200), payload, "application/json", spec.get("headers", {}))

    def _send_raw(self, spec: dict[str, Any]) -> None:
        self._send_bytes(spec.get("status", 200), spec["text"].encode(), spec.get("content_type", "text/plain"),
                         spec.get("headers", {}))

    def _send_bytes(self, status: int, payload: bytes, ctype: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_sse(self, spec: dict[str, Any]) -> None:
        """`events` as server-sent events, then `data: [DONE]` (unless `done` is false). `pace_s`:
        a pause before each event (a slow provider). `hold_at`: before that event the server sets
        `fake.holding` and waits for `fake.release` (a test reads the screen mid-answer)."""
        fake = self.server.fake
        self.send_response(spec.get("status", 200))
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pace = spec.get("pace_s")
        try:
            for index, event in enumerate(spec["events"]):
                if index == spec.get("hold_at"):
                    fake.holding.set()
                    fake.release.wait(30)
                if pace:
                    time.sleep(pace)
                data = event if isinstance(event, str) else json.dumps(event)
                self._chunk(f"data: {data}\n\n".encode())
            if spec.get("done", True):
                self._chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:  # the client went away (its test or benchmark ended)
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_hang(self, spec: dict[str, Any]) -> None:
        self.server.fake.stop.wait(30)  # until the test ends; the client gives up first
        self.close_connection = True

    def _send_drop(self, spec: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b'{"choices": [')
        self.wfile.flush()
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeProvider


def start() -> FakeProvider:
    """Serve on a free port of 127.0.0.1 until `close()`."""
    server = _Server(("127.0.0.1", 0), _Handler)
    fake = FakeProvider()
    server.fake = fake
    fake._server = server
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    fake._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    fake._thread.start()
    return fake
