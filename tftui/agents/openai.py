"""OpenAI-compatible chat completions over httpx (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, …).

One pooled `httpx.AsyncClient` per runner (one runner per run; call `aclose()` at the end).
Every failure comes back as an `AgentResult` whose error text the retry layer can classify
(docs/retry.md §2): HTTP 429/5xx start with the status (`429 Too Many Requests: <provider message>`),
network timeouts say `timed out`, dropped connections say `ECONNRESET`; other 4xx and
malformed bodies are hard failures naming the problem. The per-call timeout of the request
(`timeout_ms`, docs/retry.md §5) gives `timed_out=True`. The API key is read from the environment
variable the provider names, and is masked out of every text this module returns.
"""

from __future__ import annotations

import asyncio
import codecs
import datetime
import email.utils
import inspect
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any, Protocol

import httpx

from tftui.agent_types import AgentRequest, AgentResult, Usage
from tftui.agents.definitions import AgentLibrary, system_prompt_for
from tftui.redaction import is_secret_header, redact, redact_known, register_secret


class ProviderSettings(Protocol):
    """What the runner reads of a configured provider (`tftui.config.ProviderConfig` is one)."""

    name: str
    base_url: str
    model: str
    api_key_env: str
    api_key_header: str  # "Authorization" sends `Bearer KEY`; any other name sends KEY raw
    headers: dict[str, str]
    timeout_s: float
    prices: dict[str, Any]
    stream: bool
    params: dict[str, Any]  # extra body fields (temperature, …)

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None: ...

    def price_for(self, model: str) -> tuple[float, float] | None: ...


# (node_path, text delta) -> None, or an awaitable. Lets a UI show an answer as it streams.
ChunkCallback = Callable[[str, str], Awaitable[None] | None]

PHASE_TIMEOUT = "Phase timed out after {ms}ms (subagent aborted)"  # docs/retry.md §5
_SNIPPET = 300
# A streamed answer's socket is read at most this often: the pieces that arrive in between are
# read, split and handed on together. Read as each arrives, a slow stream of small pieces
# costs an event-loop round trip and two epoll calls per piece in the engine's thread, which
# shares the interpreter with the debugger's screen; the screen draws streamed text at most ~10
# times a second (README "Streaming"), so a piece waiting up to this long is never seen late.
STREAM_READ_INTERVAL_S = 0.02
_LINE_END = re.compile("\r\n|\r|\n")  # server-sent events end lines with any of the three
_EFFORTS = ("minimal", "low", "medium", "high")


