"""The closed flow schema (docs/language.md §1.2, §1.3, §2.1): every field a flow may set, and the value rules
that go with the fields rather than with one phase type.

taskflow 0.2.4's schema is closed: a key it does not know is an error, never a silently ignored
warning, because a typo (`dependOn`) changes what the flow means. The tables here are the one
list of known keys: the loader, the checks and `tftui schema` read them.

Phase keys are one flat set shared by every phase type (a `variants` on a map is accepted and
ignored, as in taskflow); a key of the set that the phase's own type does not use is reported by
the checks as a warning, not here. `EXTENSIONS` lists the keys tftui accepts beyond taskflow's
schema, each documented where it is read.

Everything here is pure: functions take parsed JSON values and return messages or diagnostics;
none raises on user input.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence

from tftui.flow.cwd_opt_in import CWD_BRIDGE_ENV, CWD_BRIDGE_FLAG, CWD_BRIDGE_SETTING
from tftui.flow.diagnostics import Diagnostic, JsonPath, did_you_mean, json_type
from tftui.flow.score_shape import is_num
from tftui.lang.values import JSONValue

FLOW_KEYS: tuple[str, ...] = (
    "name",
    "description",
    "version",
    "args",
    "concurrency",
    "budget",
    "agentScope",
    "strictInterpolation",
    "contextSharing",
    "incremental",
    "idleTimeout",
    "phases",
)
# tftui's documented extensions: an editor's JSON-Schema association, never read by the engine.
EXTENSIONS: dict[str, str] = {"$schema": "editor schema association (ignored by the engine)"}

PHASE_KEYS: tuple[str, ...] = (
    "id", "type", "agent", "task",
    "over", "as",  # map
    "branches", "cancelLosers",  # parallel / race / tournament
    "from", "reduceStrategy", "batchSize",  # reduce
    "use", "def", "with", "expandMode", "maxNodes",  # flow / expand
    "run", "input",  # script
    "timeout", "idleTimeout",
    "until", "maxIterations", "convergence", "reflexion",  # loop
    "variants", "judge", "judgeAgent", "mode",  # tournament
    "dependsOn", "join", "when", "retry", "output", "expect",
    "model", "thinking", "tools", "cwd", "final", "optional", "idempotent",
    "concurrency", "context", "contextLimit",
    "onBlock", "eval", "score",  # gate
    "cache", "shareContext",
)  # fmt: skip
BRANCH_KEYS: tuple[str, ...] = ("task", "agent", "cwd")
RETRY_KEYS: tuple[str, ...] = ("max", "backoffMs", "factor")
CACHE_KEYS: tuple[str, ...] = ("scope", "ttl", "fingerprint")
BUDGET_KEYS: tuple[str, ...] = ("maxUSD", "maxTokens")

ARG_TYPES: tuple[str, ...] = ("string", "relative-path", "number", "boolean", "enum")
_ARG_COMMON: tuple[str, ...] = ("type", "default", "description", "required")
ARG_KEYS: dict[str | None, tuple[str, ...]] = {
    None: ("default", "description", "required"),  # a legacy (untyped) arg
    "string": _ARG_COMMON,
    "relative-path": _ARG_COMMON,
    "number": (*_ARG_COMMON, "minimum", "maximum"),
    "boolean": _ARG_COMMON,
    "enum": (*_ARG_COMMON, "values"),
}

THINKING_LEVELS: tuple[str, ...] = (
    "off",
    "none",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
    "ultra",
)
WORKSPACE_KEYWORDS: tuple[str, ...] = ("temp", "dedicated", "worktree")
CACHE_FINGERPRINT_PREFIXES: tuple[str, ...] = ("git:", "glob:", "glob!:", "file:", "env:")
EXPAND_MODES: tuple[str, ...] = ("nested", "graft")
TOURNAMENT_MODES: tuple[str, ...] = ("best", "aggregate")
TREE_REDUCE_MAX_CALLS = 256

# The flat value rules of phase keys (taskflow's schema types), used for keys the phase's own type
# does not model (the type's own fields are typed by the pydantic models and checked there).
_ENUMS: dict[str, tuple[str, ...]] = {
    "join": ("all", "any"),
    "output": ("text", "json"),
    "onBlock": ("halt", "retry"),
    "mode": TOURNAMENT_MODES,
    "expandMode": EXPAND_MODES,
    "reduceStrategy": ("one-shot", "tree"),
    "thinking": THINKING_LEVELS,
}
_BOOLEANS = ("cancelLosers", "convergence", "reflexion", "final", "optional", "idempotent", "shareContext")
_NUMBERS = ("maxNodes", "timeout", "idleTimeout", "maxIterations", "variants", "concurrency", "contextLimit")
_STRINGS = (
    "over",
    "as",
    "use",
    "input",
    "until",
    "judge",
    "judgeAgent",
    "model",
    "cwd",
    "when",
    "agent",
    "task",
)
_STRING_LISTS = ("from", "dependsOn", "tools", "context", "eval")

_PLACEHOLDER = re.compile(r"\{[^{}]+\}")
_WHOLE_ARG = re.compile(r"\{args\.([a-zA-Z0-9_-]+)\}")
_WIN_RESERVED = re.compile(r"(?:con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(?:\..*)?", re.IGNORECASE)
_WIN_FORBIDDEN = re.compile(r'[<>:"|?*]')
_TTL = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?", re.IGNORECASE)


# ---------------------------------------------------------------------------
# Unknown keys


def unknown_field(
    key: str, known: Sequence[str], *, phase_type: str | None = None, value: JSONValue = None
) -> str:
    """`unknown field 'dependOn' — did you mean 'dependsOn'?`, or the fix for a key taskflow never had."""
    if phase_type is not None and key in ("name", "description"):
        fix = (
            "phases have no display name: the 'id' names the phase"
            if key == "name"
            else "phases have no description: write notes in the flow's top-level 'description'"
        )
        return f"unknown field '{key}' — {fix}; remove it"
    if phase_type == "expand" and key == "mode":
        return "unknown field 'mode' — did you mean 'expandMode'?"
    guess = did_you_mean(key, known)
    if guess is not None:
        return f"unknown field '{key}' — did you mean '{guess}'?"
    return f"unknown field '{key}' (allowed: {', '.join(known)})"


def phase_mode_is_expand_mode(phase_type: str, value: JSONValue) -> bool:
    """An `expand` phase's `mode` that means `expandMode` (tftui's old spelling)."""
    return phase_type == "expand" and value in EXPAND_MODES


# ---------------------------------------------------------------------------
# Flat value rules for a phase key


def flat_value_error(key: str, value: JSONValue) -> str | None:
    """What is wrong with `value` as phase key `key` under taskflow's flat schema, else None."""
    if key in _ENUMS:
        allowed = _ENUMS[key]
        if value not in allowed or not isinstance(value, str):
            return f"'{key}' must be one of {', '.join(allowed)}; got {_shown(value)}"
    elif key in _BOOLEANS:
        if not isinstance(value, bool):
            return f"'{key}' must be a boolean, got {json_type(value)}"
    elif key in _NUMBERS:
        if not is_num(value):
            return f"'{key}' must be a number, got {json_type(value)}"
    elif key in _STRINGS:
        if not isinstance(value, str):
            return f"'{key}' must be a string, got {json_type(value)}"
    elif key in _STRING_LISTS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"'{key}' must be an array of strings, got {json_type(value)}"
    elif key == "batchSize":
        if not (is_num(value) and value >= 2 and float(value).is_integer()):
            return "'batchSize' must be an integer >= 2"
    elif key == "run":
        if not isinstance(value, str) and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return f"'run' must be a string or an array of strings, got {json_type(value)}"
    elif key == "with":
        if not isinstance(value, dict):
            return f"'with' must be an object, got {json_type(value)}"
    return None


