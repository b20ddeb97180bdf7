"""Streamed answers are masked like final ones: a key the provider echoes, split across pieces."""

from __future__ import annotations

from tftui.present.live import LiveText
from tftui.redaction import forget_secrets, register_secret

KEY = "sk-live-0123456789abcdef0123"


def test_a_secret_split_across_pieces_never_shows_in_the_live_text():
    register_secret(KEY)
    try:
        live = LiveText()
        for piece in ("your key is ", KEY[:9], KEY[9:], " — keep it safe"):
            live.add("gen", piece)
        for shown in (live.text("gen"), live.phase_text("gen"), live.tail("gen")):
            assert KEY not in shown and KEY[9:] not in shown, shown
            assert shown.startswith("your key is ")
    finally:
        forget_secrets()
