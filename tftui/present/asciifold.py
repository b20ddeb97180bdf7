"""Folding text to plain ASCII for `--ascii` / `ui.ascii = true`.

Two flavours, both pure and total (any input gives ASCII, nothing raises):
- `to_ascii(s)`: readable, the length may change (`→` becomes `->`, `…` becomes `...`).
  Used for the text our widgets display (tree, detail tabs, log, header, modals, toasts).
- `cell_ascii(s)`: exactly as many characters as the text has terminal cells, so a
  rendered line keeps its layout (`→` becomes `>`, a wide CJK character `??`). Used by
  the line filter that is the last line of defence on every line drawn (ascii_mode).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

from rich.cells import cell_len

from tftui.present.looks import RUN_STATUSES, STATUSES

if TYPE_CHECKING:  # a Text is only ever handed in: headless commands load this module without rich.text
    from rich.text import Text

# Rich >= 14.3 measures graphemes (an emoji and its modifiers) as the terminal draws them, and
# says so through split_graphemes. The declared floor, Rich 14.2 (what Textual 8.2.5 needs),
# has no split_graphemes and measures each character on its own: the fold must then measure
# the same way, or the line filter would move the layout. So this is not a dead branch while
# the floor is 14.2 (the floor's test run takes it).
try:
    from rich.cells import split_graphemes as _split_graphemes
except ImportError:  # Rich 14.2
    _split_graphemes = None  # type: ignore[assignment]

# One cell in, one ASCII character out. Box drawing first: the Unicode block U+2500..U+257F
# is filled in below (anything not listed here is a corner or junction: "+").
_SINGLE: dict[str, str] = {}
for _chars, _out in (
    ("─━═╌╍┄┅┈┉╴╶╸╺╼╾‒–—―−‐‑⁃▔", "-"),
    ("▁", "_"),
    ("│┃║╎╏┆┇┊┋╵╷╹╻╽╿▏▕¦", "|"),
    ("╱", "/"),
    ("╲", "\\"),
    ("╳", "X"),
    ("█▓▒░", "#"),
    ("→⟶➜➔⇒▶►▸▷❯›↪↳⇥", ">"),
    ("←⟵⇐◀◄◂◁‹↩↲", "<"),
    ("↑▲▴△⇡", "^"),
    ("↓▼▾▽⇣", "v"),
    ("↔⇔", "-"),
    ("·•‧∙⋅●◉◎◆◇★☆∗", "*"),
    ("○◦◯", "o"),
    ("◐◓◑◒", "*"),
    ("✓✔☑", "*"),
    ("✗✘✕✖×☒", "x"),
    ("⊘∅", "-"),
    ("■□▪▫", "#"),
    ("…⋯", "."),
    ("‘’‚‛′´", "'"),
    ("“”„‟″«»", '"'),
    ("≤", "<"),
    ("≥", ">"),
    ("≠", "#"),
    ("≈∼", "~"),
    ("±", "+"),
    ("÷", "/"),
    ("§", "S"),
    ("°", "o"),
    ("µ", "u"),
    ("¡", "!"),
    ("¿", "?"),
    ("©", "c"),
    ("®", "R"),
    ("™", "T"),
    ("⏎", "<"),
    ("⌫", "<"),
):
    for _char in _chars:
        _SINGLE[_char] = _out
# A status glyph folds to its row's ASCII glyph (present/looks.py), as the tree draws it under
# --ascii: `■` (blocked) is `!` and `◐` (running) `o`, where the groups above give `#` and `*`.
for _look in (*STATUSES.values(), *RUN_STATUSES.values()):
    _SINGLE[_look.unicode] = _look.ascii
for _code in range(0x2500, 0x2580):
    _SINGLE.setdefault(chr(_code), "+")
for _code in range(0x2580, 0x25A0):  # partial blocks (scrollbar ends, "tall"/"outer" borders)
    _SINGLE.setdefault(chr(_code), " ")

# Where a longer spelling reads better than the one-cell one.
_READABLE: dict[str, str] = {
    "→": "->", "⟶": "->", "➜": "->", "⇒": "=>", "↪": "->", "↳": "->",
    "←": "<-", "⟵": "<-", "⇐": "<=", "↩": "<-", "↔": "<->", "⇔": "<=>",
    "…": "...", "⋯": "...", "≤": "<=", "≥": ">=", "≠": "!=", "±": "+/-",
    "©": "(c)", "®": "(R)", "™": "(TM)", "«": "<<", "»": ">>",
    "⏎": "enter", "⌫": "backspace", "⇥": "tab",
    "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th",
}

# Textual's key names drawn as symbols (footer, palette): spelled out instead.
KEY_NAMES = {"↑": "up", "↓": "down", "←": "left", "→": "right", "⏎": "enter", "⌫": "backspace", "⇥": "tab"}


def _decomposed(char: str) -> str:
    """`é` -> `e`, `ﬁ` -> `fi`, fullwidth `Ａ` -> `A`; '' when there is no ASCII form."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return folded if folded.isascii() else ""


