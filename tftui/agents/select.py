"""Runner helpers that need no configuration: the replies file next to a flow, a one-line
description of who answers, closing a runner. Choosing the runner from flags and settings is
composed above the agents and the settings, in `tftui.commands.runner_select.build_runner`."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from tftui.agents.base import AgentRunner

REPLIES_SUFFIX = ".replies.json"


def replies_next_to(flow_path: str | Path) -> Path:
    """`NAME.replies.json` beside the flow file. A symlinked flow is looked up where the link points,
    as its journal, `tftui.toml` and `agents/` are (docs/inputs.md §5)."""
    path = Path(flow_path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    stem = path.name
    for suffix in (".jsonc", ".json"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return path.with_name(stem + REPLIES_SUFFIX)


def describe_runner(runner: AgentRunner | None) -> str:
    """One line naming who answers, for progress output and the TUI status bar."""
    if runner is None:
        return "you (human runner)"
    provider = getattr(runner, "provider", None)
    if provider is not None:
        return f"provider {provider.name} ({provider.base_url}, model {provider.model or '?'})"
    argv = getattr(runner, "argv", None)
    if argv:
        return f"command {shlex.join(argv)}"
    source = getattr(runner, "source", None)
    return f"replies {source}" if source else type(runner).__name__


async def close_runner(runner: Any) -> None:
    """Release what a runner pools (HTTP connections); a no-op for runners without `aclose`."""
    aclose = getattr(runner, "aclose", None)
    if aclose is not None:
        await aclose()


