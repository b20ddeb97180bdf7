"""A phase `cwd` chosen by an argument (`"cwd": "{args.X}"`, X a `relative-path` arg): the cwd bridge.

The checker (`tftui.flow.closed.cwd_errors`) makes sure such a cwd is one whole `{args.X}` of a
relative-path arg. Resolving it is path checking, not a sandbox, so it is off unless the person
running the flow opts in (`--allow-cwd-bridge`, or `run.allow_cwd_bridge` in the user config), as in
taskflow 0.2.4, where the host must
set `TASKFLOW_CWD_BRIDGE_MODE=resolve-only` (else the phase fails with `TF_CWD_BRIDGE_DISABLED`).

Off: the phase fails before any call or spawn, with a message naming the opt-in. On: the arg's
value must be a portable relative path naming an existing folder inside the run's root (the flow
file's folder); the phase then runs with that folder as its literal `cwd`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tftui.flow.closed import cwd_arg_name, cwd_bridge_off, relative_path_error
from tftui.flow.jsonpos import Locator, strip_jsonc
from tftui.lang.values import JSONValue


def where(flow_path: str | None, index: int) -> str:
    """`file:line:col` of phase `index`'s `cwd` in the flow file ('' when it cannot be read)."""
    if not flow_path:
        return ""
    try:
        text = Path(flow_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    line, col = Locator(strip_jsonc(text.removeprefix("\ufeff"))).nearest(("phases", index, "cwd"))
    return f"{flow_path}:{line}:{col}: "


def resolve(
    phase_id: str,
    cwd: str | None,
    args: Mapping[str, JSONValue],
    *,
    enabled: bool,
    root: str,
) -> tuple[str | None, str | None]:
    """(folder to run in, None) or (None, why the phase fails). (None, None): no bridged cwd."""
    name = cwd_arg_name(cwd)
    if name is None:
        return None, None
    if not enabled:
        return None, cwd_bridge_off(phase_id, name)
    if name not in args:
        return None, f"Phase '{phase_id}': cwd argument '{name}' is required — pass --arg {name}=<folder>"
    value = args[name]
    problem = relative_path_error(value)
    if problem is not None:
        return None, f"Phase '{phase_id}': cwd argument '{name}' {problem}"
    assert isinstance(value, str)  # relative_path_error accepts strings only
    base = os.path.realpath(root)
    target = os.path.realpath(os.path.join(base, *value.split("/")))
    if os.path.commonpath([base, target]) != base:
        return None, f"Phase '{phase_id}': cwd argument '{name}' ('{value}') resolves outside {base}"
    if not Path(target).is_dir():
        return None, f"Phase '{phase_id}': cwd argument '{name}' ('{value}') is not a folder inside {base}"
    return target, None