@lru_cache(maxsize=4096)
def _readable_char(char: str) -> str:
    if char in _READABLE:
        return _READABLE[char]
    if char in _SINGLE:
        return _SINGLE[char]
    if unicodedata.category(char) in ("Zs", "Zl", "Zp"):
        return " "
    if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
        return ""  # zero-width marks and format characters
    return _decomposed(char) or "?" * max(1, cell_len(char))


@lru_cache(maxsize=4096)
def _cell_char(char: str) -> str:
    cells = cell_len(char)
    if cells == 0:
        return ""
    if char in _SINGLE and cells == 1:
        return _SINGLE[char]
    if unicodedata.category(char) in ("Zs", "Zl", "Zp"):
        return " " * cells
    folded = _decomposed(char)
    if folded:
        return folded[:cells].ljust(cells)
    return "?" * cells


def _clusters(text: str) -> list[tuple[int, int, int]]:
    """(start, end, cells) of each grapheme: an emoji with a skin tone or a ZWJ family is one
    cluster of two cells, `e` and a combining accent one of one cell."""
    if _split_graphemes is not None:
        return _split_graphemes(text)[0]
    return [(i, i + 1, cell_len(c)) for i, c in enumerate(text)]  # Rich 14.2 measures per character


def _layout(rest: str) -> str:
    """The ASCII control characters (newline, tab, carriage return) in the rest of a cluster.

    Rich's grapheme split hands every zero-width character to the cluster before it, control
    characters included: `—\n` is one cluster. They are layout, not part of the glyph, and
    are kept (dropping them joined a line ending in a folded glyph to the next one)."""
    return "".join(c for c in rest if c < " " or c == "\x7f")


def _readable_cluster(cluster: str) -> str:
    if cluster.isascii():
        return cluster
    base = cluster[0]  # the rest of a cluster (accents, joiners, variation selectors) goes
    return (base if base.isascii() else _readable_char(base)) + _layout(cluster[1:])


def _cell_cluster(cluster: str, cells: int) -> str:
    if cluster.isascii():
        return cluster
    base = cluster[0]
    if cells == 0:
        return (base if base.isascii() else "") + _layout(cluster[1:])
    folded = base if base.isascii() else _cell_char(base)
    return folded[:cells].ljust(cells, "?") + _layout(cluster[1:])


def to_ascii(text: str) -> str:
    """Readable ASCII for display (the length may change)."""
    if text.isascii():
        return text
    text = text.replace(" · ", " | ")  # a separator between items; elsewhere `·` is a product (`0.2·1`)
    return "".join(_readable_cluster(text[start:end]) for start, end, _cells in _clusters(text))


def cell_ascii(text: str) -> str:
    """ASCII with the same terminal width as `text`, character for cell."""
    if text.isascii():
        return text
    text = text.replace(" · ", " | ")
    return "".join(_cell_cluster(text[start:end], cells) for start, end, cells in _clusters(text))


def fold_text(text: Text) -> Text:
    """`to_ascii` over a rich Text, its styled spans moved with the characters they cover."""
    plain = text.plain
    if plain.isascii():
        return text
    plain = plain.replace(" · ", " | ")  # same length: the offsets below still hold
    pieces: list[str] = []
    offsets = [0] * (len(plain) + 1)  # old character index -> new index
    length = 0
    for start, end, _cells in _clusters(plain):
        offsets[start] = length
        piece = _readable_cluster(plain[start:end])
        pieces.append(piece)
        length += len(piece)
        for k in range(start + 1, end + 1):
            offsets[k] = length
    return rewritten(text, "".join(pieces), offsets)


def rewritten(text: Text, plain: str, offsets: list[int]) -> Text:
    """`text` with its characters replaced by `plain`; `offsets` maps each old character index
    (and the end) to its new one, so every styled span covers the same characters."""
    new = text.blank_copy(plain)  # style, justify, overflow, no_wrap, end, tab_size; no spans
    last = len(offsets) - 1
    new.spans = [s._replace(start=offsets[min(s.start, last)], end=offsets[min(s.end, last)]) for s in text.spans]
    return new
