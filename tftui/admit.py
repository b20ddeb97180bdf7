"""Admitting a flow file: the one load + check that `tftui check`, `tftui run`, `tftui FLOW` and the
debugger's hot reload all make, so the same file gets the same diagnostics and the same refusal
everywhere (docs/inputs.md §2).

What a flow is checked against is decided once per command, as `AdmitRules`:

- runtime mode with the run's `--arg` values (docs/language.md §1.6) when any are given;
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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tftui.agents.definitions import known_agent_names
from tftui.config import Config, apply_limits, cwd_bridge_allowed
from tftui.flow.diagnostics import Diagnostic, Severity
from tftui.flow.load import LoadResult, load_flow, load_flow_text
from tftui.flow.model import Flow
from tftui.lang.values import JSONValue

__all__ = ["Admission", "AdmitRules", "admission_rules", "admit", "admit_text"]


@dataclass(frozen=True)
class AdmitRules:
    """What a flow file is checked against (see the module doc)."""

    args: Mapping[str, JSONValue] | None = None  # runtime mode when set (the `--arg` values)
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
    def refusal(self) -> str | None:
        """`PATH is not a valid flow (N errors)`, or None when the flow was admitted."""
        if self.loaded.flow is not None:
            return None
        count = len(self.loaded.errors) or 1
        return f"{self.path} is not a valid flow ({count} error{'' if count == 1 else 's'})"


def admission_rules(
    config: Config,
    *,
    args: Mapping[str, JSONValue] | None,
    allow_cwd_bridge: bool = False,
    checking: bool = False,
) -> AdmitRules:
    """The rules for one command from its settings (`config`, read for the flow's folder), its
    `--arg` values (None: not runtime mode; `tftui run` always checks in runtime mode) and its `--allow-cwd-bridge` flag. Makes the
    `[limits]` settings take effect for this process (docs/trust.md §3)."""
    apply_limits(config)
    return AdmitRules(
        args=dict(args) if args is not None else None,
        cwd_bridge=cwd_bridge_allowed(config, allow_cwd_bridge),
        checking=checking,
    )


def admit(path: str | Path, rules: AdmitRules) -> Admission:
    """Read and check the flow file at `path` under `rules`."""
    name = str(path)
    loaded = load_flow(
        name,
        args=rules.args,
        lint=True,
        agents=known_agent_names(name),
        cwd_bridge_off=_bridge_severity(rules),
    )
    return Admission(name, loaded, rules)


def admit_text(text: str | bytes, path: str, rules: AdmitRules) -> Admission:
    """Check flow text already read from `path` (the debugger's hot reload) under `rules`."""
    loaded = load_flow_text(
        text,
        path=path,
        args=rules.args,
        lint=True,
        agents=known_agent_names(path),
        cwd_bridge_off=_bridge_severity(rules),
    )
    return Admission(path, loaded, rules)


def _bridge_severity(rules: AdmitRules) -> Severity | None:
    if rules.cwd_bridge:
        return None
    return "warning" if rules.checking else "error"  # refused before anything runs (docs/differences.md §5.2)
