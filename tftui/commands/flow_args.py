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

`parse_arg_list` is the syntax (no flow needed); the check against a flow is the admission's
(`tftui.admit.arg_name_check`, so the debugger's hot reload makes it too); `check_arg_names`
calls it with a parsed list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tftui.admit import NameCheck, arg_name_check, known_arg_names
from tftui.flow.model import Flow

__all__ = ["NameCheck", "ParsedArgs", "check_arg_names", "known_arg_names", "parse_arg_list"]

SYNTAX = "NAME=VALUE (a string) or NAME:=JSON (a typed value)"
EXAMPLE = "e.g. --arg topic=rust or --arg limit:=3"
_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a placeholder path segment (docs/language.md §3.1)


@dataclass
class ParsedArgs:
    """The `--arg` list as values (later repeats win), plus the problems found in it."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    typed: set[str] = field(default_factory=set)  # names given as NAME:=JSON

    @property
    def ok(self) -> bool:
        return not self.errors


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


def check_arg_names(parsed: ParsedArgs, flow: Flow) -> NameCheck:
    """Compare the given names with the flow's (the one check: `tftui.admit.arg_name_check`)."""
    return arg_name_check(flow, parsed.values, parsed.typed)
