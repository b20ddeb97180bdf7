"""The fence scanner of the lenient JSON parse (docs/language.md §3.4) finds exactly the blocks
the reference regex finds, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.lang.jsonish import fenced_blocks, lenient_parse

# The definition the scanner implements (docs/language.md §3.4): the oracle, not used by tftui.
REFERENCE = re.compile(r"```([^`\n]*?)\r?\n([\s\S]*?)```")


def _reference(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in REFERENCE.finditer(text)]


@settings(max_examples=400)
@given(st.text(alphabet="`\n\r jsn{}1\"", max_size=40))
def test_scanner_equals_the_reference_regex(text: str) -> None:
    assert fenced_blocks(text) == _reference(text)


def test_edge_cases() -> None:
    for text in ["```json\n{}```", "````json\n{}```", "```js`on\n{}```", "```json\r\n{\"a\": 1}\n```",
                 "```\n```", "```json", "```json\n", "a ``` b\n``` c", "```x\r\r\n1```", "`` ```\n2``` ```y\n3```"]:
        assert fenced_blocks(text) == _reference(text), text


def test_a_fenced_answer_parses() -> None:
    assert lenient_parse('Sure!\n\n```json\n{"ok": true}\n```\nBye') == {"ok": True}
    assert lenient_parse('```text\nno\n```\n```json\n[1, 2]\n```') == [1, 2]  # json-tagged first


@settings(max_examples=150)
@given(st.integers(0, 30), st.lists(st.sampled_from(["`", "``", "```", "\n", "x", "json\n", "{}"]), max_size=30))
def test_scanner_equals_the_reference_regex_among_many_backticks(spans: int, pieces: list[str]) -> None:
    # inline `code` before the fences: past a few single backticks the scan goes on with a three-character find
    text = "see `a` " * spans + "".join(pieces) + "```json\n{}\n```"
    assert fenced_blocks(text) == _reference(text)
