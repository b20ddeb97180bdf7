"""The flags that choose who answers the model calls: `--replies`, `--provider`, `--agent-cmd`;
and the cwd-bridge opt-in (`add_cwd_bridge_argument`), which `tftui check` takes too.

One definition for `tftui FLOW` (the debugger) and `tftui run`, so the debugger takes every
flag the README lists for `tftui run` (`tftui FLOW --agent-cmd "llm -m gpt-4o-mini"`). What they
choose, and in which order the settings come after them, is `runner_select.build_runner`'s.
This module imports nothing heavy: every command's parser is built on each start.
"""

from __future__ import annotations

import argparse
from typing import Any

from tftui.flow.cwd_opt_in import CWD_BRIDGE_FLAG, CWD_BRIDGE_SETTING

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


def add_cwd_bridge_argument(parser: argparse.ArgumentParser, *, checking: bool = False) -> None:
    """`--allow-cwd-bridge` (docs/differences.md §5.2): let `cwd: "{args.X}"` run; `checking`: for `tftui check`."""
    if checking:
        help_ = f'check as for `tftui run {CWD_BRIDGE_FLAG}` (no warning for cwd: "{{args.X}}")'
    else:
        help_ = (
            f'let a phase run in the folder a relative-path arg names (cwd: "{{args.X}}"; also: {CWD_BRIDGE_SETTING} '
            "in the user config); off, such a flow is refused"
        )
    parser.add_argument(CWD_BRIDGE_FLAG, action="store_true", help=help_)
