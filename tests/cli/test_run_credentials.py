"""Deterministic runs (replies, cassette) and provider credentials: a warning, or a refusal on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.commands.credentials import KNOWN_CREDENTIAL_ENV, present_credentials

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
FLOW = str(SAMPLES / "validate.json")  # answered by validate.replies.json beside it


@pytest.fixture(autouse=True)
def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KNOWN_CREDENTIAL_ENV + ("CI",):
        monkeypatch.delenv(name, raising=False)


def test_no_credentials_no_warning(tftui) -> None:  # noqa: ANN001
    done = tftui("run", FLOW, "-q", "--no-journal")
    assert done.code == 0
    assert "credentials" not in done.stderr


def test_replies_run_warns_naming_the_variable_not_its_value(tftui, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    done = tftui("run", FLOW, "-q", "--no-journal")
    assert done.code == 0
    assert "provider credentials" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert "sk-secret-value" not in done.stderr + done.stdout


def test_deny_credentials_refuses(tftui, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    done = tftui("run", FLOW, "-q", "--no-journal", "--deny-credentials")
    assert done.code == 2
    assert "refusing" in done.stderr and "ANTHROPIC_API_KEY" in done.stderr


def test_ci_with_the_config_switch_refuses(tftui, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.setenv("CI", "true")
    assert tftui("run", FLOW, "-q", "--no-journal").code == 0  # CI alone only warns
    (tmp_path / "tftui.toml").write_text("[ci]\ndeny_credentials = true\n")  # the tftui fixture runs in tmp_path
    done = tftui("run", FLOW, "-q", "--no-journal")
    assert done.code == 2 and "CI=true" in done.stderr


def test_a_configured_providers_key_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"MY_GATEWAY_KEY": "x", "OPENAI_API_KEY": "", "PATH": "/bin"}
    assert present_credentials(env, ["MY_GATEWAY_KEY"]) == ["MY_GATEWAY_KEY"]  # empty values are not keys
