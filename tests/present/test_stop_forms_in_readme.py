"""The README's "what will stop the run" paragraph quotes the header's three forms (issue 15,
item 11): the fullest, the shortened one and the keys; they must be the forms the header uses."""

from __future__ import annotations

from pathlib import Path

from tftui.present.header import stop_variants

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_quotes_the_headers_stop_forms() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())  # the paragraph wraps
    full, medium, keys = stop_variants(["review"], True, ["{phase.attempt} >= 2"], True)
    assert full == "stop: break at review, on failure, when {phase.attempt} >= 2, backoffs skipped"
    for form in (full, medium, keys):
        assert f"`{form}`" in text, form
    assert "`no breakpoints`" in text and "no breakpoints" in stop_variants([], False, [], False)
