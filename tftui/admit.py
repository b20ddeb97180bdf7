"""Admitting a flow file: the one load + check that `tftui check`, `tftui run`, `tftui FLOW` and the
debugger's hot reload all make, so the same file gets the same diagnostics and the same refusal
everywhere (docs/inputs.md §2).

What a flow is checked against is decided once per command, as `AdmitRules`:

- runtime mode with the run's `--arg` values (docs/language.md §1.6) when any are given, and
  those names checked against the flow's (`Admission.arg_names`): a typo of a known name is an
  error, a name the flow neither declares nor uses a warning (docs/language.md §1.3); the
  debugger's hot reload checks every saved version so, as `tftui check` and `tftui run` do;
- the linter (docs/linter.md), with every agent name findable beside the flow;
- the cwd-bridge opt-in (docs/differences.md §5.2): without `--allow-cwd-bridge` or the user
  setting `run.allow_cwd_bridge`, a `cwd: "{args.X}"` is refused before anything runs (an error),
  except in `tftui check`, where the flow is valid and the same text is a warning;
- the `[limits]` settings take effect first (the nested-quantifier warning names the regex budget,
  docs/trust.md §3).

`admit` reads the file (docs/inputs.md §2: a regular file of at most 16 MiB), `admit_text` takes
text already read (hot reload). Neither raises on user input. No screen text beyond the one
sentence every front end quotes (`Admission.refusal`), which each prefixes in its own voice.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from tftui.agents.definitions import known_agent_names
from tftui.config import Config, apply_limits, cwd_bridge_allowed
from tftui.flow.diagnostics import Diagnostic, Severity
from tftui.flow.load import FLOW_NOT_FOUND, LoadResult, lint_loaded, load_flow, load_flow_text
from tftui.flow.model import Flow
from tftui.lang.values import JSONValue

__all__ = [
    "Admission",
    "AdmitRules",
    "NameCheck",
    "admission_rules",
    "admit",
    "admit_text",
    "arg_name_check",
    "flow_not_found",
    "known_arg_names",
    "with_arg_names",
]


@dataclass(frozen=True)
class AdmitRules:
    """What a flow file is checked against (see the module doc)."""

    args: Mapping[str, JSONValue] | None = None  # runtime mode when set (the `--arg` values)
    typed: frozenset[str] = frozenset()  # the `--arg` names given as NAME:=JSON (typed values)
    cwd_bridge: bool = False  # the person running the flow opted in to `cwd: "{args.X}"`
    checking: bool = False  # `tftui check`: an un-opted bridged cwd is a warning, not a refusal


@dataclass(frozen=True)
class Admission:
    """A flow file as checked: the flow (None when it may not run), its diagnostics, and why not."""

    path: str
    loaded: LoadResult
    rules: AdmitRules

    @property
    def flow(self) -> Flow | None:
        return self.loaded.flow

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.loaded.diagnostics

    @property
    def errors(self) -> list[Diagnostic]:
        return self.loaded.errors

    @property
    def warnings(self) -> list[Diagnostic]:
        return self.loaded.warnings

    @property
    def unreadable(self) -> bool:
        return self.loaded.unreadable

    @property
    def source_text(self) -> str:
        return self.loaded.source_text

    @property
    def file_text(self) -> str:
        """The file as it was read and checked, decoded as a copy of it is written (a BOM kept):
        a run's flow.json, which `--resume` compares with the file byte for byte, is this text,
        not a second read that may find a newer version. Text given as text: `source_text`."""
        raw = self.loaded.raw
        return raw.decode("utf-8", errors="replace") if raw is not None else self.loaded.source_text

    def linted(self) -> Admission:
        """This admission with the linter's warnings (docs/linter.md) after its diagnostics, as
        `admit(..., lint=True)` gives them; itself when they are there already."""
        if self.loaded.linted:
            return self
        return Admission(self.path, lint_loaded(self.loaded, known_agent_names(self.path)), self.rules)

    @functools.cached_property
    def arg_names(self) -> NameCheck:
        """The `--arg` names checked against this flow (the model when checks found errors);
        empty when none were given."""
        model = self.loaded.flow or self.loaded.model
        if not self.rules.args or model is None:
            return NameCheck()
        return arg_name_check(model, self.rules.args, self.rules.typed)

    @property
    def refusal(self) -> str | None:
        """`PATH is not a valid flow (N errors)`, `flow file not found: PATH`, or None when the flow
        was admitted."""
        if self.loaded.flow is not None:
            return None
        if self.loaded.missing:
            return flow_not_found(self.path)
        count = len(self.loaded.errors) or 1
        return f"{self.path} is not a valid flow ({count} error{'' if count == 1 else 's'})"


def flow_not_found(path: str | Path) -> str:
    """The one wording for a flow path with no file: `tftui run` says it before admitting."""
    return f"{FLOW_NOT_FOUND}: {path}"


def admission_rules(
    config: Config,
    *,
    args: Mapping[str, JSONValue] | None,
    typed: Iterable[str] = (),
    allow_cwd_bridge: bool = False,
    checking: bool = False,
) -> AdmitRules:
    """The rules for one command from its settings (`config`, read for the flow's folder), its
    `--arg` values (None: not runtime mode; `tftui run` always checks in runtime mode), the names
    among them given as NAME:=JSON (`typed`) and its `--allow-cwd-bridge` flag. Makes the
    `[limits]` settings take effect for this process (docs/trust.md §3)."""
    apply_limits(config)
    return AdmitRules(
        args=dict(args) if args is not None else None,
        typed=frozenset(typed),
        cwd_bridge=cwd_bridge_allowed(config, allow_cwd_bridge),
        checking=checking,
    )


def admit(path: str | Path, rules: AdmitRules, *, lint: bool = True, remember: bool = False) -> Admission:
    """Read and check the flow file at `path` under `rules`. `lint=False`: the linter's warnings
    come later, from `Admission.linted()` (they never refuse a file: the debugger opens first).
    `remember`: keep the per-phase work for checking the file's next version (`admit_text`'s
    `previous`; the debugger's hot reload)."""
    name = str(path)
    loaded = load_flow(
        name,
        args=rules.args,
        lint=lint,
        agents=known_agent_names(name) if lint else None,
        cwd_bridge_off=_bridge_severity(rules),
        remember=remember,
    )
    return Admission(name, loaded, rules)


def admit_text(
    text: str | bytes, path: str, rules: AdmitRules, *, lint: bool = True, previous: LoadResult | None = None
) -> Admission:
    """Check flow text already read from `path` (the debugger's hot reload) under `rules`
    (`lint` as for `admit`). `previous`: the file's last version as loaded, whose unchanged
    phases are not built and checked again (`load.LoadMemo`: the same diagnostics either way)."""
    loaded = load_flow_text(
        text,
        path=path,
        args=rules.args,
        lint=lint,
        agents=known_agent_names(path) if lint else None,
        cwd_bridge_off=_bridge_severity(rules),
        previous=previous,
        remember=True,
    )
    return Admission(path, loaded, rules)


def _bridge_severity(rules: AdmitRules) -> Severity | None:
    if rules.cwd_bridge:
        return None
    return "warning" if rules.checking else "error"  # refused before anything runs (docs/differences.md §5.2)


def with_arg_names(admission: Admission) -> LoadResult:
    """The admission's result with its `--arg` name findings among the diagnostics, as `tftui check`
    lists them; a name error refuses the version (no flow), as `tftui run` and `tftui FLOW` refuse it."""
    found = admission.arg_names.diagnostics()
    if not found:
        return admission.loaded
    loaded = admission.loaded
    refused = any(d.is_error for d in found)
    return replace(loaded, flow=None if refused else loaded.flow, diagnostics=[*loaded.diagnostics, *found])


# -- the `--arg` names against the flow's (docs/language.md §1.3) ---------------------------

_REF = re.compile(r"\{\s*args\.([A-Za-z0-9_-]+)")
_WHOLE = re.compile(r"\{\s*args\s*\}")  # `{args}`: the whole object, so every name is used
# Declared types whose values are not strings: a `NAME=VALUE` for them is probably meant typed.
_TYPED = {"number": (int, float), "integer": (int,), "boolean": (bool,)}


@dataclass
class NameCheck:
    """What the `--arg` names given for a flow are: errors (typos of its names), warnings."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def diagnostics(self) -> list[Diagnostic]:
        """As diagnostics of the flow file (no position: they are about the command line)."""
        return [Diagnostic("error", e) for e in self.errors] + [Diagnostic("warning", w) for w in self.warnings]


def known_arg_names(flow: Flow) -> tuple[set[str], bool]:
    """(names the flow declares or references as `{args.NAME}`, whether it uses the whole `{args}`)."""
    names = set(flow.args or {})
    whole = False
    # warnings=False: a phase of an unknown type is built as a bare PhaseBase, which the phase
    # union serializes field by field after a warning that only pydantic's own words would print
    # on stderr (`tftui check --arg` of such a file); the strings walked are the same
    for text in _strings(flow.model_dump(by_alias=True, exclude_none=True, warnings=False)):
        if "args" not in text:
            continue
        names.update(_REF.findall(text))
        whole = whole or bool(_WHOLE.search(text))
    return names, whole


def arg_name_check(flow: Flow, values: Mapping[str, JSONValue], typed: Iterable[str] = ()) -> NameCheck:
    """Compare the given `--arg` names (`typed`: those given as NAME:=JSON) with the flow's: an
    unknown name close to a known one is an error with a "did you mean" (a typo would leave
    `{args.NAME}` literal), any other unknown name passes through unchanged with a warning, and a
    string given for an arg declared as a number or boolean gets a warning showing the `:=`
    spelling. Never raises."""
    check = NameCheck()
    if not values:  # nothing given, nothing to compare (the flow's names take a walk of every string)
        return check
    typed = set(typed)
    known, whole = known_arg_names(flow)
    declared = flow.args or {}
    for name, value in values.items():
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
        if spec is not None and name not in typed and isinstance(value, str):
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


def _strings(node: object) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _strings(value)
