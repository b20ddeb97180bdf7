"""Provider errors keep the provider's words, and Retry-After raises the backoff (issue 16).

A real HTTP server on 127.0.0.1 (tests/agents/conftest.py) answers; the runner's failure text is
what the transient classification (tftui/engine/retry.py) reads.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from tftui.agent_types import AgentRequest
from tftui.agents.openai import OpenAIRunner, retry_after_seconds, status_phrase
from tftui.cli import main as cli_main
from tftui.config import ProviderConfig
from tftui.engine.retry import (
    MAX_DELAY_MS,
    backoff_honouring_retry_after,
    backoff_ms,
    is_transient,
    retry_after_ms,
)

KEY = "sk-words-0123456789abcdefghijkl"


def _runner(url: str) -> OpenAIRunner:
    return OpenAIRunner(ProviderConfig(name="local", base_url=url, model="m", api_key_env="K"), env={"K": KEY})


async def _fail(fake_provider, status: int, body: object, headers: dict[str, str] | None = None):
    fake_provider.add(status=status, body=body, headers=headers or {})
    async with _runner(fake_provider.url) as r:
        return await r.run(AgentRequest(node_path="p", phase_id="p", agent="a", task="t"))


ANTHROPIC_529 = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


@pytest.mark.parametrize(
    ("status", "body", "start", "transient"),
    [
        (529, ANTHROPIC_529, "529 Overloaded: Overloaded (overloaded_error)", True),
        (429, {"error": {"message": "slow down", "type": "rate_limit_error"}},
         "429 Too Many Requests: slow down (rate_limit_error)", True),
        (503, {"error": {"message": "no capacity"}}, "503 Service Unavailable: no capacity", True),
        (500, {"error": {"message": "kaboom", "type": "server_error"}},
         "500 Internal Server Error: kaboom (server_error)", False),
        (400, {"error": {"message": "bad field", "type": "invalid_request_error", "code": "bad_param"}},
         "400 Bad Request: bad field (invalid_request_error) (bad_param)", False),
        (401, {"error": {"message": "who are you"}}, "401 Unauthorized: who are you", False),
    ],
)
async def test_the_failure_text_keeps_status_phrase_and_provider_message(fake_provider, status, body, start,
                                                                          transient):
    result = await _fail(fake_provider, status, body)
    assert result.failed and result.error.startswith(start), result.error
    assert is_transient(result.error, stderr=result.stderr, output=result.output) is transient


def test_status_phrases():
    assert status_phrase(529) == "Overloaded"
    assert status_phrase(504) == "Gateway Timeout"
    assert status_phrase(599, "Weird Gateway") == "Weird Gateway"
    assert status_phrase(599) == "HTTP error"


def test_retry_after_forms():
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds(date, now=now.timestamp()) == 30.0


async def test_retry_after_reaches_the_failure_text_and_the_backoff(fake_provider):
    result = await _fail(fake_provider, 429, {"error": {"message": "slow"}}, {"Retry-After": "9"})
    assert "(retry after 9s)" in result.error
    assert retry_after_ms(result.error) == 9000
    assert backoff_honouring_retry_after(None, 0, result.error) == (9000, 9000)  # above the 2000 ms default
    assert backoff_honouring_retry_after(None, 2, result.error) == (9000, 9000)  # 8000 raised to 9000
    assert backoff_honouring_retry_after(None, 3, result.error) == (backoff_ms(None, 3), 9000)  # 16000 stays
    assert backoff_honouring_retry_after(None, 0, "429 (retry after 600s)") == (MAX_DELAY_MS, MAX_DELAY_MS)
    assert backoff_honouring_retry_after(None, 1, "503 Service Unavailable") == (backoff_ms(None, 1), None)


def test_a_run_waits_what_the_provider_asked(fake_provider, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("WORDS_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.json").write_text(json.dumps({"name": "f", "phases": [
        {"id": "a", "type": "agent", "task": "t", "final": True}]}))
    (tmp_path / "tftui.toml").write_text(
        f'[providers.local]\nbase_url = "{fake_provider.url}"\nmodel = "m"\napi_key_env = "WORDS_KEY"\n')
    fake_provider.add(status=529, body=ANTHROPIC_529, headers={"Retry-After": "5"})
    fake_provider.add(status=429, body={"error": {"message": "slow"}}, headers={"Retry-After": "300"})
    fake_provider.add(body=fake_provider.completion("done"))
    runs = tmp_path / "runs"
    code = cli_main(["run", "f.json", "--provider", "local", "--runs-dir", str(runs), "--no-wait"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert len(fake_provider.requests) == 3  # the 529 and the 429 were both retried
    run_dir = next(runs.iterdir())
    lines = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    backoffs = [(e["delay_ms"] if "delay_ms" in e else e["delayMs"], e.get("retry_after_ms", e.get("retryAfterMs")))
                for e in lines if e.get("kind") == "backoff_started"]
    assert backoffs == [(5000, 5000), (60000, 60000)]
    assert cli_main(["replay", str(run_dir), "--print"]) == 0
    assert "provider asked Retry-After" in capsys.readouterr().out
