"""Which AgentRunner answers a run's model calls: flags and settings composed with the agents.

Order (first that applies wins):
1. flags: `--provider NAME`, `--replies FILE`, `--agent-cmd "CMD ARGS"` (or the name of a
   `[commands.NAME]` entry) — at most one of them;
2. config: `default_provider`, or `[agent_cmd]` (when both are set, the one from the
   higher-precedence source wins; a tie goes to the provider);
3. the replies file next to the flow (`NAME.replies.json` for `NAME.json`);
4. the TUI only (`allow_human=True`): None, meaning "let the person at the keyboard answer".
Otherwise `RunnerConfigError` explains how to configure one.

`build_runner` is the choice (used by `tftui FLOW` and `tftui run`). `select_runner(args,
flow_path, config) -> AgentRunner` is all `tftui run` relies on, plus `RunnerSelectionError` (a usage
problem: the command prints it and exits 2), so `tftui run sample_flows/NAME.json` needs no flags.
It lives here, above both `tftui.config` and `tftui.agents`, because settings never import agents
and agents never import settings' loader.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tftui.agents.base import AgentRunner
from tftui.agents.definitions import AgentLibrary
from tftui.agents.select import replies_next_to
from tftui.commands.runner_args import RUNNER_FLAGS, runner_choice
from tftui.config import SOURCE_KINDS, CommandConfig, Config, ConfigError


class RunnerConfigError(ConfigError):
    """No usable runner, or conflicting choices; the message says what to do."""


def build_runner(
    config: Config,
    *,
    provider: str | None = None,
    replies: str | Path | None = None,
    agent_cmd: str | list[str] | None = None,
    flow_path: str | Path | None = None,
    allow_human: bool = False,
    on_chunk: Any = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> AgentRunner | None:
    """The runner for a run, or None (only with `allow_human`) when the TUI should supply a human runner.

    With `check` (the default), a setup whose every call would fail is refused here, before any
    call: an unset `api_key_env`, a provider without `model`, a command not on PATH."""
    chosen = [name for name, value in (("--provider", provider), ("--replies", replies),
                                       ("--agent-cmd", agent_cmd)) if value]
    if len(chosen) > 1:
        raise RunnerConfigError(f"choose one of {', '.join(chosen)} (they all pick who answers the model calls)")
    if config.errors:
        raise RunnerConfigError("configuration errors:\n  " + "\n  ".join(config.errors))
    library = AgentLibrary(flow_path, env=env)
    if provider:
        return _provider_runner(config, provider, library, on_chunk, env, check)
    if replies:
        return _scripted(Path(replies))
    if agent_cmd:
        return _command_runner(config, agent_cmd, library, env, check, on_chunk)

    default = config.default_provider
    try:
        command = config.command()
    except ConfigError as exc:
        raise RunnerConfigError(str(exc)) from exc
    if default and command is not None:
        if _rank(config, "agent_cmd") > _rank(config, "default_provider"):
            default = ""
    if default:
        return _provider_runner(config, default, library, on_chunk, env, check)
    if command is not None:
        return _command_from_config(command, library, env, check, on_chunk)

    if flow_path is not None:
        candidate = replies_next_to(flow_path)
        if candidate.is_file():
            return _scripted(candidate)
    if allow_human:
        return None
    where = replies_next_to(flow_path) if flow_path is not None else Path("NAME.replies.json")
    raise RunnerConfigError(
        "no agent is configured to answer this flow's model calls. Use one of:\n"
        "  --provider NAME        an OpenAI-compatible provider from [providers.NAME] in tftui.toml\n"
        "                         or ~/.config/tftui/config.toml (set default_provider to make it the default)\n"
        "  --agent-cmd \"CMD ...\"  a CLI agent reading the prompt on stdin (e.g. \"llm -m gpt-4o-mini\")\n"
        f"  --replies FILE         scripted replies (or put them next to the flow as {where})"
    )


def _rank(config: Config, key: str) -> int:
    sources = [s for p, s in config.sources.items() if p[:1] == (key,)]
    return max((SOURCE_KINDS.index(s.kind) for s in sources), default=-1)


def _provider_runner(config: Config, name: str, library: AgentLibrary, on_chunk: Any,
                     env: Mapping[str, str] | None, check: bool = True) -> AgentRunner:
    """The provider's runner, after refusing a setup whose every call would fail (before any call)."""
    from tftui.agents.openai import OpenAIRunner

    known = config.provider_names()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise RunnerConfigError(f"unknown provider '{name}' (configured: {', '.join(known) or 'none'}); "
                                f"{hint}add [providers.{name}] to tftui.toml or pass --provider with one of those")
    try:
        settings = config.provider(name)
    except ConfigError as exc:
        raise RunnerConfigError(str(exc)) from exc
    if check and not settings.model:
        raise RunnerConfigError(f"provider '{name}' has no model; set providers.{name}.model "
                                f"(e.g. model = \"gpt-4o-mini\") in tftui.toml")
    if check and settings.api_key_env and not settings.api_key(env):
        raise RunnerConfigError(
            f"provider '{name}': the environment variable {settings.api_key_env} (providers.{name}.api_key_env) "
            f"is not set; export {settings.api_key_env}=YOUR_KEY, or remove api_key_env for a server that needs no key")
    return OpenAIRunner(settings, library=library, env=env, on_chunk=on_chunk)