def _shown(value: JSONValue) -> str:
    return f"'{value}'" if isinstance(value, str) else json_type(value)


# ---------------------------------------------------------------------------
# Phase rules on shared fields: thinking, cwd, branch cwd, cache, idleTimeout 0, tree reduce


def thinking_error(value: JSONValue) -> str | None:
    if isinstance(value, str) and value not in THINKING_LEVELS:
        guess = did_you_mean(value, THINKING_LEVELS)
        hint = f" — did you mean '{guess}'?" if guess else ""
        return f"'thinking' must be one of {', '.join(THINKING_LEVELS)}; got '{value}'{hint}"
    return None


def cwd_arg_name(cwd: JSONValue) -> str | None:
    """The arg of a `cwd` that is exactly one whole `{args.X}` placeholder, else None."""
    if not isinstance(cwd, str):
        return None
    match = _WHOLE_ARG.fullmatch(cwd)
    return match.group(1) if match else None


def has_placeholder(text: str) -> bool:
    return _PLACEHOLDER.search(text) is not None


def cwd_bridge_off(phase_id: str, name: str) -> str:
    """Why a bridged `cwd` does not run without the opt-in, and how to opt in."""
    return (
        f"Phase '{phase_id}': field 'cwd' ({{args.{name}}}) picks the working folder from an argument, "
        f"which tftui does only when you opt in (the path check is not a sandbox) — pass {CWD_BRIDGE_FLAG}, "
        f"or set {CWD_BRIDGE_SETTING} = true in your user config (or {CWD_BRIDGE_ENV}=1) "
        "(taskflow: TF_CWD_BRIDGE_DISABLED)"
    )


