"""OpenAIRunner against a real HTTP server on 127.0.0.1 (tests/agents/conftest.py)."""

from __future__ import annotations

import socket

import pytest

from tftui.agents.base import AgentRequest
from tftui.agents.definitions import AgentLibrary
from tftui.agents.openai import OpenAIRunner, reasoning_effort
from tftui.config import ProviderConfig
from tftui.engine.retry import is_transient

KEY = "sk-test-0123456789abcdefSECRETxyz"


def provider(url: str, **kw) -> ProviderConfig:
    return ProviderConfig(name="local", base_url=url, model=kw.pop("model", "test-model"),
                          api_key_env="LOCAL_KEY", **kw)


def runner(url: str, **kw) -> OpenAIRunner:
    on_chunk = kw.pop("on_chunk", None)
    stream = kw.pop("stream", None)
    library = kw.pop("library", None)
    return OpenAIRunner(provider(url, **kw), env={"LOCAL_KEY": KEY}, on_chunk=on_chunk, stream=stream,
                        library=library)


def req(task: str = "Say hi", **kw) -> AgentRequest:
    return AgentRequest(node_path=kw.pop("node_path", "gen"), phase_id="gen", agent=kw.pop("agent", "executor"),
                        task=task, **kw)


def transient(result) -> bool:
    return is_transient(result.error, stderr=result.stderr, output=result.output)


async def test_plain_answer_usage_and_request_shape(fake_provider):
    fake_provider.add(body=fake_provider.completion("Hello!", prompt_tokens=1000, completion_tokens=500))
    async with runner(fake_provider.url, prices={"input_per_mtok": 1.0, "output_per_mtok": 2.0}) as r:
        result = await r.run(req("Say hi", system="Be brief."))
    assert not result.failed
    assert result.output == "Hello!"
    assert (result.usage.input, result.usage.output) == (1000, 500)
    assert result.usage.cost_usd == pytest.approx(0.002)
    sent = fake_provider.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["json"]["model"] == "test-model"
    assert sent["json"]["messages"] == [{"role": "system", "content": "Be brief."},
                                        {"role": "user", "content": "Say hi"}]
    assert "stream" not in sent["json"]


async def test_cost_unknown_without_prices_and_per_model_table(fake_provider):
    fake_provider.add(body=fake_provider.completion("a", prompt_tokens=100, completion_tokens=100))
    fake_provider.add(body=fake_provider.completion("b", prompt_tokens=1_000_000, completion_tokens=0))
    async with runner(fake_provider.url) as r:
        unknown = await r.run(req())
    table = {"big-model": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}
    async with runner(fake_provider.url, prices=table) as r:
        priced = await r.run(req(model="big-model"))
    assert unknown.usage is not None and unknown.usage.cost_usd is None  # unknown, never 0
    assert priced.usage.cost_usd == pytest.approx(3.0)
    assert fake_provider.requests[1]["json"]["model"] == "big-model"  # request.model overrides


async def test_missing_usage_is_reported_as_unknown(fake_provider):
    fake_provider.add(body=fake_provider.completion("x", prompt_tokens=None))
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.output == "x" and result.usage is None


