"""Load a flow file: bytes/text -> JSON(C) -> shorthand -> pydantic models -> checks.

Never raises on user input: every problem becomes a `Diagnostic` with a 1-based
line:col, the phase id and the JSON path of the offending value. `LoadResult.flow`
is set only when there are no errors (an invalid file must never replace a good flow);
`LoadResult.model` keeps whatever could be built, for display.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from tftui.flow.diagnostics import Diagnostic, JsonPath, Severity, dotted, json_type, suggestion
from tftui.flow.jsonpos import Locator, string_char_offset, strip_jsonc
from tftui.flow.model import PHASE_CLASSES, ArgSpec, Budget, Flow, PhaseBase
from tftui.flow.parse_errors import json_error
from tftui.flow.shorthand import Kind, desugar, shorthand_kind, source_path
from tftui.lang.values import JSONObject, JSONValue
from tftui.paths import read_regular_file

if TYPE_CHECKING:
    from tftui.flow.checks import CheckMemo
    from tftui.flow.lint import PhaseFields

__all__ = ["Diagnostic", "LoadMemo", "LoadResult", "build_flow", "load_flow", "load_flow_text", "parse_json_text"]


@dataclass
class LoadMemo:
    """A load's per-phase work, kept for loading the next version of the same file (the
    debugger's hot reload, `load_flow_text(..., previous=)`): a save that changes one phase of
    2,000 builds and checks that one again and reuses the rest. A phase is reused only where a
    fresh load gives the very same: built from the same JSON (compared by `repr`, which tells
    `1`, `1.0` and `true` apart, and keys in their order) at the same index of `phases`, and
    checked under the same flow settings (`checks.CheckMemo`)."""

    built: dict[int, tuple[str, PhaseBase | None, list[Diagnostic]]] = field(default_factory=dict)
    checks: CheckMemo | None = None


@dataclass
class LoadResult:
    flow: Flow | None
    diagnostics: list[Diagnostic]
    source_text: str = ""
    path: str | None = None
    model: Flow | None = None  # built even when checks found errors (None if it could not be built)
    shorthand: Kind | None = None
    unreadable: bool = False  # the file could not be read at all (missing, a directory, no permission)
    missing: bool = False  # unreadable because there is no such file: every front end says "not found"
    data: JSONValue = field(default=None, repr=False)  # the parsed JSON (after desugaring)
    # for the linter's later pass (`lint_loaded`): the text positions are read from, each
    # phase's index in the file; `linted`: its findings are among the diagnostics (or it had none to run)
    positions_text: str = field(default="", repr=False)
    indices: list[int] = field(default_factory=list, repr=False)
    linted: bool = True
    memo: LoadMemo | None = field(default=None, repr=False)  # see `LoadMemo` (None: not kept)
    # the bytes the text was decoded from (a BOM included), when it was given as bytes (a file
    # read by `load_flow`): what a copy of the very file checked is made of (a run's flow.json)
    raw: bytes | None = field(default=None, repr=False)
    # what the load worked out that the linter's pass reads again, until it has run: the
    # positions of `positions_text` (its line starts and scanned containers) and each phase's
    # interpolated fields (`lint.PhaseFields`, filled by the checks' reference scan)
    locator: Locator | None = field(default=None, repr=False, compare=False)
    fields: PhaseFields | None = field(default=None, repr=False, compare=False)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if not d.is_error]

    @property
    def ok(self) -> bool:
        return self.flow is not None


# ---------------------------------------------------------------------------
# Text -> JSON value


def _decode(raw: bytes) -> tuple[str | None, Diagnostic | None]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        message = (
            f"File is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} cannot be decoded "
            "(save the file as UTF-8)"
        )
        return None, Diagnostic("error", message, line, col)


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON value")


def _js_int(text: str) -> int | float:
    """JSON integers as JavaScript reads them: beyond 2**53 they are doubles (1e400 -> inf),
    so a huge literal can never overflow a float conversion later."""
    value = int(text)
    return value if -(2**53) <= value <= 2**53 else float(text)


# What `tftui check`, `tftui run` and `tftui FLOW` say of a flow path with no file (admit.py).
FLOW_NOT_FOUND = "flow file not found"

_CONSTANT = re.compile(r"-?\b(?:NaN|Infinity)\b")

# Input limits (docs/inputs.md §2): a flow nested deeper than this, or a file larger, is a
# diagnostic naming the limit, so no later step (checks, fingerprints, contracts, the debugger's
# reload) meets a structure it cannot walk.
MAX_NESTING = 100
MAX_FLOW_BYTES = 16 * 1024 * 1024
_TOO_DEEP = f"Invalid JSON: nested deeper than {MAX_NESTING} levels (the limit for a flow file)"


def nesting_depth(value: JSONValue, limit: int = MAX_NESTING) -> int:
    """How deep arrays and objects nest in `value` (a scalar is 0), counted up to `limit` + 1.

    Iterative and linear, so it never recurses on the structure it measures: one level of
    values at a time (a list of everything at that depth; a 5,000-phase flow in ~4 ms, half
    of what a stack of (value, depth) pairs took).
    """
    depth = 0
    level: list[JSONValue] = [value]
    while True:
        containers = [item for item in level if isinstance(item, (dict, list))]
        if not containers:
            return depth
        depth += 1
        if depth > limit:
            return depth
        level = []
        for item in containers:
            level.extend(item.values() if isinstance(item, dict) else item)


def parse_json_text(text: str) -> tuple[JSONValue, str, Diagnostic | None]:
    """Parse JSON, falling back to JSONC. Returns (value, text used for positions, error)."""
    try:
        return _within_limits(json.loads(text, parse_constant=_reject_constant, parse_int=_js_int), text)
    except (ValueError, RecursionError):
        pass
    stripped = strip_jsonc(text)
    try:
        return _within_limits(json.loads(stripped, parse_constant=_reject_constant, parse_int=_js_int), stripped)
    except json.JSONDecodeError as exc:
        return None, stripped, json_error(stripped, exc)
    except RecursionError:
        return None, stripped, Diagnostic("error", _TOO_DEEP, 1, 1)
    except ValueError as exc:
        match = _CONSTANT.search(stripped)
        line, col = Locator(stripped).line_col(match.start()) if match else (1, 1)
        return None, stripped, Diagnostic("error", f"Invalid JSON: {exc}", line, col)


def _within_limits(value: JSONValue, text: str) -> tuple[JSONValue, str, Diagnostic | None]:
    if nesting_depth(value) > MAX_NESTING:
        return None, text, Diagnostic("error", _TOO_DEEP, 1, 1)
    return value, text, None


# ---------------------------------------------------------------------------
# JSON value -> models (schema errors)

_M = TypeVar("_M", bound=BaseModel)

_EXPECT = {
    "string_type": "a string",
    "bool_type": "a boolean",
    "float_type": "a number",
    "int_type": "a number",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _walk(data: JSONValue, loc: JsonPath) -> tuple[JsonPath, JSONValue]:
    """Follow `loc` into `data` as far as it exists (pydantic adds union tags that do not)."""
    value = data
    real: list[str | int] = []
    for step in loc:
        if isinstance(value, dict) and isinstance(step, str) and step in value:
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            break
        real.append(step)
    return tuple(real), value


def _got(value: JSONValue) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else json_type(value)


def _schema_diags(
    exc: ValidationError, data: Mapping[str, JSONValue], phase_id: str | None, base: JsonPath
) -> Iterator[tuple[JsonPath, Diagnostic]]:
    """Human messages for pydantic errors; yields (top-level key to drop, Diagnostic)."""
    groups: dict[JsonPath, list[ErrorDetails]] = {}
    for err in exc.errors():
        loc, _ = _walk(data, tuple(err["loc"]))
        if err["type"] in ("missing", "extra_forbidden"):
            loc = tuple(err["loc"])
        groups.setdefault(loc, []).append(err)
    for loc, errs in groups.items():
        _, value = _walk(data, loc)
        name = dotted(loc)
        types = [e["type"] for e in errs]
        at_key = False
        if types[0] == "extra_forbidden":
            known = _known_keys(loc)
            message = f"unknown field '{name}'{suggestion(str(loc[-1]), known)}"
            if known:
                message += f" (allowed: {', '.join(known)})"
            at_key = True
        elif types[0] == "missing":
            message = f"field '{name}' is required"
        elif types[0] == "literal_error":
            message = f"field '{name}' must be {errs[0]['ctx']['expected']}, got {_got(value)}"
        elif loc and loc[0] in ("dependsOn", "from") and len(loc) == 1 and types[0] == "list_type":
            message = f"field '{name}' must be an array of phase ids, got {json_type(value)}"
        elif loc and loc[0] in ("dependsOn", "from") and len(loc) == 2:
            message = f"{name} must be a string phase id, got {json_type(value)}"
        elif loc and loc[0] == "branches" and len(loc) == 2:
            message = f"branches[{loc[1]}] must be an object with a 'task', got {json_type(value)}"
        else:
            expected = [_EXPECT.get(t) for t in types]
            if all(expected):
                alternatives = " or ".join(dict.fromkeys(e for e in expected if e))
                message = f"field '{name}' must be {alternatives}, got {json_type(value)}"
            else:
                message = f"field '{name}': {errs[0]['msg']}"
        if phase_id is not None:
            message = f"Phase '{phase_id}': {message}"
        else:
            message = message[0].upper() + message[1:]
        diag = Diagnostic(
            "error", message, phase_id=phase_id, field=name or None, path=(*base, *loc), at_key=at_key
        )
        yield loc, diag


def _known_keys(loc: JsonPath) -> list[str]:
    model: type[BaseModel] | None = None
    if loc and loc[0] == "budget":
        model = Budget
    elif loc and loc[0] == "args":
        model = ArgSpec
    if model is None:
        return []
    return [f.alias or n for n, f in model.model_fields.items()]


def _drop(data: JSONObject, loc: JsonPath) -> bool:
    """Remove the value an error is about so validation can go on; False if impossible."""
    key = loc[0] if loc else None
    if not isinstance(key, str) or key not in data:  # (object keys are strings: an index is never there)
        return False
    if loc[0] == "args" and len(loc) >= 2 and isinstance(data["args"], dict) and loc[1] in data["args"]:
        data["args"] = {k: v for k, v in data["args"].items() if k != loc[1]}
        return True
    del data[key]
    return True


def _validate(
    cls: type[_M], data: JSONObject, phase_id: str | None, base: JsonPath, out: list[Diagnostic]
) -> _M | None:
    """Validate, reporting and dropping bad fields until what remains is valid (or give up)."""
    for _ in range(4):
        try:
            return cls.model_validate(data, strict=True, by_alias=True, by_name=False)
        except ValidationError as exc:
            dropped = False
            for loc, diag in list(_schema_diags(exc, data, phase_id, base)):  # all read before any drop
                out.append(diag)
                dropped = _drop(data, loc) or dropped
            if not dropped:
                return None
    return None


def _build_phase(raw: JSONValue, index: int, out: list[Diagnostic]) -> PhaseBase | None:
    base: JsonPath = ("phases", index)
    if not isinstance(raw, dict):
        out.append(Diagnostic("error", f"Each phase must be an object, got {json_type(raw)}", path=base))
        return None
    pid = raw.get("id")
    if pid is None or pid == "" or pid is False or pid == 0:
        out.append(Diagnostic("error", "Each phase requires an 'id'", path=base))
        return None
    if not isinstance(pid, str):
        out.append(
            Diagnostic(
                "error", f"Phase id must be a string, got {json_type(pid)}", path=(*base, "id"), field="id"
            )
        )
        return None
    data = dict(raw)
    ptype = data.get("type", "agent")
    if not isinstance(ptype, str):
        # Reported by checks as an unknown type; keep the phase so its edges still resolve.
        data["type"] = ptype = json.dumps(ptype)
    cls = PHASE_CLASSES.get(ptype, PhaseBase)
    return _validate(cls, data, pid, base, out)


def build_flow(
    data: Mapping[str, JSONValue], *, memo: LoadMemo | None = None, previous: LoadMemo | None = None
) -> tuple[Flow | None, list[Diagnostic], list[int]]:
    """Models from a full-flow dict: (flow, schema diagnostics, source index of each phase).

    Phases that cannot be built at all (not an object, no id) are left out, so indices
    map `flow.phases[k]` back to `data["phases"][indices[k]]`. `memo` records each phase's
    build, `previous` (an earlier version's memo) gives the builds to reuse (see `LoadMemo`).
    """
    out: list[Diagnostic] = []
    top = {k: v for k, v in data.items() if k != "phases"}
    if not isinstance(top.get("name"), str):
        top["name"] = ""  # checks report `Missing or invalid 'name'`
    flow = _validate(Flow, {**top, "phases": []}, None, (), out)
    if flow is None:
        return None, out, []
    raw_phases = data.get("phases")
    phases: list[PhaseBase] = []
    indices: list[int] = []
    known = previous.built if previous is not None else {}
    for i, raw in enumerate(raw_phases if isinstance(raw_phases, list) else []):
        if memo is None:
            phase = _build_phase(raw, i, out)
        else:
            key = repr(raw)
            hit = known.get(i)
            if hit is not None and hit[0] == key:
                _, phase, found = hit
            else:
                found = []
                phase = _build_phase(raw, i, found)
            memo.built[i] = (key, phase, found)
            out.extend(found)
        if phase is not None:
            phases.append(phase)
            indices.append(i)
    # The field is declared as the tagged union (pydantic's schema and validation need it), but a phase
    # of unknown type stays a bare PhaseBase here so its edges still resolve (checks report the type).
    flow.phases = phases  # type: ignore[assignment]
    return flow, out, indices


# ---------------------------------------------------------------------------
# Entry points


def load_flow_text(
    text: str | bytes,
    path: str | None = None,
    *,
    args: Mapping[str, JSONValue] | None = None,
    check: bool = True,
    lint: bool = False,
    agents: Collection[str] | None = None,
    cwd_bridge_off: Severity | None = None,
    previous: LoadResult | None = None,
    remember: bool = False,
) -> LoadResult:
    """Parse and check flow text. `args` switches checks to runtime mode (docs/language.md §1.6).
    `lint` adds the linter's warnings (docs/linter.md; `agents`: every findable agent name, None
    skips the agent check); they stay warnings under `strictInterpolation`. `cwd_bridge_off`: the
    run has not opted in to `cwd: "{args.X}"`; report each such cwd with this severity.
    `remember`: keep the per-phase work (`LoadResult.memo`) for the next version; `previous`: an
    earlier version's result to reuse it from (implies `remember`; the result is a fresh load's)."""
    from tftui.flow.checks import CheckMemo, check_flow, cwd_bridge_refusals, promote_strict
    from tftui.flow.lint import PhaseFields

    raw = bytes(text) if isinstance(text, (bytes, bytearray)) else None
    if raw is not None:
        decoded, problem = _decode(raw)
        if decoded is None:
            return LoadResult(None, [problem] if problem else [], "", path)
        text = decoded
    if not isinstance(text, str):
        return LoadResult(None, [Diagnostic("error", "Flow text must be a string", 1, 1)], "", path)
    text = text.removeprefix("\ufeff")
    data, positions_text, problem = parse_json_text(text)
    if problem is not None:
        return LoadResult(None, [problem], text, path)
    if not isinstance(data, dict):
        diag = Diagnostic("error", f"Flow file must be a JSON object, got {json_type(data)}")
        return LoadResult(None, [_locate(diag, Locator(positions_text), None)], text, path)

    diags: list[Diagnostic] = []
    kind = shorthand_kind(data)
    if kind is not None:
        data, shorthand_diags = desugar(data, kind)
        diags.extend(shorthand_diags)
    before = previous.memo if previous is not None else None
    memo = LoadMemo() if remember or previous is not None else None
    flow, schema_diags, indices = build_flow(data, memo=memo, previous=before)
    diags.extend(schema_diags)
    fields = None
    if flow is not None and check:
        prior = any(d.is_error for d in diags)
        checks = None
        if memo is not None:
            checks = memo.checks = CheckMemo(before.checks if before is not None else None)
        fields = PhaseFields()
        found = check_flow(flow, args, prior_errors=prior, promote=False, indices=indices, memo=checks,
                           fields=fields)
        found = [d for d in found if not _follow_up(d, schema_diags)]
        raw_phases = data.get("phases")
        if isinstance(raw_phases, list) and raw_phases:
            # every phase was unbuildable (already reported): "at least one phase" would mislead
            found = [d for d in found if d.message != "Taskflow must have at least one phase"]
        diags.extend(found)
        if flow.strict_interpolation:
            diags = promote_strict(diags)
        if cwd_bridge_off is not None:
            diags.extend(cwd_bridge_refusals(flow, cwd_bridge_off, indices))

    locator = Locator(positions_text)
    located = [_locate(d, locator, kind) for d in diags]
    ok = flow is not None and check and not any(d.is_error for d in located)
    linted = not (flow is not None and check)
    result = LoadResult(flow if ok else None, located, text, path, model=flow, shorthand=kind, data=data,
                        positions_text=positions_text, indices=indices, linted=linted, memo=memo, raw=raw,
                        locator=None if linted else locator, fields=fields)
    return lint_loaded(result, agents) if lint else result


def lint_loaded(result: LoadResult, agents: Collection[str] | None) -> LoadResult:
    """`result` with the linter's warnings after its diagnostics (docs/linter.md), as
    `load_flow_text(..., lint=True)` gives them: the linter only warns, so a file's admission does
    not wait for it (the debugger shows a flow, or a saved version as stale, first and lints it
    after). It reads the load's positions and phase fields (`LoadResult.locator`, `.fields`) and
    lets them go. Already linted: `result` itself."""
    from tftui.flow.lint import interpolated_fields, lint_flow

    if result.linted or result.model is None:
        return result
    fields = result.fields if result.fields is not None else interpolated_fields
    found = lint_flow(result.model, indices=result.indices, agents=agents, fields=fields)
    locator = result.locator if result.locator is not None else Locator(result.positions_text)
    located = [_locate(d, locator, result.shorthand) for d in found]
    return replace(result, diagnostics=[*result.diagnostics, *located], linted=True, locator=None, fields=None)


def _follow_up(diag: Diagnostic, schema_diags: list[Diagnostic]) -> bool:
    """A `requires 'x'` error about a field whose present value was already reported as invalid."""
    if " requires " not in diag.message:
        return False
    for bad in schema_diags:
        if len(bad.path) >= 3 and bad.path[:2] == diag.path[:2] and f"'{bad.path[2]}'" in diag.message:
            return True
    return False


def _locate(diag: Diagnostic, locator: Locator, kind: Kind | None) -> Diagnostic:
    if diag.line is not None:
        return diag
    src = source_path(kind, diag.path)
    if diag.char is not None:
        value_at = locator.offset(src)
        at = string_char_offset(locator.text, value_at, diag.char) if value_at is not None else None
        if at is not None:
            line, col = locator.line_col(at)
            return replace(diag, line=line, col=col, path=src)
    line, col = locator.nearest(src, at_key=diag.at_key)
    return replace(diag, line=line, col=col, path=src)


def load_flow(
    path: str | Path,
    *,
    args: Mapping[str, JSONValue] | None = None,
    lint: bool = False,
    agents: Collection[str] | None = None,
    cwd_bridge_off: Severity | None = None,
    remember: bool = False,
) -> LoadResult:
    """Read and load a flow file; an unreadable file is a diagnostic, never an exception.

    Only a regular file is read (a FIFO would block, a device never ends), at most
    MAX_FLOW_BYTES of it (docs/inputs.md §2).
    """
    name = str(path)
    raw, reason = read_regular_file(path, MAX_FLOW_BYTES)
    if raw is None:
        if not Path(path).exists():  # (a dangling symlink too) the file is not there, not a bad one
            return LoadResult(None, [Diagnostic("error", FLOW_NOT_FOUND)], "", name, unreadable=True, missing=True)
        return LoadResult(None, [Diagnostic("error", f"cannot read file: {reason}")], "", name, unreadable=True)
    return load_flow_text(raw, name, args=args, lint=lint, agents=agents, cwd_bridge_off=cwd_bridge_off,
                          remember=remember)