def cwd_errors(
    cwd: JSONValue, arg_types: Mapping[str, str | None], retry_max: JSONValue, cache_scope: JSONValue
) -> list[tuple[str, str]]:
    """(message, field) of each rule a phase `cwd` breaks. `arg_types`: declared arg -> its type."""
    if not isinstance(cwd, str) or not has_placeholder(cwd):
        return []
    name = cwd_arg_name(cwd)
    if name is None:
        return [
            (
                f"dynamic 'cwd' must be exactly one whole {{args.X}} placeholder, got '{cwd}' — concatenation, "
                "several placeholders and {steps.*} are not allowed; use a literal path or a relative-path arg",
                "cwd",
            )
        ]
    out: list[tuple[str, str]] = []
    if name not in arg_types:
        out.append(
            (
                f"'cwd' uses undeclared argument '{name}' — declare it in 'args' as "
                f'"{name}": {{"type": "relative-path"}}',
                "cwd",
            )
        )
    elif arg_types[name] != "relative-path":
        out.append(
            (
                f"'cwd' argument '{name}' must be declared with type 'relative-path' — add "
                f'"type": "relative-path" to args.{name}',
                "cwd",
            )
        )
    if cache_scope == "cross-run":
        out.append(
            (
                f"a 'cwd' selected by argument '{name}' cannot use cache.scope 'cross-run' (the workspace "
                "state is not restored) — use 'run-only' or a literal cwd",
                "cache",
            )
        )
    if is_num(retry_max) and retry_max > 0:
        out.append(
            (
                f"a 'cwd' selected by argument '{name}' cannot use retry.max > 0: a failed attempt may have "
                "written to that folder and must be reconciled before another one — set retry.max to 0",
                "retry",
            )
        )
    return out


def branch_cwd_error(phase_type: str, index: int, branch_cwd: JSONValue, phase_cwd: JSONValue) -> str | None:
    """What is wrong with `branches[index].cwd`, else None."""
    if not isinstance(branch_cwd, str):
        return None
    where = f"branches[{index}].cwd"
    if phase_type != "parallel":
        return f"{where} is only supported on parallel phases — remove it or set the phase's 'cwd'"
    if has_placeholder(branch_cwd):
        return f"{where} does not support placeholders ('{branch_cwd}') — use a literal path"
    if branch_cwd in WORKSPACE_KEYWORDS:
        return (
            f"{where} '{branch_cwd}' is a workspace keyword, which only the phase-level 'cwd' supports "
            "(the workspace lives as long as the phase) — move it to the phase's 'cwd'"
        )
    if isinstance(phase_cwd, str) and (phase_cwd in WORKSPACE_KEYWORDS or has_placeholder(phase_cwd)):
        return (
            f"{where} cannot override the phase's cwd '{phase_cwd}' (a managed workspace or argument "
            "binding) — put the literal path on the phase or remove the branch's cwd"
        )
    return None


