"""Semantic checks of a flow (docs/language.md §1.4, §1.6, §2.3), in the order of docs/language.md §1.6:

name/phases → per-phase shape → unknown deps → agent format → cycles (only if no error
so far) → `final` count → `{steps.X}` reachability (only if no error so far) → arg
warnings (runtime mode) → strictInterpolation promotion.

`check_flow(flow)` is static mode; `check_flow(flow, args={...})` is runtime mode and
also reports `{args.X}` references the invocation does not provide.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tftui.flow import closed
from tftui.flow.checks_phase import PhaseChecker
from tftui.flow.diagnostics import Diagnostic, JsonPath, Severity, json_type
from tftui.flow.graph import Dag, dag_of
from tftui.flow.lint import FieldTexts, interpolated_fields
from tftui.flow.model import Flow, PhaseBase
from tftui.flow.score_shape import is_num
from tftui.lang.values import JSONObject, JSONValue

STRICT_PREFIX = "Strict interpolation: "
_AGENT_NAME = re.compile(r"[a-z][a-z0-9-]*")
_STEP_REF = re.compile(r"\{steps\.([a-zA-Z0-9_-]+)")
_ARG_REF = re.compile(r"\{args\.([a-zA-Z0-9_-]+)")


class CheckMemo:
    """The per-phase results of one `check_flow`, for checking the next version of the same file
    (the debugger's hot reload): a phase object checked before, at the same place and under the
    same flow settings, gets the diagnostics it got then; its references are read once. The
    loader reuses a phase object only when its JSON is unchanged (`load.PhaseMemo`), so a reuse
    gives exactly what checking it again would. Holds the entries of the last version only."""

    def __init__(self, previous: CheckMemo | None = None) -> None:
        self._old = previous._entries if previous is not None else {}
        self._old_refs = previous._refs if previous is not None else {}
        self._entries: dict[int, tuple[PhaseBase, JsonPath, str, list[Diagnostic]]] = {}
        self._refs: dict[int, tuple[PhaseBase, _Refs]] = {}

    def phase(self, phase: PhaseBase, base: JsonPath, settings: str) -> list[Diagnostic] | None:
        """The phase's own diagnostics when they are known (then kept for the next version)."""
        hit = self._old.get(id(phase))
        if hit is not None and hit[0] is phase and hit[1] == base and hit[2] == settings:
            self._entries[id(phase)] = hit
            return hit[3]
        return None

    def keep(self, phase: PhaseBase, base: JsonPath, settings: str, found: list[Diagnostic]) -> None:
        self._entries[id(phase)] = (phase, base, settings, found)

    def refs(self, phase: PhaseBase, fields: Callable[[PhaseBase], FieldTexts] = interpolated_fields) -> _Refs:
        key = id(phase)
        hit = self._refs.get(key) or self._old_refs.get(key)
        if hit is not None and hit[0] is phase:
            refs = hit[1]
        else:
            refs = collect_refs(phase, fields)
        self._refs[key] = (phase, refs)
        return refs


def check_flow(
    flow: Flow,
    args: Mapping[str, JSONValue] | None = None,
    *,
    prior_errors: bool = False,
    promote: bool = True,
    indices: Sequence[int] | None = None,
    memo: CheckMemo | None = None,
    fields: Callable[[PhaseBase], FieldTexts] = interpolated_fields,
) -> list[Diagnostic]:
    """Every error and warning of `flow`. `prior_errors`: the loader already found errors
    (they count for the "only if no error so far" rules). `indices[k]` is the position of
    `flow.phases[k]` in the file's `phases` array (phases the loader could not build are absent).
    `memo`: per-phase results to reuse and to record (see `CheckMemo`); the result is the same.
    `fields`: a phase's interpolated fields, which its references are read from (the load's
    `lint.PhaseFields`, kept for the linter's pass)."""
    out: list[Diagnostic] = []
    memo = memo if memo is not None else CheckMemo()
    refs_of = functools.partial(memo.refs, fields=fields)
    phases = list(flow.phases)
    bases: list[JsonPath] = [("phases", indices[k] if indices else k) for k in range(len(phases))]

    def errors_so_far() -> bool:
        return prior_errors or any(d.is_error for d in out)

    if not flow.name:
        out.append(Diagnostic("error", "Missing or invalid 'name'", path=("name",), field="name"))
    if not phases:
        out.append(
            Diagnostic("error", "Taskflow must have at least one phase", path=("phases",), field="phases")
        )
        return promote_strict(out) if promote and flow.strict_interpolation else out
    _top_level(flow, out)
    _arg_specs(flow, out)
    arg_types = {name: spec.type for name, spec in (flow.args or {}).items()}
    # what a phase's own checks read besides the phase (repr: `1`, `1.0` and `true` differ)
    settings = repr((flow.incremental, arg_types, flow.idle_timeout, flow.context_sharing))

    ids: set[str] = set()
    for phase, base in zip(phases, bases, strict=True):
        if not phase.id:
            out.append(Diagnostic("error", "Each phase requires an 'id'", path=base))
            continue
        if phase.id in ids:
            out.append(
                Diagnostic("error", f"Duplicate phase id: {phase.id}", phase_id=phase.id, path=(*base, "id"))
            )
        ids.add(phase.id)
        found = memo.phase(phase, base, settings)
        if found is None:
            found = []
            PhaseChecker(
                phase,
                base,
                flow.incremental,
                found,
                arg_types=arg_types,
                flow_idle_timeout=flow.idle_timeout,
                context_sharing=flow.context_sharing,
            ).run()
            memo.keep(phase, base, settings, found)
        out.extend(found)

    for phase, base in zip(phases, bases, strict=True):
        for key, deps in (("dependsOn", phase.depends_on), ("from", phase.from_ or [])):
            for j, dep in enumerate(deps):
                if dep not in ids:
                    out.append(
                        Diagnostic(
                            "error",
                            f"Phase '{phase.id}': {key} unknown phase '{dep}'",
                            phase_id=phase.id,
                            field=key,
                            path=(*base, key, j),
                        )
                    )

    for phase, base in zip(phases, bases, strict=True):
        agent = phase.agent
        if isinstance(agent, str) and "_" not in agent and not _AGENT_NAME.fullmatch(agent):
            out.append(
                Diagnostic(
                    "error",
                    f"Phase '{phase.id}': agent '{agent}' has invalid name format "
                    "(expected lowercase alphanumeric with hyphens)",
                    phase_id=phase.id,
                    field="agent",
                    path=(*base, "agent"),
                )
            )

    by_id: dict[str, tuple[PhaseBase, JsonPath]] = {}
    for phase, base in zip(phases, bases, strict=True):
        by_id.setdefault(phase.id, (phase, base))
    deps_of = {pid: [d for d in p.edges if d in by_id] for pid, (p, _) in by_id.items()}

    if not errors_so_far():
        # the graph's own search (`find_cycle` over these ids and edges), kept for the reload and the run
        cycle = dag_of(flow).cycle
        if cycle:
            first, base = by_id[cycle[0]]
            key, j = _edge_path(first, cycle[1])
            out.append(
                Diagnostic(
                    "error",
                    f"Dependency cycle detected: {' -> '.join(cycle)}",
                    phase_id=first.id,
                    field=key,
                    path=(*base, key, j),
                )
            )

    finals = [(p, b) for p, b in zip(phases, bases, strict=True) if p.final]
    if len(finals) > 1:
        phase, base = finals[1]
        out.append(
            Diagnostic(
                "error",
                f"Only one phase may be marked 'final' (found {len(finals)})",
                phase_id=phase.id,
                field="final",
                path=(*base, "final"),
            )
        )

    if not errors_so_far():
        _reachability(phases, bases, by_id, deps_of, out, refs_of)

    if args is not None:
        out.extend(_invocation_errors(flow, phases, args, refs_of))
    if args is not None and not errors_so_far():
        _arg_warnings(flow, phases, bases, args, out, refs_of)

    return promote_strict(out) if promote and flow.strict_interpolation else out


def cwd_bridge_refusals(
    flow: Flow, severity: Severity, indices: Sequence[int] | None = None
) -> list[Diagnostic]:
    """Each phase whose `cwd` is a whole `{args.X}`, when the run has not opted in to the cwd
    bridge (docs/differences.md §5.2): `severity` "error" for a run (nothing runs), "warning" for
    `tftui check` (the flow is valid; it will not run as it is)."""
    out: list[Diagnostic] = []
    for k, phase in enumerate(flow.phases):
        name = closed.cwd_arg_name(phase.cwd)
        if name is None:
            continue
        path: JsonPath = ("phases", indices[k] if indices and k < len(indices) else k, "cwd")
        out.append(Diagnostic(severity, closed.cwd_bridge_off(phase.id, name), phase_id=phase.id, field="cwd", path=path))
    return out


def promote_strict(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """strictInterpolation: every warning becomes an error prefixed `Strict interpolation: `."""
    return [
        d if d.is_error else replace(d, severity="error", message=STRICT_PREFIX + d.message)
        for d in diagnostics
    ]


def _edge_path(phase: PhaseBase, dep: str) -> tuple[str, int]:
    if dep in phase.depends_on:
        return "dependsOn", phase.depends_on.index(dep)
    return "from", (phase.from_ or []).index(dep)


def _raw_args(flow: Flow) -> dict[str, JSONObject]:
    """The declared args as the file wrote them (only the keys it set)."""
    return {
        name: spec.model_dump(by_alias=True, exclude_unset=True) for name, spec in (flow.args or {}).items()
    }


def invocation_refusals(flow: Flow, args: Mapping[str, JSONValue]) -> list[Diagnostic]:
    """The errors an invocation of `flow` with `args` is refused for (a required typed arg not
    given, a value that does not fit its type; docs/language.md §1.3): what `tftui run` checks, for
    the debugger opened without `--arg` to check when a run starts."""
    return [d for d in _invocation_errors(flow, flow.phases, args, collect_refs) if d.is_error]


def _invocation_errors(
    flow: Flow, phases: Sequence[PhaseBase], args: Mapping[str, JSONValue], refs_of: Callable[[PhaseBase], _Refs]
) -> list[Diagnostic]:
    """Typed-arg values the invocation gives (docs/language.md §1.3), each pinned on the first phase that uses it."""
    found = closed.invocation_errors(_raw_args(flow), args)
    if flow.strict_interpolation:  # taskflow: an undeclared invocation arg is a (strict) warning
        for name in args:
            if name not in (flow.args or {}):
                found.append(
                    Diagnostic(
                        "warning",
                        f"Invocation argument '{name}' is undeclared — declare it in 'args' or do not pass it",
                        path=("args",) if flow.args is not None else (),
                        field="args",
                    )
                )
    if not found:
        return []
    users: dict[str, str] = {}
    for phase in phases:
        for ref in refs_of(phase)[1]:
            users.setdefault(ref, phase.id)
    return [replace(d, phase_id=users.get(str(d.path[1]))) if len(d.path) > 1 else d for d in found]


def _arg_specs(flow: Flow, out: list[Diagnostic]) -> None:
    """Typed-arg declarations (docs/language.md §1.3): keys per type, the default's type, bounds, enum values."""
    for name, spec in _raw_args(flow).items():
        for message, path in closed.arg_spec_errors(name, spec):
            out.append(Diagnostic("error", message, path=path, field=f"args.{name}"))


def _top_level(flow: Flow, out: list[Diagnostic]) -> None:
    if "version" in flow.model_fields_set and not is_num(flow.version):
        out.append(
            Diagnostic(
                "error",
                f"Field 'version' must be a number, got {json_type(flow.version)} — write e.g. \"version\": 1",
                path=("version",),
                field="version",
            )
        )
    if flow.budget is not None and not flow.budget.model_fields_set:
        out.append(
            Diagnostic(
                "error",
                "Field 'budget' sets no cap — give it 'maxUSD' and/or 'maxTokens', or remove it",
                path=("budget",),
                field="budget",
            )
        )
    if flow.concurrency is not None and not is_num(flow.concurrency):
        out.append(
            Diagnostic(
                "error",
                f"Field 'concurrency' must be a number, got {json_type(flow.concurrency)}",
                path=("concurrency",),
                field="concurrency",
            )
        )
    if "idle_timeout" in flow.model_fields_set:
        value = flow.idle_timeout
        if not is_num(value) or value < 0:
            shown = value if is_num(value) else json_type(value)
            out.append(
                Diagnostic(
                    "error",
                    f"Flow 'idleTimeout' must be a non-negative finite number (ms), got {shown}",
                    path=("idleTimeout",),
                    field="idleTimeout",
                )
            )
        elif 0 < value < 1000:
            out.append(
                Diagnostic(
                    "error",
                    f"Flow 'idleTimeout' must be 0 (disable) or >= 1000 ms, got {value}",
                    path=("idleTimeout",),
                    field="idleTimeout",
                )
            )
    if flow.budget is not None:
        for key, value in (("maxUSD", flow.budget.max_usd), ("maxTokens", flow.budget.max_tokens)):
            if value is not None and value < 0:
                out.append(
                    Diagnostic(
                        "error",
                        f"Field 'budget.{key}' must be >= 0",
                        path=("budget", key),
                        field=f"budget.{key}",
                    )
                )
    for key in flow.model_extra or {}:
        if key in closed.EXTENSIONS:  # e.g. an editor's `$schema` association, not part of the flow
            continue
        if key in ("task", "tasks", "chain"):
            message = f"unknown field '{key}' — a flow with 'phases' is not shorthand: move the {key} into a phase"
        else:
            message = closed.unknown_field(key, closed.FLOW_KEYS)
        out.append(
            Diagnostic(
                "error",
                message.replace("unknown field", "Unknown top-level field", 1),
                path=(key,),
                field=key,
                at_key=True,
            )
        )


_Refs = tuple[dict[str, tuple[str | int, ...]], dict[str, tuple[str | int, ...]]]


def collect_refs(phase: PhaseBase, fields: Callable[[PhaseBase], FieldTexts] = interpolated_fields) -> _Refs:
    """`{steps.X…}` and `{args.X…}` references of a phase: ref -> path of its first occurrence.

    Scans every field that is interpolated at run time (taskflow's collectRefs), as `fields`
    lists them.
    """
    texts = fields(phase)
    steps: dict[str, tuple[str | int, ...]] = {}
    args: dict[str, tuple[str | int, ...]] = {}
    for path, text in texts:
        if not isinstance(text, str) or "{" not in text:
            continue
        for ref in _STEP_REF.findall(text):
            steps.setdefault(ref, path)
        for ref in _ARG_REF.findall(text):
            args.setdefault(ref, path)
    return steps, args


def _reachability(
    phases: Sequence[PhaseBase],
    bases: Sequence[JsonPath],
    by_id: Mapping[str, tuple[PhaseBase, JsonPath]],
    deps_of: Mapping[str, list[str]],
    out: list[Diagnostic],
    refs_of: Callable[[PhaseBase], _Refs],
) -> None:
    bit = {pid: 1 << i for i, pid in enumerate(by_id)}
    masks: dict[str, int] = {}  # phase -> bitmask of its transitive ancestors, built on first need

    def reaches(pid: str, target: str) -> bool:
        if target in deps_of[pid]:
            return True  # the common case, without computing closures
        if not masks:
            # ancestors as bitmasks in topological order: one OR per edge, linear for big flows
            for node in Dag.from_phases([p for p, _ in by_id.values()]).order:
                mask = 0
                for dep in deps_of[node]:
                    mask |= masks.get(dep, 0) | bit[dep]
                masks[node] = mask
        return bool(masks.get(pid, 0) & bit[target])

    for phase, base in zip(phases, bases, strict=True):
        if phase.join == "any" or by_id[phase.id][0] is not phase:
            continue
        steps, _ = refs_of(phase)
        for ref, path in steps.items():
            if ref == phase.id:
                if phase.type != "loop":
                    out.append(
                        Diagnostic(
                            "error",
                            f"Phase '{phase.id}': references its own output via {{steps.{ref}.*}}; "
                            "this is almost always a bug.",
                            phase_id=phase.id,
                            field=str(path[0]),
                            path=(*base, *path),
                        )
                    )
                continue
            if ref in by_id and not reaches(phase.id, ref):
                out.append(
                    Diagnostic(
                        "error",
                        f"Phase '{phase.id}': task references {{steps.{ref}.*}} but '{ref}' is not reachable via "
                        f"dependsOn. The phase will run in parallel with '{ref}' and see the literal placeholder. "
                        f'Add "dependsOn": ["{ref}"] (or include \'{ref}\' transitively).',
                        phase_id=phase.id,
                        field=str(path[0]),
                        path=(*base, *path),
                    )
                )


def _arg_warnings(
    flow: Flow,
    phases: Sequence[PhaseBase],
    bases: Sequence[JsonPath],
    args: Mapping[str, JSONValue],
    out: list[Diagnostic],
    refs_of: Callable[[PhaseBase], _Refs],
) -> None:
    resolved = {**flow.arg_defaults(), **dict(args)}
    for name, spec in (flow.args or {}).items():
        has_default = "default" in spec.model_fields_set
        if spec.type is None and spec.required is True and not has_default and name not in resolved:
            out.append(
                Diagnostic(
                    "warning",
                    f"Legacy untyped argument '{name}' is marked required but remains advisory; "
                    "add an explicit type to enforce it",
                    path=("args", name),
                    field=f"args.{name}",
                )
            )
    reported: set[str] = set()
    for phase, base in zip(phases, bases, strict=True):
        _, refs = refs_of(phase)
        for ref, path in refs.items():
            if ref in resolved or ref in reported:
                continue
            reported.add(ref)
            out.append(
                Diagnostic(
                    "warning",
                    f"Taskflow references {{args.{ref}}} but the invocation did not provide '{ref}'. "
                    "The placeholder will remain literal unless a default or runtime arg is supplied.",
                    phase_id=phase.id,
                    field=str(path[0]),
                    path=(*base, *path),
                )
            )
