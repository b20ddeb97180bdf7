"""`--arg` for `tftui check`, `tftui FLOW` and `tftui run`: one syntax, one conversion, one check.

    --arg NAME=VALUE     VALUE is passed as a string, exactly as typed (`limit=3` is "3")
    --arg NAME:=JSON     JSON is decoded: a number, true/false, null, an array, an object or a
                         quoted string (`limit:=3` is 3, `tags:=["a","b"]` a list)

This is what `tftui run --help` and the README document. A flow's `args` declarations give
defaults (docs/language.md §1.3); their `type` is informational, so it never converts a value: a string
given for an arg declared as a number gets a warning that shows the `:=` spelling.

Names are checked against the flow: the names it declares under `args` plus every name its
text references as `{args.NAME}`. An unknown name that is close to a known one is an error
with a "did you mean" (a typo would otherwise leave `{args.NAME}` literal); any other unknown
name is passed through unchanged, as docs/language.md §1.3 says, with a warning.

`parse_arg_list` is the syntax (no flow needed); `check_arg_names` the check against a flow.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tftui.flow.model import Flow

SYNTAX = "NAME=VALUE (a string) or NAME:=JSON (a typed value)"
EXAMPLE = "e.g. --arg topic=rust or --arg limit:=3"
_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a placeholder path segment (docs/language.md §3.1)
_REF = re.compile(r"\{\s*args\.([A-Za-z0-9_-]+)")
_WHOLE = re.compile(r"\{\s*args\s*\}")  # `{args}`: the whole object, so every name is used
# Declared types whose values are not strings: a `NAME=VALUE` for them is probably meant typed.
_TYPED = {"number": (int, float), "integer": (int,), "boolean": (bool,)}


@dataclass
class ParsedArgs:
    """The `--arg` list as values (later repeats win), plus the problems found in it."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    typed: set[str] = field(default_factory=set)  # names given as NAME:=JSON

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class NameCheck:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def parse_arg_list(items: Sequence[str]) -> ParsedArgs:
    """Parse `--arg` items; never raises. Every malformed item is one error naming it and the fix."""
    out = ParsedArgs()
    for item in items:
        name, sep, value = item.partition("=")
        typed = name.endswith(":")
        if typed:
            name = name[:-1]
        if not sep or not name:
            out.errors.append(f"--arg expects {SYNTAX}, got {item!r} ({EXAMPLE})")
            continue
        if not _NAME.fullmatch(name):
            out.errors.append(_bad_name(item, name))
            continue
        if typed:
            try:
                out.values[name] = json.loads(value)
            except ValueError as exc:
                out.errors.append(
                    f"--arg {item}: {value!r} is not JSON ({exc}); for the string write --arg {name}={value}, "
                    f"or quote it as JSON: --arg '{name}:=\"{value}\"'"
                )
                continue
            out.typed.add(name)
        else:
            out.values[name] = value
            out.typed.discard(name)
    return out


def _bad_name(item: str, name: str) -> str:
    hint = "letters, digits, '_' and '-', as in {args.NAME}"
    if name.endswith(":") and _NAME.fullmatch(name.rstrip(":")):
        return f"--arg {item}: '{name}' is not an arg name ({hint}); for a typed value write --arg {name.rstrip(':')}:={item.partition('=')[2]}"
    if name.strip() != name and _NAME.fullmatch(name.strip()):
        return f"--arg {item!r}: no spaces around '=' (write --arg {name.strip()}={item.partition('=')[2].strip()})"
    return f"--arg {item!r}: '{name}' is not an arg name ({hint})"


def known_arg_names(flow: Flow) -> tuple[set[str], bool]:
    """(names the flow declares or references as `{args.NAME}`, whether it uses the whole `{args}`)."""
    names = set(flow.args or {})
    whole = False
    for text in _strings(flow.model_dump(by_alias=True, exclude_none=True)):
        if "args" not in text:
            continue
        names.update(_REF.findall(text))
        whole = whole or bool(_WHOLE.search(text))
    return names, whole


def check_arg_names(parsed: ParsedArgs, flow: Flow) -> NameCheck:
    """Compare the given names with the flow's (see the module doc); never raises."""
    check = NameCheck()
    known, whole = known_arg_names(flow)
    declared = flow.args or {}
    for name, value in parsed.values.items():
        if name not in known and not whole:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
            listed = ", ".join(sorted(known)) or "none"
            if close:
                check.errors.append(
                    f"--arg {name}: the flow has no arg '{name}' — did you mean '{close[0]}'? (its args: {listed}); "
                    f"fix the name, or declare '{name}' under \"args\" in the flow to pass it anyway"
                )
            else:
                check.warnings.append(
                    f"--arg {name}: the flow neither declares nor uses '{name}' (its args: {listed}); "
                    "passed through unchanged"
                )
            continue
        spec = declared.get(name)
        if spec is not None and name not in parsed.typed and isinstance(value, str):
            note = _untyped_note(name, value, spec.type or "")
            if note:
                check.warnings.append(note)
    return check


def _untyped_note(name: str, value: str, declared: str) -> str | None:
    """A `NAME=VALUE` string for an arg declared as a number or boolean: how to pass it typed."""
    wanted = _TYPED.get(declared)
    if wanted is None:
        return None
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = None
    fits = isinstance(decoded, wanted) and (declared == "boolean" or not isinstance(decoded, bool))
    fix = f"write --arg {name}:={value} for the {declared}" if fits else f"pass a {declared} as --arg {name}:=JSON"
    return (f"--arg {name}={value} passes the string {json.dumps(value)}, but the flow declares '{name}' "
            f"as a {declared}; {fix}")


def _strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _strings(value)