def ttl_ms(ttl: JSONValue) -> float | None:
    """A cache TTL ('500ms', '90s', '30m', '6h', '7d', plain number = ms) in ms; None if malformed."""
    if not isinstance(ttl, str):
        return None
    match = _TTL.fullmatch(ttl.strip())
    if not match:
        return None
    amount = float(match.group(1))
    if not math.isfinite(amount) or amount <= 0:
        return None
    unit = (match.group(2) or "ms").lower()
    return amount * {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}[unit]


def cache_errors(cache: Mapping[str, JSONValue]) -> list[tuple[str, JsonPath]]:
    """(message, path under `cache`) for unknown keys, `ttl` and `fingerprint` entries."""
    out: list[tuple[str, JsonPath]] = []
    for key in cache:
        if key not in CACHE_KEYS:
            out.append((f"cache has {unknown_field(key, CACHE_KEYS)}", (key,)))
    if "ttl" in cache and ttl_ms(cache["ttl"]) is None:
        out.append(
            (
                f"invalid cache.ttl {_shown(cache['ttl'])} — write a positive duration such as '30m', '6h' or '7d'",
                ("ttl",),
            )
        )
    prints = cache.get("fingerprint")
    if "fingerprint" in cache and not isinstance(prints, list):
        out.append(("'cache.fingerprint' must be an array of strings", ("fingerprint",)))
    elif isinstance(prints, list):
        for i, entry in enumerate(prints):
            if not isinstance(entry, str):
                out.append(
                    (f"cache.fingerprint entries must be strings, got {json_type(entry)}", ("fingerprint", i))
                )
            elif not any(entry.startswith(p) and len(entry) > len(p) for p in CACHE_FINGERPRINT_PREFIXES):
                out.append(
                    (
                        f"invalid cache.fingerprint entry '{entry}' — write '<prefix><value>' with a prefix among "
                        f"{', '.join(CACHE_FINGERPRINT_PREFIXES)}",
                        ("fingerprint", i),
                    )
                )
    return out


def idle_zero_error(phase_idle: JSONValue, flow_idle: JSONValue, timeout: JSONValue) -> str | None:
    """An effective `idleTimeout: 0` (phase, else flow) needs a finite wall `timeout` >= 1000 ms."""
    effective = phase_idle if is_num(phase_idle) else flow_idle
    if not (is_num(effective) and effective == 0):
        return None
    if is_num(timeout) and timeout >= 1000:
        return None
    source = "its" if is_num(phase_idle) else "the flow's"
    return (
        f"{source} idleTimeout 0 disables the idle watchdog, so the phase could hang forever — add a "
        "'timeout' (>= 1000 ms) or use a positive 'idleTimeout'"
    )


def tree_reduce_calls(inputs: int, batch_size: int) -> int:
    """How many calls a tree reduce of `inputs` with `batch_size` makes (capped just past the limit)."""
    calls = 0
    remaining = inputs
    while remaining > 1 and calls <= TREE_REDUCE_MAX_CALLS:
        round_calls = math.ceil(remaining / batch_size)
        calls += round_calls
        remaining = round_calls
    return calls


# ---------------------------------------------------------------------------
# Typed args (docs/language.md §1.3): the declarations, and the values an invocation gives


