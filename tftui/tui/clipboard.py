"""Copying text (`y` in the full-text viewer) so that the toast says what really happened.

A terminal's clipboard is set with OSC 52, which has no answer: tmux drops it unless
`set-clipboard on`, many terminals ignore it, and nothing tells the application. So:
1. a clipboard program that answers (wl-copy, xclip, xsel, pbcopy), when there is a display
   to talk to: its exit status confirms the copy;
2. otherwise the text is written to a file (its path is shown) and OSC 52 is sent as well,
   for the terminals that do take it — the toast says it is not confirmed.

What is copied is the text itself, not the screen's rendering of it (`--ascii` folding, escaped
control characters), with every known secret masked (`raw_selection`, `copyable`). `copy_text`
waits for a program: the viewer runs it in a worker thread, never on the UI thread.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tftui.present.terminal import encodable
from tftui.redaction import redact_known

COPY_FILE = "copied.txt"  # in the `.tftui` folder beside the flow (as the run journals)
TOOL_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Copied:
    tool: str | None  # the clipboard program that confirmed the copy
    path: Path | None  # the file written when none did
    error: str | None = None  # why the file could not be written either

    def message(self, what: str) -> str:
        """The toast: which of the two it did."""
        if self.tool is not None:
            return f"Copied the {what} to the clipboard ({self.tool})"
        if self.path is not None:
            return (f"Saved the {what} to {self.path} — the terminal clipboard cannot be confirmed "
                    "(OSC 52 sent; tmux passes it on only with set-clipboard on)")
        return f"Not copied: no clipboard program answered and {self.error}"


def copyable(text: str) -> str:
    """The text a copy takes: as it is, but with every known secret masked (tftui/redaction.py:
    by value, as the debugger's screens are; a copy never carries what the screen masks)."""
    return redact_known(text)


def raw_selection(shown: str, raw: str, start: tuple[int, int], end: tuple[int, int], selected: str) -> str:
    """The part of `raw` that `selected`, a selection of `shown` (the text as the viewer draws it:
    folded to ASCII, control characters escaped) from (row, column) `start` to `end`, covers.
    Lines that read the same on screen are cut at the selected columns; when the selection's first
    or last line was rewritten for the screen, those raw lines are taken whole (the columns are
    the screen's). Texts whose lines do not correspond: `selected` as it is."""
    (r0, c0), (r1, c1) = sorted((start, end))
    shown_lines, raw_lines = shown.split("\n"), raw.split("\n")
    if len(shown_lines) != len(raw_lines) or r1 >= len(raw_lines):
        return selected
    if shown_lines[r0] != raw_lines[r0] or shown_lines[r1] != raw_lines[r1]:
        return "\n".join(raw_lines[r0 : r1 + 1])
    if r0 == r1:
        return raw_lines[r0][c0:c1]
    return "\n".join([raw_lines[r0][c0:], *raw_lines[r0 + 1 : r1], raw_lines[r1][:c1]])


def clipboard_programs(env: Mapping[str, str], platform: str = sys.platform) -> list[list[str]]:
    """The clipboard programs that can work here, in order: the display's own first."""
    found: list[list[str]] = []
    if platform == "darwin":
        found.append(["pbcopy"])
    if env.get("WAYLAND_DISPLAY"):
        found.append(["wl-copy"])
    if env.get("DISPLAY"):
        found += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    return [argv for argv in found if shutil.which(argv[0], path=env.get("PATH"))]


def copy_text(
    text: str,
    folder: Path,
    *,
    osc52: Callable[[str], None],
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
) -> Copied:
    """Copy `text`: through a clipboard program that confirms it, else into `folder/COPY_FILE`
    (and OSC 52 through `osc52`). Never raises."""
    env = os.environ if env is None else env
    text = encodable(text)  # a lone surrogate (a split emoji) cannot be UTF-8: written as \udXXX
    data = text.encode("utf-8")
    for argv in clipboard_programs(env, platform):
        try:  # the text on stdin; nothing read back (a program that keeps its pipes open cannot hold us)
            done = subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=TOOL_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return Copied(tool=argv[0], path=None)
    osc52(text)
    path = folder / COPY_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        return Copied(tool=None, path=None, error=f"{path} could not be written ({exc.strerror or exc})")
    return Copied(tool=None, path=path)
