"""Where the user's tftui files live: `$XDG_CONFIG_HOME/tftui` (default `~/.config/tftui`).

The one XDG rule, used by the settings (`tftui.config`), agent definitions
(`tftui.agents.definitions`) and saved flows (`tftui.engine.subflow_def`). It imports
nothing from tftui, so every layer may use it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/tftui` when that is an absolute path, else `$HOME/.config/tftui`."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path(env.get("HOME") or Path.home()) / ".config"
    return root / "tftui"
