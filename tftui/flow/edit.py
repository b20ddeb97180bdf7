"""Surgical edits of flow source text that keep the author's formatting and comments.

Today: set, change or clear a phase's `when` guard (the debugger's "edit guard", saved
back to the file). Only the bytes of that one member change; everything else —
indentation, key order, JSONC comments — is left as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tftui.flow.jsonpos import Locator
from tftui.flow.load import parse_json_text
from tftui.flow.shorthand import shorthand_kind

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\r\n]*")


@dataclass(frozen=True)
class EditResult:
    text: str | None  # the edited source, None when the edit is impossible
    error: str | None = None


def set_when(text: str, phase_id: str, expr: str | None) -> EditResult:
    """Set the `when` of `phase_id` to `expr` (a string), or remove it when `expr` is None."""
    data, positions, problem = parse_json_text(text)
    if problem is not None:
        return EditResult(None, f"the flow does not parse ({problem.message}); fix it first")
    if (
        not isinstance(data, dict)
        or shorthand_kind(data) is not None
        or not isinstance(data.get("phases"), list)
    ):
        return EditResult(None, "only full flows (with a 'phases' array) can be edited")
    index = next(
        (i for i, p in enumerate(data["phases"]) if isinstance(p, dict) and p.get("id") == phase_id),
        None,
    )
    if index is None:
        return EditResult(None, f"no phase with id '{phase_id}'")
    locator = Locator(positions)
    key_at = locator.offset(("phases", index, "when"), at_key=True)
    value_at = locator.offset(("phases", index, "when"))
    literal = None if expr is None else json.dumps(expr, ensure_ascii=False)
    if key_at is not None and value_at is not None:
        _, value_end = _DECODER.raw_decode(positions, value_at)
        if literal is not None:
            return EditResult(text[:value_at] + literal + text[value_end:])
        return EditResult(_remove_member(text, positions, key_at, value_end))
    if literal is None:
        return EditResult(text)  # nothing to clear
    return _insert_member(text, positions, locator, index, literal)


def _remove_member(text: str, positions: str, start: int, end: int) -> str:
    after = _WS.match(positions, end).end()  # type: ignore[union-attr]
    if positions[after : after + 1] == ",":
        # drop `"when": "...",` and the whitespace up to the next member
        nxt = _WS.match(positions, after + 1).end()  # type: ignore[union-attr]
        return text[:start] + text[nxt:]
    # last member: drop the preceding comma (and the whitespace before the key)
    before = start
    while before > 0 and positions[before - 1] in " \t\r\n":
        before -= 1
    if positions[before - 1 : before] == ",":
        return text[: before - 1] + text[end:]
    return text[:start] + text[end:]


def _insert_member(text: str, positions: str, locator: Locator, index: int, literal: str) -> EditResult:
    id_key = locator.offset(("phases", index, "id"), at_key=True)
    id_value = locator.offset(("phases", index, "id"))
    if id_key is None or id_value is None:
        return EditResult(None, "the phase has no 'id' member to anchor the edit")
    _, id_end = _DECODER.raw_decode(positions, id_value)
    line_start = positions.rfind("\n", 0, id_key) + 1
    indent = positions[line_start:id_key]
    if indent.strip() == "":  # `"id"` starts its own line: put `when` on the next one, same indent
        member = f',\n{indent}"when": {literal}'
    else:
        member = f', "when": {literal}'
    return EditResult(text[:id_end] + member + text[id_end:])
