"""Where the user's tftui files live: `$XDG_CONFIG_HOME/tftui` (default `~/.config/tftui`).

The one XDG rule, used by the settings (`tftui.config`), agent definitions
(`tftui.agents.definitions`) and saved flows (`tftui.engine.subflow_def`); and the one way to
read a file a user names (`read_regular_file`: regular files only, bounded). It imports
nothing from tftui, so every layer may use it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/tftui` when that is an absolute path, else `$HOME/.config/tftui`."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path(env.get("HOME") or Path.home()) / ".config"
    return root / "tftui"


def read_regular_file(path: str | Path, limit: int) -> tuple[bytes | None, str]:
    """The bytes of a regular file of at most `limit` bytes, else (None, why not).

    A FIFO would block the reader and a device (`/dev/zero`) never ends: only a regular file
    is read, and no more of it than the limit (docs/inputs.md §2).
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None, "Is a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        if info.st_size > limit:
            return None, f"the file is larger than {limit // (1024 * 1024)} MiB (the limit)"
        # O_NONBLOCK: a file swapped for a FIFO between the stat and the open does not block
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None, "not a regular file (a FIFO, socket or device)"
            raw = fh.read(limit + 1)
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if len(raw) > limit:
        return None, f"the file is larger than {limit // (1024 * 1024)} MiB (the limit)"
    return raw, ""