class OpenAIRunner:
    """An `AgentRunner` for one configured provider."""

    def __init__(
        self,
        provider: ProviderSettings,
        *,
        library: AgentLibrary | None = None,
        env: Mapping[str, str] | None = None,
        on_chunk: ChunkCallback | None = None,
        stream: bool | None = None,
    ) -> None:
        self.provider = provider
        self.library = library
        self.on_chunk = on_chunk
        self.stream = provider.stream if stream is None else stream
        self._api_key = provider.api_key(env)
        register_secret(self._api_key)  # every configured credential is masked wherever it appears
        for value in provider.headers.values():
            register_secret(value)
        self._http: httpx.AsyncClient | None = None
        # Pools a timed-out call was cut from: still serving the calls in flight on them, never
        # given a new one (see run); closed by aclose.
        self._retired: list[httpx.AsyncClient] = []
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the pooled client belongs to

    # What the engine may rely on for budgets (docs/scheduling.md §6): chat completions report token usage;
    # cost is known only when prices are configured for the provider.
    reports_usage = True

    @property
    def reports_cost(self) -> bool:
        return bool(self.provider.prices)

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIRunner(provider={self.provider.name!r}, base_url={self.provider.base_url!r})"

    async def __aenter__(self) -> OpenAIRunner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        clients = [*self._retired, *([self._http] if self._http is not None else [])]
        if self._loop is asyncio.get_running_loop():
            for client in clients:
                await client.aclose()
        self._http = None  # a client from another (finished) loop cannot be closed from this one
        self._retired.clear()

    # ── the call ─────────────────────────────────────────────────────────────────────

    async def run(self, request: AgentRequest) -> AgentResult:
        try:
            if request.timeout_ms:
                async with asyncio.timeout(request.timeout_ms / 1000):
                    result = await self._call(request)
            else:
                result = await self._call(request)
        except TimeoutError:  # only asyncio.timeout raises this; httpx's own timeouts are handled below
            # The cancelled request can leave its connection in the pool with the answer still
            # coming; the next call would be sent on it and wait for that. New calls get a new pool.
            if self._http is not None:
                self._retired.append(self._http)
                self._http = None
            return AgentResult(error=PHASE_TIMEOUT.format(ms=request.timeout_ms), exit_code=1, timed_out=True)
        except Exception as exc:  # a runner never raises for a failed call (base.py)
            result = self._fail(f"Provider call failed: {type(exc).__name__}: {exc}")
        result.output = redact_known(result.output, [self._api_key])  # the answer itself: known key only
        if self.library is not None:
            result.agent = self.library.fallback_for(request.agent)
        return result

    async def _call(self, request: AgentRequest) -> AgentResult:
        name = self.provider.name
        if self.provider.api_key_env and not self._api_key:
            return self._fail(f"No API key for provider '{name}': set the environment variable "
                              f"{self.provider.api_key_env}")
        body = self.build_body(request)
        if not body["model"]:
            return self._fail(f"No model for provider '{name}': set providers.{name}.model or the phase's model")
        client = self._client()
        try:
            if self.stream:
                return await self._streamed(client, body, request)
            response = await client.post("chat/completions", json=body)
            if response.status_code >= 400:
                return self._http_error(response.status_code, response.reason_phrase, response.text,
                                        response.headers)
            return self._from_body(response.text, body["model"])
        except httpx.TimeoutException as exc:
            return self._fail(self._timeout_text(exc))
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            return self._fail(f"ECONNRESET: connection to provider '{name}' dropped before the response "
                              f"completed (socket hang up): {str(exc) or type(exc).__name__}")
        except httpx.ConnectError as exc:
            return self._fail(f"Could not connect to provider '{name}' at {self.provider.base_url}: {exc}")
        except httpx.HTTPError as exc:
            return self._fail(f"HTTP error talking to provider '{name}': {type(exc).__name__}: {exc}")

    def build_body(self, request: AgentRequest) -> dict[str, Any]:
        """The chat-completions request body for `request` (public so the UI can show it)."""
        messages: list[dict[str, str]] = []
        definition = self.library.resolve(request.agent) if self.library is not None else None
        system = system_prompt_for(request.system, definition)
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": request.task})
        model = request.model or (definition.model if definition else None) or self.provider.model
        body: dict[str, Any] = {**self.provider.params, "model": model, "messages": messages}
        effort = reasoning_effort(request.thinking)
        if effort:
            body["reasoning_effort"] = effort
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is not None and self._loop is not loop:
            self._http = None  # reused from another event loop: its pooled connections belong to the old one
        if self._http is None:
            self._loop = loop
            headers = {"Accept": "application/json", **self.provider.headers}
            if self._api_key:
                header = self.provider.api_key_header
                is_bearer = header.lower() == "authorization"
                headers[header] = f"Bearer {self._api_key}" if is_bearer else self._api_key
            timeout_s = self.provider.timeout_s
            self._http = httpx.AsyncClient(
                base_url=self.provider.base_url.rstrip("/") + "/",
                headers=headers,
                timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 15.0)),
            )
        return self._http

    # ── responses ────────────────────────────────────────────────────────────────────

    def _from_body(self, text: str, model: str) -> AgentResult:
        try:
            data = json.loads(text)
        except ValueError:
            return self._fail(f"Malformed response from provider '{self.provider.name}': body is not JSON: "
                              f"{_snippet(text)!r}")
        if not isinstance(data, dict):
            return self._fail(f"Malformed response from provider '{self.provider.name}': "
                              f"expected a JSON object, got {type(data).__name__}")
        if "error" in data and not data.get("choices"):
            return self._fail(f"Provider error: {_provider_message(data) or _snippet(text)}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return self._fail(f"Malformed response from provider '{self.provider.name}': no 'choices' in the body")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            return self._fail(f"Malformed response from provider '{self.provider.name}': choices[0] has no 'message'")
        content = message.get("content")
        if content is None and message.get("refusal"):
            return self._fail(f"Model refused: {message['refusal']}")
        if content is not None and not isinstance(content, str):
            return self._fail(f"Malformed response from provider '{self.provider.name}': "
                              f"message content is {type(content).__name__}, not text")
        return AgentResult(output=content or "", usage=self._usage(data.get("usage"), model, data.get("model")))

    async def _streamed(self, client: httpx.AsyncClient, body: dict[str, Any], request: AgentRequest
                        ) -> AgentResult:
        name = self.provider.name
        async with client.stream("POST", "chat/completions", json=body) as response:
            if response.status_code >= 400:
                await response.aread()
                return self._http_error(response.status_code, response.reason_phrase, response.text,
                                        response.headers)
            if "text/event-stream" not in response.headers.get("content-type", ""):
                await response.aread()  # the server ignored `stream: true`: read it as a plain answer
                return self._from_body(response.text, body["model"])
            parts: list[str] = []
            usage: Any = None
            reported_model: Any = None
            finished = False
            async for payload in _sse_data(_lines(_paced(response.aiter_bytes(), STREAM_READ_INTERVAL_S))):
                if payload == "[DONE]":
                    finished = True
                    break
                try:
                    chunk = json.loads(payload)
                except ValueError:
                    return self._fail(f"Malformed stream from provider '{name}': event is not JSON: "
                                      f"{_snippet(payload)!r}")
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    return self._fail(f"Provider error in stream: {_provider_message(chunk) or _snippet(payload)}",
                                      output="".join(parts))
                usage = chunk.get("usage") or usage
                reported_model = chunk.get("model") or reported_model
                for choice in chunk.get("choices") or []:
                    if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                        continue
                    finished = finished or bool(choice.get("finish_reason"))
                    delta = choice.get("delta") or {}
                    text = delta.get("content") if isinstance(delta, dict) else None
                    if isinstance(text, str) and text:
                        parts.append(text)
                        await self._emit(request.node_path, text)
            if not finished:
                return self._fail(f"ECONNRESET: provider '{name}' closed the stream before it finished "
                                  "(socket hang up)", output="".join(parts))
            return AgentResult(output="".join(parts), usage=self._usage(usage, body["model"], reported_model))

    async def _emit(self, node_path: str, text: str) -> None:
        if self.on_chunk is None:
            return
        try:
            outcome = self.on_chunk(node_path, text)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            pass  # a display callback must never fail the model call

    def _usage(self, raw: Any, model: str, reported_model: Any) -> Usage | None:
        if not isinstance(raw, dict):
            return None  # the host did not report usage: unknown, not zero

        def count(value: Any) -> int:
            return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

        details = raw.get("prompt_tokens_details")
        usage = Usage(
            input=count(raw.get("prompt_tokens")),
            output=count(raw.get("completion_tokens")),
            cache_read=count(details.get("cached_tokens")) if isinstance(details, dict) else 0,
        )
        prices = self.provider.price_for(model)
        if prices is None and isinstance(reported_model, str):
            prices = self.provider.price_for(reported_model)
        if prices is not None:
            usage.cost_usd = (usage.input * prices[0] + usage.output * prices[1]) / 1_000_000
        return usage

    # ── errors ───────────────────────────────────────────────────────────────────────

    def _fail(self, message: str, *, output: str = "") -> AgentResult:
        return AgentResult(output=output, error=redact(message, [self._api_key]), exit_code=1)

    def _http_error(self, status: int, reason: str, text: str, headers: httpx.Headers) -> AgentResult:
        detail = ""
        try:
            detail = _provider_message(json.loads(text))
        except ValueError:
            pass
        detail = detail or _snippet(text)
        message = f"{status} {status_phrase(status, reason)}" + (f": {detail}" if detail else "")
        # LiteLLM's proxy passes a provider's wait on as `llm_provider-retry-after` (its router's
        # own 429 when a deployment's rpm is used up has only that one: tests/agents/fixtures/litellm/)
        wait_s = retry_after_seconds(headers.get("retry-after") or headers.get("llm_provider-retry-after"))
        if wait_s is not None:
            message += f" (retry after {wait_s:g}s)"  # the retry layer reads this (engine/retry.py)
        if status in (401, 403):
            env = self.provider.api_key_env
            header_names = [h for h in self.provider.headers if is_secret_header(h)]
            if env and self._api_key:
                message += f" (API key from ${env})"
            elif header_names:
                message += f" (credentials from providers.{self.provider.name}.headers: {', '.join(header_names)})"
            else:
                message += f" (no API key sent; set providers.{self.provider.name}.api_key_env)"
        return self._fail(message)

    def _timeout_text(self, exc: httpx.TimeoutException) -> str:
        name, seconds = self.provider.name, self.provider.timeout_s
        if isinstance(exc, httpx.ConnectTimeout):
            return f"Connect timed out (ETIMEDOUT) to provider '{name}' at {self.provider.base_url}"
        if isinstance(exc, httpx.PoolTimeout):
            return f"Timed out waiting for a free connection to provider '{name}'"
        return f"Request to provider '{name}' timed out after {seconds:g}s with no data (read timeout)"


# Reason phrases of statuses outside RFC 9110 that OpenAI-compatible gateways pass through.
_EXTRA_PHRASES = {529: "Overloaded"}  # Anthropic's (and LiteLLM's) "overloaded" status


def status_phrase(status: int, reason: str = "") -> str:
    """The standard reason phrase of `status` (429 -> "Too Many Requests", 529 -> "Overloaded"),
    else the server's own, else "HTTP error": the words the transient classification reads."""
    if status in _EXTRA_PHRASES:
        return _EXTRA_PHRASES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return reason.strip() or "HTTP error"


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds (`"5"`) or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, round(seconds, 3))


