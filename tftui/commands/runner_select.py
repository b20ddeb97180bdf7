"""Which AgentRunner answers a headless run's model calls (the seam between `tftui run` and agents).

`select_runner(args, flow_path) -> AgentRunner` is all `tftui run` relies on, plus
`RunnerSelectionError` (a usage problem: the command prints it and exits 2). The choice
itself is `tftui.agents.select.build_runner`: `--provider` / `--replies` / `--agent-cmd`
flags, then config.toml / env, then the replies file next to the flow
(`NAME.replies.json` for `NAME.json`), so `tftui run sample_flows/NAME.json` needs no flags.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tftui.agents.base import AgentRunner


class RunnerSelectionError(Exception):
    """No usable runner; the message says how to supply one (the command exits 2)."""


def select_runner(args: argparse.Namespace, flow_path: str | Path | None) -> AgentRunner:
    """The runner for `tftui run`; raises RunnerSelectionError with a how-to message when there is none.

    `args` may carry `replies`, `provider` and `agent_cmd`; absent attributes count as unset.
    """
    from tftui.agents.select import RunnerConfigError, build_runner
    from tftui.config import load_config

    replies = getattr(args, "replies", None)
    if replies and not Path(replies).is_file():
        raise RunnerSelectionError(
            f"replies file not found: {replies}\n(--replies names a JSON file mapping node paths to replies)"
        )
    config = load_config(flow_path)
    for problem in [*config.ignored, *config.warnings]:  # ignored ui/keys values: the run goes on
        print(f"tftui run: warning: {problem}", file=sys.stderr)
    try:
        runner = build_runner(
            config,
            provider=getattr(args, "provider", None),
            replies=replies,
            agent_cmd=getattr(args, "agent_cmd", None),
            flow_path=flow_path,
        )
    except RunnerConfigError as exc:
        raise RunnerSelectionError(str(exc)) from exc
    if runner is None:  # build_runner returns None only with allow_human, which a headless run never asks
        raise RunnerSelectionError("no agent is configured to answer this flow's model calls")
    return runner
