"""Provider credentials must be unavailable to deterministic runs (docs/trace-gates.md §7, the CI job's rule).

A run answered by a replies file or a cassette (`--replies`, NAME.replies.json, `--from`) needs
no provider key; one that finds a key in its environment says so on stderr (names only, never
values). `--deny-credentials`, or `CI=true` with the setting `ci.deny_credentials = true`
(config.toml / tftui.toml, or TFTUI_CI__DENY_CREDENTIALS=true), refuses to run instead (exit 2).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tftui.config import Config

# Well-known provider key variables, besides every configured provider's api_key_env.
KNOWN_CREDENTIAL_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "COHERE_API_KEY",
    "GROQ_API_KEY",
    "TOGETHER_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "FIREWORKS_API_KEY",
    "PERPLEXITY_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
)
CI_SWITCH = "ci.deny_credentials"


def present_credentials(env: Mapping[str, str], configured: list[str]) -> list[str]:
    """Names of credential variables set (non-empty) in `env`, sorted."""
    names = set(KNOWN_CREDENTIAL_ENV) | {n for n in configured if n}
    return sorted(n for n in names if env.get(n, "").strip())


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def check(*, deterministic: str | None, deny_flag: bool, config: Config,
          env: Mapping[str, str] | None = None) -> tuple[str | None, bool]:
    """(message, refuse) for a run. `deterministic` says what answers the run (None: a live runner,
    nothing to check); `config`: the run's settings (loaded once for its flow, with `env`). The
    message names the variables; `refuse` means exit 2."""
    if deterministic is None:
        return None, False
    env = os.environ if env is None else env
    providers = config.get("providers")  # a bad table stays in the settings (reported as an error elsewhere)
    configured = [str(p.get("api_key_env") or "") for p in providers.values()
                  if isinstance(p, dict)] if isinstance(providers, dict) else []
    switch = config.get(CI_SWITCH) is True
    found = present_credentials(env, configured)
    if not found:
        return None, False
    refuse = deny_flag or (switch and _truthy(env.get("CI")))
    names = ", ".join(found)
    if refuse:
        why = "--deny-credentials" if deny_flag else f"CI=true and {CI_SWITCH}"
        return (f"refusing a deterministic run ({deterministic}) with provider credentials in the environment: "
                f"{names} ({why}); unset them for scripted jobs"), True
    return (f"warning: a deterministic run ({deterministic}) has provider credentials in its environment: {names}"
            " — scripted jobs should not; --deny-credentials refuses them"), False