def reasoning_effort(thinking: Any) -> str | None:
    """Map a phase's `thinking` onto OpenAI's `reasoning_effort`; None sends nothing."""
    if thinking is None or thinking is False or thinking == "":
        return None
    if thinking is True:
        return "medium"
    if isinstance(thinking, str):
        value = thinking.strip().lower()
        return value if value in _EFFORTS else None
    if isinstance(thinking, (int, float)):  # a token budget
        if thinking <= 0:
            return None
        return "low" if thinking <= 2048 else "medium" if thinking <= 8192 else "high"
    if isinstance(thinking, dict):
        return reasoning_effort(thinking.get("effort", thinking.get("budget_tokens", thinking.get("budgetTokens"))))
    return None


def _provider_message(data: Any) -> str:
    """The human message inside an error body: `{"error": {"message": …}}` and common variants."""
    if not isinstance(data, dict):
        return ""
    err = data.get("error")
    if isinstance(err, dict):
        msg = err.get("message") or err.get("msg") or ""
        text = str(msg) if msg else ""
        for tag in (err.get("type"), err.get("code")):  # e.g. overloaded_error, rate_limit_exceeded
            if tag and str(tag) not in text:
                text = f"{text} ({tag})" if text else str(tag)
        return _snippet(text)
    if isinstance(err, str):
        return _snippet(err)
    for key in ("message", "detail"):
        if isinstance(data.get(key), str):
            return _snippet(data[key])
    return ""


