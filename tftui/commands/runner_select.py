"""Which AgentRunner answers a headless run's model calls.

The seam for real providers: today the answer is a scripted replies file (given with
`--replies`, or found next to the flow as `NAME.replies.json` for `NAME.json`). The
agents engineer extends `select_runner` with `--provider` / `--agent-cmd` / config.toml
providers; callers only rely on `select_runner(args, flow_path) -> AgentRunner` and on
`RunnerSelectionError` (a usage problem: exit 2 with its message).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tftui.agents.base import AgentRunner

REPLIES_SUFFIX = ".replies.json"


class RunnerSelectionError(Exception):
    """No usable runner; the message says how to supply one (the command exits 2)."""


def conventional_replies_path(flow_path: str | Path) -> Path:
    """`dir/NAME.replies.json` for `dir/NAME.json` (or `.jsonc`, or any other suffix)."""
    path = Path(flow_path)
    stem = path.name
    for suffix in (".jsonc", ".json"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return path.with_name(stem + REPLIES_SUFFIX)


def replies_path_for(args: argparse.Namespace, flow_path: str | Path | None) -> Path | None:
    """The replies file this run would use: `--replies` wins, else the conventional file if it exists."""
    explicit = getattr(args, "replies", None)
    if explicit:
        return Path(explicit)
    if flow_path is None:
        return None
    candidate = conventional_replies_path(flow_path)
    return candidate if candidate.is_file() else None


def no_runner_message(flow_path: str | Path | None) -> str:
    where = conventional_replies_path(flow_path) if flow_path is not None else Path("NAME.replies.json")
    return (
        "no agent is configured to answer this flow's model calls.\n"
        "Supply answers one of these ways:\n"
        f"  - put scripted replies next to the flow as {where} (a JSON object: node path -> replies),\n"
        "  - pass --replies FILE,\n"
        "  - or configure a model provider in config.toml (see `tftui config --help`)."
    )


def select_runner(args: argparse.Namespace, flow_path: str | Path | None) -> AgentRunner:
    """The runner for `tftui run`; raises RunnerSelectionError with a how-to message when there is none."""
    from tftui.agents.scripted import RepliesError, ScriptedRunner

    path = replies_path_for(args, flow_path)
    if path is None:
        raise RunnerSelectionError(no_runner_message(flow_path))
    if not path.is_file():
        raise RunnerSelectionError(
            f"replies file not found: {path}\n(--replies names a JSON file mapping node paths to replies)"
        )
    try:
        return ScriptedRunner.from_file(path)
    except RepliesError as exc:
        raise RunnerSelectionError(str(exc)) from exc
