"""Surgical edits of flow source text that keep the author's formatting and comments.

`set_when`: set, change or clear a phase's `when` guard (the debugger's "edit guard").
`set_value` / `set_phase_values`: set, insert or remove any member at a JSON path inside
a full flow (the what-if form writes `score.threshold`, `score.weights[i]` and scorer
fields with it). Only the bytes of the edited members change; everything else —
indentation, key order, JSONC comments — is left as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tftui.flow.diagnostics import JsonPath
from tftui.flow.jsonpos import Locator
from tftui.flow.load import parse_json_text
from tftui.flow.shorthand import shorthand_kind
from tftui.lang.values import JSONObject, JSONValue, is_number, js_number_str

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


# ---- generic member edits (what-if "write to file") --------------------------------------

REMOVE: Final = object()  # pass as the value to delete a member


def _show_path(path: Sequence[str | int]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _literal(value: JSONValue) -> str:
    """A JSON literal in the style a person writes it: numbers as JS prints them (0.8, 1)."""
    if is_number(value):
        return js_number_str(value)
    return json.dumps(value, ensure_ascii=False)


def _lookup(data: JSONValue, path: Sequence[str | int]) -> tuple[bool, JSONValue]:
    node = data
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, list) or not 0 <= step < len(node):
                return False, None
        elif not isinstance(node, dict) or step not in node:
            return False, None
        node = node[step]
    return True, node


def set_value(text: str, path: Sequence[str | int], value: JSONValue) -> EditResult:
    """Set the value at JSON `path` (e.g. `("phases", 2, "score", "threshold")`) to `value`.

    An existing value is replaced in place; a missing object member is appended to its
    object; `value=REMOVE` deletes the member. Array entries can be replaced, not added.
    """
    path = tuple(path)
    if not path:
        return EditResult(None, "an empty path cannot be edited")
    data, positions, problem = parse_json_text(text)
    if problem is not None:
        return EditResult(None, f"the flow does not parse ({problem.message}); fix it first")
    locator = Locator(positions)
    value_at = locator.offset(path)
    if value_at is not None:
        _, value_end = _DECODER.raw_decode(positions, value_at)
        if value is not REMOVE:
            return EditResult(text[:value_at] + _literal(value) + text[value_end:])
        key_at = locator.offset(path, at_key=True)
        if isinstance(path[-1], int) or key_at is None or key_at == value_at:
            return EditResult(None, f"{_show_path(path)}: array entries cannot be removed here")
        return EditResult(_remove_member(text, positions, key_at, value_end))
    if value is REMOVE:
        return EditResult(text)  # nothing to remove
    parent_found, parent = _lookup(data, path[:-1])
    if not parent_found:
        return EditResult(None, f"{_show_path(path[:-1])} does not exist in the file")
    if isinstance(path[-1], int) or not isinstance(parent, dict):
        return EditResult(None, f"{_show_path(path)} does not exist in the file (only object members can be added)")
    parent_at = locator.offset(path[:-1])
    if parent_at is None:
        return EditResult(None, f"{_show_path(path[:-1])} could not be located in the source")
    member = f"{json.dumps(path[-1], ensure_ascii=False)}: {_literal(value)}"
    return EditResult(_append_member(text, positions, locator, path[:-1], parent_at, parent, member))


def _append_member(
    text: str, positions: str, locator: Locator, parent_path: JsonPath, parent_at: int, parent: JSONObject, member: str
) -> str:
    if not parent:
        blank = _WS.match(positions, parent_at + 1)
        assert blank is not None  # `[ \t\r\n]*` matches anywhere, if only the empty string
        inside = blank.end()
        return text[: parent_at + 1] + member + text[inside:]
    last = list(parent)[-1]
    key_at = locator.offset((*parent_path, last), at_key=True)
    value_at = locator.offset((*parent_path, last))
    assert key_at is not None and value_at is not None  # the parsed object has this member
    _, end = _DECODER.raw_decode(positions, value_at)
    line_start = positions.rfind("\n", 0, key_at) + 1
    indent = positions[line_start:key_at]
    if indent.strip() == "" and line_start > parent_at:  # members on their own lines
        return text[:end] + f",\n{indent}{member}" + text[end:]
    return text[:end] + f", {member}" + text[end:]


def phase_index(text: str, phase_id: str) -> tuple[int | None, str | None]:
    """Index of `phase_id` in the `phases` array of a full flow, or an error message."""
    data, _, problem = parse_json_text(text)
    if problem is not None:
        return None, f"the flow does not parse ({problem.message}); fix it first"
    if not isinstance(data, dict) or shorthand_kind(data) is not None or not isinstance(data.get("phases"), list):
        return None, "only full flows (with a 'phases' array) can be edited"
    for i, p in enumerate(data["phases"]):
        if isinstance(p, dict) and p.get("id") == phase_id:
            return i, None
    return None, f"no phase with id '{phase_id}'"


def set_phase_values(text: str, phase_id: str, edits: Sequence[tuple[Sequence[str | int], JSONValue]]) -> EditResult:
    """Apply `(path inside the phase, value)` edits to one phase, in order; all or nothing."""
    index, error = phase_index(text, phase_id)
    if index is None:
        return EditResult(None, error)
    current = text
    for sub, value in edits:
        result = set_value(current, ("phases", index, *sub), value)
        if result.text is None:
            return EditResult(None, f"phase '{phase_id}': {result.error}")
        current = result.text
    return EditResult(current)