def _snippet(text: str, limit: int = _SNIPPET) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def _paced(chunks: AsyncIterator[bytes], interval_s: float,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> AsyncIterator[bytes]:
    """`chunks`, with a pause of `interval_s` after each one that took a socket read (see
    STREAM_READ_INTERVAL_S): what arrives meanwhile comes in the next read, all at once. A chunk
    that an earlier read brought (several pieces in one read) comes at once, without a pause."""
    loop = asyncio.get_running_loop()
    source = aiter(chunks)
    while True:
        read: list[bool] = []  # the event loop ran while the chunk was awaited: it took a socket read
        probe = loop.call_soon(read.append, True)
        try:
            chunk = await anext(source)
        except StopAsyncIteration:
            return
        finally:
            probe.cancel()
        yield chunk
        if read:
            await sleep(interval_s)


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The UTF-8 text lines of a byte stream, without their line ends (`\\r\\n`, `\\r` or `\\n`; one
    may be split across two chunks). Invalid bytes read as U+FFFD."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    async for chunk in chunks:
        text = pending + decoder.decode(chunk)
        held = "\r" if text.endswith("\r") else ""  # maybe the first half of a `\r\n`
        lines = _LINE_END.split(text[:-1] if held else text)
        pending = lines.pop() + held
        for line in lines:
            yield line
    rest = pending + decoder.decode(b"", final=True)
    if rest:
        lines = _LINE_END.split(rest)
        if lines[-1] == "":
            lines.pop()
        for line in lines:
            yield line


async def _sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The `data` payload of each server-sent event (multi-line data joined by newlines)."""
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # comment / keep-alive
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)
