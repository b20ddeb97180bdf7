"""Unicode or ASCII glyphs, decided one way for every command that prints statuses.

`tftui FLOW`, `tftui run`, `tftui runs` and `tftui replay` (screen and `--print`) all take
`--ascii`; the user setting `ui.ascii` asks for the same without the flag. Output to a stream
that cannot encode Unicode gets ASCII anyway (`present.glyphs_for_stream`). The glyphs
themselves come from the one status table (`tftui.present.status`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tftui.present import Glyphs

# present and config load only when glyphs are chosen: `add_ascii_argument` runs for every
# command's --help, which stays fast.

ASCII_HELP = "plain ASCII glyphs instead of Unicode symbols (the setting ui.ascii does the same)"


def add_ascii_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true", help=ASCII_HELP)


def ascii_wanted(
    flag: bool, flow_path: str | os.PathLike[str] | None = None, *, ui: Mapping[str, Any] | None = None
) -> bool:
    """`--ascii`, or `ui.ascii` in the settings that apply to `flow_path` (or in `ui`, the `[ui]`
    table of settings the caller has already loaded)."""
    if flag:
        return True
    if ui is None:
        from tftui.config import load_config

        ui = load_config(flow_path).get("ui") or {}
    return bool(ui.get("ascii", False))


def output_glyphs(
    stream: object,
    flag: bool,
    flow_path: str | os.PathLike[str] | None = None,
    *,
    ui: Mapping[str, Any] | None = None,
) -> Glyphs:
    """The glyph set for status text written to `stream` (`ui`: settings already loaded)."""
    from tftui import present

    return present.ASCII if ascii_wanted(flag, flow_path, ui=ui) else present.glyphs_for_stream(stream)
