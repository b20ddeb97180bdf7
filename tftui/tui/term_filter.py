"""The debugger's last guard against terminal injection: a line filter on every line drawn.

What tftui shows of user and model text was escaped before layout (`Glyphs.show`, so `\\x1b`
reads as such: present/terminal.py); a control character that reaches a drawn line some other
way (a Textual widget's own text, a TextArea) is dropped here, width for width, so no escape
sequence is ever sent to the terminal (docs/inputs.md §1).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.filter import LineFilter

from tftui.present.terminal import drop_unsafe


class ControlFilter(LineFilter):
    def apply(self, segments: list[Segment], background: Any) -> list[Segment]:
        if all(segment.text.isprintable() for segment in segments):
            return segments
        return [
            segment if segment.control or segment.text.isprintable() else Segment(drop_unsafe(segment.text), segment.style)
            for segment in segments
        ]