def relative_path_error(value: JSONValue) -> str | None:
    """Why `value` is not a portable relative folder path, else None."""
    if not isinstance(value, str):
        return f"must be a string, got {json_type(value)}"
    text = unicodedata.normalize("NFC", value)
    if not text:
        return "must not be empty"
    if "\0" in text:
        return "must not contain NUL"
    if any(0 < ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "must not contain control characters"
    if "\\" in text:
        return "must use '/' separators, not backslashes"
    if text.startswith("/") or re.match(r"[A-Za-z]:", text):
        return "must be relative (absolute, drive, UNC and device paths are not allowed)"
    for segment in text.split("/"):
        if not segment:
            return "must not contain empty path segments"
        if segment in (".", ".."):
            return "must not contain '.' or '..' segments"
        if segment.endswith((".", " ")):
            return "segments must not end with a dot or a space"
        if _WIN_FORBIDDEN.search(segment) or _WIN_RESERVED.fullmatch(segment):
            return f"contains a segment that is not portable: '{segment}'"
    return None


def _expected(spec: Mapping[str, JSONValue]) -> str:
    kind = spec.get("type")
    if kind == "number":
        bounds = [
            f">= {_num(spec['minimum'])}" if is_num(spec.get("minimum")) else "",
            f"<= {_num(spec['maximum'])}" if is_num(spec.get("maximum")) else "",
        ]
        shown = " and ".join(b for b in bounds if b)
        return "a number" + (f" {shown}" if shown else "")
    if kind == "enum":
        return "one of " + ", ".join(_json(v) for v in _enum_values(spec))
    if kind == "relative-path":
        return "a relative folder path"
    return f"a {kind}"


def _enum_values(spec: Mapping[str, JSONValue]) -> list[JSONValue]:
    values = spec.get("values")
    return values if isinstance(values, list) else []


def _num(value: JSONValue) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _json(value: JSONValue) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return _num(value)


def arg_value_error(spec: Mapping[str, JSONValue], value: JSONValue) -> str | None:
    """Why `value` does not fit the typed arg `spec`, else None (untyped args accept anything)."""
    kind = spec.get("type")
    if kind == "relative-path":
        problem = relative_path_error(value)
        return (
            None
            if problem is None
            else f"{problem}, got {_json(value) if isinstance(value, str) else json_type(value)}"
        )
    if kind == "string":
        return None if isinstance(value, str) else f"must be a string, got {json_type(value)} {_json(value)}"
    if kind == "boolean":
        return (
            None if isinstance(value, bool) else f"must be a boolean, got {json_type(value)} {_json(value)}"
        )
    if kind == "number":
        if not is_num(value):
            return f"must be {_expected(spec)}, got {json_type(value)} {_json(value)}"
        low, high = spec.get("minimum"), spec.get("maximum")
        if is_num(low) and value < low or is_num(high) and value > high:
            return f"must be {_expected(spec)}, got {_json(value)}"
        return None
    if kind == "enum":
        if any(_same(v, value) for v in _enum_values(spec)):
            return None
        return f"must be {_expected(spec)}, got {_json(value)}"
    return None


def _same(a: JSONValue, b: JSONValue) -> bool:
    """JS `Object.is` on JSON scalars: a number never equals a string or a boolean."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_num(a) and is_num(b):
        return bool(a == b)
    return isinstance(a, str) and isinstance(b, str) and a == b


def arg_spec_errors(name: str, spec: JSONValue) -> list[tuple[str, JsonPath]]:
    """(message, path under `args.<name>`) of a declaration's problems."""
    base: JsonPath = ("args", name)
    if not isinstance(spec, dict):
        return [(f"Argument '{name}' must be an object, got {json_type(spec)}", base)]
    kind = spec.get("type")
    if "type" in spec and (not isinstance(kind, str) or kind not in ARG_TYPES):
        guess = did_you_mean(str(kind), ARG_TYPES) if isinstance(kind, str) else None
        hint = f" — did you mean '{guess}'?" if guess else ""
        return [
            (
                f"Argument '{name}': unknown type {_shown(kind)}{hint} (types: {', '.join(ARG_TYPES)})",
                (*base, "type"),
            )
        ]
    known = ARG_KEYS[kind if isinstance(kind, str) else None]
    out: list[tuple[str, JsonPath]] = []
    for key in spec:
        if key not in known:
            if key in ("minimum", "maximum", "values") or (kind is None and key == "type"):
                owner = "number" if key in ("minimum", "maximum") else "enum"
                message = f"Argument '{name}': '{key}' only applies to args of type '{owner}'"
                if kind is None:
                    message += f' — add "type": "{owner}"'
                out.append((message, (*base, key)))
            else:
                out.append((f"Argument '{name}': {unknown_field(key, known)}", (*base, key)))
    if "description" in spec and not isinstance(spec["description"], str):
        out.append((f"Argument '{name}': 'description' must be a string", (*base, "description")))
    if "required" in spec and not isinstance(spec["required"], bool):
        out.append((f"Argument '{name}': 'required' must be a boolean", (*base, "required")))
    if kind == "number":
        for key in ("minimum", "maximum"):
            if key in spec and not is_num(spec[key]):
                out.append((f"Argument '{name}': '{key}' must be a number", (*base, key)))
        low: JSONValue = spec.get("minimum")
        high: JSONValue = spec.get("maximum")
        if is_num(low) and is_num(high) and low > high:
            out.append(
                (
                    f"Argument '{name}': minimum ({_num(low)}) must be <= maximum ({_num(high)})",
                    (*base, "minimum"),
                )
            )
    if kind == "enum":
        values = spec.get("values")
        if not isinstance(values, list) or not values:
            out.append(
                (f"Argument '{name}': an enum arg needs 'values', a non-empty array", (*base, "values"))
            )
        elif not all(isinstance(v, str) or is_num(v) for v in values):
            out.append((f"Argument '{name}': enum values must be strings or numbers", (*base, "values")))
        elif len({(type(v) is str, v) for v in values}) != len(values):
            out.append((f"Argument '{name}': enum values must be unique", (*base, "values")))
    if kind is not None and "default" in spec and not out:
        problem = arg_value_error(spec, spec["default"])
        if problem is not None:
            out.append((f"Argument '{name}' default {problem}", (*base, "default")))
    return out


def _example(name: str, spec: Mapping[str, JSONValue]) -> str:
    """An `--arg` item that fits `spec`: NAME=VALUE passes a string, NAME:=JSON a typed value."""
    kind = spec.get("type")
    if kind == "number":
        low: JSONValue = spec.get("minimum")
        high: JSONValue = spec.get("maximum")
        value = low if is_num(low) else high if is_num(high) else 1
        return f"--arg {name}:={_num(value)}"
    if kind == "boolean":
        return f"--arg {name}:=true"
    if kind == "enum":
        values = _enum_values(spec)
        first = values[0] if values else "value"
        return f"--arg {name}={first}" if isinstance(first, str) else f"--arg {name}:={_json(first)}"
    return f"--arg {name}=src" if kind == "relative-path" else f"--arg {name}=text"


def invocation_errors(specs: Mapping[str, JSONValue], args: Mapping[str, JSONValue]) -> list[Diagnostic]:
    """The typed-arg errors of an invocation: a missing required typed arg, or a value of the wrong
    type or out of range. Untyped (legacy) args accept anything."""
    out: list[Diagnostic] = []
    for name, spec in specs.items():
        if not isinstance(spec, dict) or spec.get("type") not in ARG_TYPES:
            continue
        if name not in args:
            if spec.get("required") is True and "default" not in spec:
                out.append(
                    Diagnostic(
                        "error",
                        f"Missing required argument '{name}' ({_expected(spec)}) — pass it, e.g. {_example(name, spec)}",
                        field=f"args.{name}",
                        path=("args", name),
                    )
                )
            continue
        problem = arg_value_error(spec, args[name])
        if problem is not None:
            out.append(
                Diagnostic(
                    "error",
                    f"Argument '{name}' {problem} (type '{spec['type']}') — pass a value that fits, e.g. {_example(name, spec)}",
                    field=f"args.{name}",
                    path=("args", name),
                )
            )
    return out
