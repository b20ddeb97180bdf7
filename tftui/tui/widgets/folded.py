"""A Static that shows its text through the app's glyph set: control characters escaped
(present/terminal.py), folded to ASCII under --ascii.

Used for every line of our own text outside the tree, detail and log (header, diagnostics,
reload note, modal titles, hints and feedback), whoever builds the text: strings and rich
Texts are folded when set; other renderables (tables) pass through unchanged.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tftui import present


class Folded(Static):
    def _fold(self, content: Any) -> Any:
        glyphs = present.glyphs_for(self.app)
        if isinstance(content, str):
            return glyphs.show(content)
        if isinstance(content, Text):
            return glyphs.show_text(content)
        return content

    def on_mount(self) -> None:
        folded = self._fold(self.content)  # the text given to the constructor (composed before any app was known)
        if folded is not self.content:
            super().update(folded)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(self._fold(content), layout=layout)