def _check_program(argv: list[str], setting: str, env: Mapping[str, str] | None) -> None:
    """Refuse an agent command whose program cannot be started (not on PATH, not executable)."""
    program = argv[0]
    path = (env or os.environ).get("PATH")
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise RunnerConfigError(f"{setting}: {program} is not an executable file; fix the path in {setting}")
    elif shutil.which(program, path=path) is None:
        raise RunnerConfigError(f"{setting}: the program '{program}' is not on PATH; install it, "
                                f"or give its full path in {setting}")


def _command_runner(config: Config, agent_cmd: str | list[str], library: AgentLibrary,
                    env: Mapping[str, str] | None, check: bool = True, on_chunk: Any = None) -> AgentRunner:
    if isinstance(agent_cmd, str) and agent_cmd in (config.get("commands") or {}):
        named = config.command(agent_cmd)
        if named is not None:
            return _command_from_config(named, library, env, check, on_chunk)
    if isinstance(agent_cmd, str):
        try:
            argv = shlex.split(agent_cmd)
        except ValueError as exc:
            raise RunnerConfigError(f"--agent-cmd: cannot split {agent_cmd!r}: {exc}") from exc
    else:
        argv = list(agent_cmd)
    if not argv:
        raise RunnerConfigError("--agent-cmd: empty command")
    if check:
        _check_program(argv, "--agent-cmd", env)
    base = config.command()
    timeout_s = base.timeout_s if base is not None else None
    from tftui.agents.command import CommandRunner

    return CommandRunner(argv, timeout_s=timeout_s, library=library, env=env, on_chunk=on_chunk)


def _command_from_config(command: CommandConfig, library: AgentLibrary, env: Mapping[str, str] | None,
                         check: bool = True, on_chunk: Any = None) -> AgentRunner:
    from tftui.agents.command import CommandRunner

    if check:
        _check_program(command.argv, f"commands.{command.name}.argv" if command.name != "agent_cmd"
                       else "agent_cmd.argv", env)
    base = dict(os.environ if env is None else env)
    from tftui.redaction import register_secret

    for value in command.secret_values(base):  # `secret_env`: masked wherever they appear
        register_secret(value)
    return CommandRunner(command.argv, timeout_s=command.timeout_s, library=library,
                         env={**base, **command.env}, prepend_system=command.prepend_system, on_chunk=on_chunk)


def _scripted(path: Path) -> AgentRunner:
    from tftui.agents.scripted import RepliesError, ScriptedRunner

    if not path.is_file():
        raise RunnerConfigError(f"replies file not found: {path}")
    try:
        return ScriptedRunner.from_file(path)
    except RepliesError as exc:
        raise RunnerConfigError(str(exc)) from exc


# `tftui run` switches a resumed run must be given again to go on as it started: who may run
# (the cwd-bridge opt-in), what approval phases get, the credentials guard. (`--no-wait`, `--quiet`,
# `--json`, `--ascii` change only how it is shown or how long it waits.)
_RESUME_SWITCHES = (("--allow-cwd-bridge", "allow_cwd_bridge"), ("--approve", "approve"),
                    ("--deny-credentials", "deny_credentials"))


def runner_flags(args: argparse.Namespace) -> list[str]:
    """The flags of `tftui run` that chose the run's runner and journal (`--provider X`,
    `--agent-cmd CMD`, `--replies FILE`, `--from RUN_DIR`, `--runs-dir DIR`) and the switches
    it runs under (`--allow-cwd-bridge`, `--approve`, `--deny-credentials`): what `--resume`
    needs again (the interrupted-run hint)."""
    out: list[str] = []
    valued = [*((flag, dest) for flag, dest, _metavar, _help in RUNNER_FLAGS), ("--from", "from_"),
              ("--runs-dir", "runs_dir")]
    for flag, attr in valued:
        value = getattr(args, attr, None)
        if value:
            out += [flag, str(value)]
    out += [flag for flag, attr in _RESUME_SWITCHES if getattr(args, attr, False) is True]
    return out


class RunnerSelectionError(Exception):
    """No usable runner; the message says how to supply one (the command exits 2)."""


def select_runner(args: argparse.Namespace, flow_path: str | Path | None, config: Config) -> AgentRunner:
    """The runner for `tftui run`; raises RunnerSelectionError with a how-to message when there is none.

    `args` may carry `replies`, `provider` and `agent_cmd`; absent attributes count as unset.
    `config`: the run's settings, loaded once for its flow (the admission made their `[limits]`
    take effect already: `tftui.admit.admission_rules`).
    """
    replies = getattr(args, "replies", None)
    if replies and not Path(replies).is_file():
        raise RunnerSelectionError(
            f"replies file not found: {replies}\n(--replies names a JSON file mapping node paths to replies)"
        )
    for problem in [*config.ignored, *config.warnings]:  # ignored ui/keys values: the run goes on
        print(f"tftui run: warning: {problem}", file=sys.stderr)
    try:
        runner = build_runner(config, **runner_choice(args), flow_path=flow_path)
    except RunnerConfigError as exc:
        raise RunnerSelectionError(str(exc)) from exc
    if runner is None:  # build_runner returns None only with allow_human, which a headless run never asks
        raise RunnerSelectionError("no agent is configured to answer this flow's model calls")
    return runner