async def test_system_prompt_comes_from_agent_definition(fake_provider, tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "critic.md").write_text("---\nname: critic\nmodel: critic-model\n---\nYou criticise.\n")
    library = AgentLibrary(tmp_path / "flow.json", env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    async with runner(fake_provider.url, library=library) as r:
        await r.run(req(agent="critic"))
    body = fake_provider.requests[0]["json"]
    assert body["messages"][0] == {"role": "system", "content": "You criticise."}
    assert body["model"] == "critic-model"


async def test_streamed_answer_chunks_and_usage(fake_provider):
    fake_provider.add("sse", events=fake_provider.stream_events(["Hel", "lo", " world"], usage=(12, 3)))
    seen: list[tuple[str, str]] = []

    async def on_chunk(node: str, text: str) -> None:
        seen.append((node, text))

    async with runner(fake_provider.url, stream=True, on_chunk=on_chunk,
                      prices={"input_per_mtok": 1.0, "output_per_mtok": 1.0}) as r:
        result = await r.run(req(node_path="gen#item-0"))
    assert not result.failed, result.error
    assert result.output == "Hello world"
    assert seen == [("gen#item-0", "Hel"), ("gen#item-0", "lo"), ("gen#item-0", " world")]
    assert (result.usage.input, result.usage.output) == (12, 3)
    assert result.usage.cost_usd == pytest.approx(15 / 1_000_000)
    body = fake_provider.requests[0]["json"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_stream_cut_before_done_is_transient(fake_provider):
    events = [{"choices": [{"index": 0, "delta": {"content": "partial"}}]}]
    fake_provider.add("sse", events=events, done=False)
    async with runner(fake_provider.url, stream=True) as r:
        result = await r.run(req())
    assert result.failed and "ECONNRESET" in result.error and transient(result)
    assert result.output == "partial"


async def test_stream_error_event_and_malformed_event(fake_provider):
    fake_provider.add("sse", events=[{"error": {"message": "Model is overloaded"}}])
    fake_provider.add("sse", events=["{not json"])
    async with runner(fake_provider.url, stream=True) as r:
        overloaded = await r.run(req())
        malformed = await r.run(req())
    assert "overloaded" in overloaded.error and transient(overloaded)
    assert malformed.error.startswith("Malformed stream from provider 'local': event is not JSON")
    assert not transient(malformed)


async def test_stream_requested_but_plain_json_returned(fake_provider):
    fake_provider.add(body=fake_provider.completion("plain anyway"))
    async with runner(fake_provider.url, stream=True) as r:
        result = await r.run(req())
    assert result.output == "plain anyway" and not result.failed


async def test_429_then_success(fake_provider):
    fake_provider.add(status=429, body={"error": {"message": "Rate limit reached for requests"}},
                      headers={"Retry-After": "2"})
    fake_provider.add(body=fake_provider.completion("second time lucky"))
    async with runner(fake_provider.url) as r:
        first = await r.run(req(attempt=0))
        second = await r.run(req(attempt=1))
    assert first.failed and first.error.startswith("429 Too Many Requests: Rate limit reached for requests")
    assert "retry after 2s" in first.error
    assert transient(first)
    assert not second.failed and second.output == "second time lucky"
    assert len(fake_provider.requests) == 2


@pytest.mark.parametrize(("status", "is_retryable"), [(503, True), (502, True), (500, False)])
async def test_server_errors_start_with_status(fake_provider, status, is_retryable):
    fake_provider.add(status=status, body={"error": {"message": "upstream trouble"}})
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.error.startswith(f"{status} ") and "upstream trouble" in result.error
    assert transient(result) is is_retryable  # SPEC §7.2: 500 is not in the transient list


async def test_400_is_a_hard_failure_with_provider_text(fake_provider):
    fake_provider.add(status=400, body={"error": {"message": "Unsupported parameter: 'reasoning_effort'",
                                                  "type": "invalid_request_error"}})
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.error.startswith("400 Bad Request: Unsupported parameter: 'reasoning_effort'")
    assert not transient(result) and result.exit_code == 1


async def test_hanging_response_cut_by_per_call_timeout(fake_provider):
    fake_provider.route("HANG-HERE", "hang")
    fake_provider.add(body=fake_provider.completion("alive"))
    async with runner(fake_provider.url) as r:
        result = await r.run(req("HANG-HERE", timeout_ms=200))
        after = await r.run(req())
    assert result.timed_out and result.failed
    assert result.error == "Phase timed out after 200ms (subagent aborted)"
    assert after.output == "alive"  # the pool survives an aborted call


async def test_provider_read_timeout_is_transient_not_phase_timeout(fake_provider):
    fake_provider.add("hang")
    async with runner(fake_provider.url, timeout_s=0.2) as r:
        result = await r.run(req())
    assert not result.timed_out
    assert "timed out" in result.error and transient(result)


async def test_dropped_connection_is_transient(fake_provider):
    fake_provider.add("drop")
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.failed and "ECONNRESET" in result.error and transient(result)


@pytest.mark.parametrize(("spec", "expected"), [
    ({"kind": "raw", "text": "<html>Bad gateway page</html>", "content_type": "text/html"},
     "Malformed response from provider 'local': body is not JSON: '<html>Bad gateway page</html>'"),
    ({"kind": "json", "body": {"id": "x", "object": "chat.completion"}},
     "Malformed response from provider 'local': no 'choices' in the body"),
    ({"kind": "json", "body": {"choices": [{"index": 0}]}},
     "Malformed response from provider 'local': choices[0] has no 'message'"),
])
async def test_malformed_bodies_are_named(fake_provider, spec, expected):
    fake_provider.add(**spec)
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.error == expected and not transient(result)


async def test_connection_refused_is_a_clear_failure():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    async with runner(f"http://127.0.0.1:{port}/v1") as r:
        result = await r.run(req())
    assert result.failed and result.error.startswith("Could not connect to provider 'local'")


async def test_api_key_never_leaks(fake_provider):
    fake_provider.add(status=401, echo_auth=True)
    fake_provider.add(body=fake_provider.completion(f"your key is {KEY}"))
    fake_provider.add("raw", text=f"garbage with {KEY}")
    r = runner(fake_provider.url)
    results = [await r.run(req()) for _ in range(3)]
    await r.aclose()
    assert results[0].error.startswith("401 Unauthorized: Incorrect API key provided: Bearer …")
    for result in results:
        texts = [result.output, result.error or "", result.stderr, repr(result), str(result.usage)]
        assert all(KEY not in t for t in texts), texts
    assert KEY not in repr(r)


async def test_missing_key_fails_before_any_request(fake_provider):
    r = OpenAIRunner(provider(fake_provider.url), env={})
    result = await r.run(req())
    await r.aclose()
    assert result.error == "No API key for provider 'local': set the environment variable LOCAL_KEY"
    assert fake_provider.requests == []


async def test_no_key_configured_sends_no_auth_header(fake_provider):
    r = OpenAIRunner(ProviderConfig(name="ollama", base_url=fake_provider.url, model="m"), env={})
    result = await r.run(req())
    await r.aclose()
    assert result.output == "ok"
    assert "Authorization" not in fake_provider.requests[0]["headers"]


async def test_thinking_and_params_reach_the_body(fake_provider):
    async with runner(fake_provider.url, params={"temperature": 0}) as r:
        await r.run(req(thinking="high"))
        await r.run(req())
    first, second = (x["json"] for x in fake_provider.requests)
    assert first["reasoning_effort"] == "high" and first["temperature"] == 0
    assert "reasoning_effort" not in second


@pytest.mark.parametrize(("thinking", "effort"), [
    (None, None), (False, None), (True, "medium"), ("LOW", "low"), ("bogus", None),
    (1024, "low"), (4096, "medium"), (32000, "high"), ({"budget_tokens": 100}, "low"), (0, None),
])
def test_reasoning_effort_mapping(thinking, effort):
    assert reasoning_effort(thinking) == effort


async def test_answers_keep_key_like_examples_that_are_not_our_key(fake_provider):
    answer = 'curl -H "Authorization: Bearer sk-your-key-here-0000000000" https://api.example.com'
    fake_provider.add(body=fake_provider.completion(answer))
    async with runner(fake_provider.url) as r:
        result = await r.run(req())
    assert result.output == answer


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
def test_runner_survives_being_used_from_two_event_loops(fake_provider):
    import asyncio
    import gc

    r = runner(fake_provider.url)

    async def run_and_close():
        result = await r.run(req())
        await r.aclose()
        return result

    first = asyncio.run(r.run(req()))
    second = asyncio.run(run_and_close())
    assert first.output == second.output == "ok"
    gc.collect()  # the first loop's connection cannot be closed after that loop ended: let it go here
