"""The flags that choose who answers the model calls: `--replies`, `--provider`, `--agent-cmd`.

One definition for `tftui FLOW` (the debugger) and `tftui run`, so the debugger takes every
flag the README lists for `tftui run` (`tftui FLOW --agent-cmd "llm -m gpt-4o-mini"`). What they
choose, and in which order the settings come after them, is `runner_select.build_runner`'s.
This module imports nothing heavy: every command's parser is built on each start.
"""

from __future__ import annotations

import argparse
from typing import Any

# (flag, Namespace attribute = build_runner keyword, metavar, help)
RUNNER_FLAGS: tuple[tuple[str, str, str, str], ...] = (
    ("--replies", "replies", "FILE", "scripted replies: node path -> replies"),
    ("--provider", "provider", "NAME", "an OpenAI-compatible provider from config.toml ([providers.NAME])"),
    ("--agent-cmd", "agent_cmd", "CMD",
     'a CLI agent: prompt on stdin, answer on stdout ("llm -m gpt-4o-mini", or a [commands.NAME] name)'),
)


def add_runner_arguments(parser: argparse.ArgumentParser) -> None:
    """The runner flags, as one argument group of `parser`."""
    who = parser.add_argument_group(
        "who answers the model calls (at most one; default: config, then NAME.replies.json)"
    )
    for flag, dest, metavar, help_ in RUNNER_FLAGS:
        who.add_argument(flag, dest=dest, metavar=metavar, help=help_)


def runner_choice(args: argparse.Namespace) -> dict[str, Any]:
    """The runner flags given on a command line, as `build_runner` keyword arguments (unset: None)."""
    return {dest: getattr(args, dest, None) for _flag, dest, _metavar, _help in RUNNER_FLAGS}
