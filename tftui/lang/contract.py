"""Output contracts: the lenient JSON-Schema subset of docs/language.md §5.

Used by `expect` (agent/gate/reduce/loop outputs) and by the `json-schema` scorer.

Why this is written by hand rather than on top of the `jsonschema` library:

- A type mismatch must *stop descending* at that node. jsonschema reports every
  failing keyword of a node independently (a wrong type and an enum miss at once).
- The messages and their order are normative (`<path>: expected <t>, got <actual>`,
  `<path>.<key>: required key is missing`, …) and the list is capped at 8; jsonschema
  errors would have to be re-sorted into the reference's depth-first order and the
  missing key dug out of an English message.
- Malformed contracts are ignored keyword by keyword (an unknown `type` name, a
  non-array `required`, …) where jsonschema would raise SchemaError.
- Reference quirks: JSON `3.0` is an integer, and a `required` key that JavaScript
  finds on every object through its prototype (`toString`, …) counts as present.

A contract is compiled once into a small tree of checks (`compile_contract`,
cached per contract), so the json-schema scorer does not re-read the schema on
every evaluation. `contract_shape_errors` is the validation side (flow checks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeGuard

from tftui.lang.values import MISSING, JSONValue

MAX_VIOLATIONS = 8
TYPE_NAMES = ("object", "array", "string", "number", "integer", "boolean", "null")
KEYWORDS = ("type", "properties", "required", "items", "enum")
_KEYWORD_LIST = ", ".join(KEYWORDS)
NOT_AN_OBJECT = 'must be an object (a contract like {"type":"object","required":[…]})'

# Keys every JavaScript object answers through Object.prototype: the reference's
# `required` check (`key in value`) finds them on any object (conformance s105, js_artifact).
_JS_PROTOTYPE_KEYS = frozenset(
    {
        "constructor",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)


def _is_num(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_type_name(value: object) -> str:
    """The `<actual>` of a type violation."""
    if value is MISSING:
        return "nothing (not valid JSON?)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_num(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _has_type(value: object, name: str) -> bool:
    if name == "object":
        return isinstance(value, Mapping)
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "string":
        return isinstance(value, str)
    if name == "number":
        return _is_num(value)
    if name == "integer":  # JS Number.isInteger: JSON 3.0 counts (python_trap ct017)
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
        )
    if name == "boolean":
        return isinstance(value, bool)
    return value is None  # "null"


def js_deep_equal(a: object, b: object) -> bool:
    """Deep equality of JSON values: key order ignored, `true` is not `1`, `1` equals `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_num(a) or _is_num(b):
        return _is_num(a) and _is_num(b) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return len(a) == len(b) and all(k in b and js_deep_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(js_deep_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (Mapping, list, tuple)) or isinstance(b, (Mapping, list, tuple)):
        return False
    return a == b  # strings and null


# A compiled check appends violations for `value` at `path` to `out` (stops at MAX_VIOLATIONS).
Check = Callable[[JSONValue, str, list[str]], None]


def _noop(value: JSONValue, path: str, out: list[str]) -> None:
    return None


def _compile(schema: JSONValue) -> Check:
    if not isinstance(schema, Mapping):
        return _noop  # a contract that is not an object checks nothing
    type_name = schema.get("type")
    if type_name not in TYPE_NAMES:
        type_name = None  # unknown type names are ignored (ct040)
    required = schema.get("required")
    required = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
    properties = schema.get("properties")
    props: list[tuple[str, Check]] = (
        [(str(k), _compile(sub)) for k, sub in properties.items()] if isinstance(properties, Mapping) else []
    )
    has_items = "items" in schema
    items = _compile(schema.get("items")) if has_items else None
    enum = schema.get("enum")
    enum = list(enum) if isinstance(enum, list) and enum else None
    if type_name is None:  # implied type (docs/language.md §5)
        if "properties" in schema or "required" in schema:
            type_name = "object"
        elif has_items:
            type_name = "array"

    def check(value: JSONValue, path: str, out: list[str]) -> None:
        if len(out) >= MAX_VIOLATIONS:
            return
        is_map = type(value) is dict or isinstance(value, Mapping)
        if type_name is not None and not (is_map if type_name == "object" else _has_type(value, type_name)):
            out.append(f"{path}: expected {type_name}, got {js_type_name(value)}")
            return  # a wrong type stops the descent
        if enum is not None and not any(js_deep_equal(value, lit) for lit in enum):
            out.append(f"{path}: value is not one of the allowed enum literals")
        if is_map:
            for key in required:
                if key not in value and key not in _JS_PROTOTYPE_KEYS:
                    if len(out) >= MAX_VIOLATIONS:
                        return
                    out.append(f"{path}.{key}: required key is missing")
            for key, sub in props:
                if key in value:
                    sub(value[key], f"{path}.{key}", out)
        elif items is not None and isinstance(value, (list, tuple)):
            for i, element in enumerate(value):
                if len(out) >= MAX_VIOLATIONS:
                    return
                items(element, f"{path}[{i}]", out)

    return check


def _object_keys(schema: JSONValue) -> frozenset[str] | None:
    """When `schema` is a plain object contract (its type `object`, stated or implied by
    `required`, or none; no `properties` to descend into, no `enum`), the keys an object must
    hold for `_compile(schema)` to report nothing: its `required` names, less the keys JavaScript
    finds on every object. None for any other contract."""
    if not isinstance(schema, Mapping):
        return None
    type_name = schema.get("type")
    if type_name not in TYPE_NAMES:
        type_name = None
    properties = schema.get("properties")
    enum = schema.get("enum")
    if (isinstance(properties, Mapping) and properties) or (isinstance(enum, list) and enum):
        return None
    if type_name is None and "items" in schema and "properties" not in schema and "required" not in schema:
        return None  # implied array
    if type_name not in (None, "object"):
        return None
    required = schema.get("required")
    names = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
    return frozenset(names) - _JS_PROTOTYPE_KEYS


class ContractPlan(NamedTuple):
    """A compiled contract: its check, and for a plain object contract the keys that let a
    caller skip the check (`type(value) is dict and value.keys() >= object_keys`: no violations)."""

    check: Check
    object_keys: frozenset[str] | None


# Compiled contracts, cached twice: by the schema's repr, so equal schemas written out in many
# phases (1,000 score gates with one json-schema scorer) compile once (repr tells 1 from 1.0 from
# True, so equal keys mean the same contract; an in-place edit changes the repr), and, for
# `compile_contract`, by the schema object (id, confirmed by equality with a private snapshot, so
# a hot path passing the same object pays a dict lookup and a compare).
_BY_ID: dict[int, tuple[JSONValue, object, Check]] = {}
_BY_TEXT: dict[str, ContractPlan] = {}
_CACHE_MAX = 4096


def plan_contract(schema: JSONValue) -> ContractPlan:
    """`schema` compiled, cached by its text only: for a caller that keeps the result with its own
    snapshot of the schema (a scorer's plan). Raises RecursionError on a contract too deep to walk."""
    try:
        key: str | None = repr(schema)
    except (RecursionError, ValueError):  # too deep to print: compiled, not cached
        key = None
    plan = _BY_TEXT.get(key) if key is not None else None
    if plan is None:
        plan = ContractPlan(_compile(schema), _object_keys(schema))
        if key is not None:
            if len(_BY_TEXT) >= _CACHE_MAX:
                _BY_TEXT.clear()
            _BY_TEXT[key] = plan
    return plan


def compile_contract(schema: JSONValue) -> Check:
    entry = _BY_ID.get(id(schema))
    if entry is not None and entry[0] is schema and entry[1] == schema:
        return entry[2]
    compiled = plan_contract(schema).check
    if len(_BY_ID) >= _CACHE_MAX:
        _BY_ID.clear()
    # Keep the object alive (so its id is not reused) and a snapshot to detect in-place edits.
    _BY_ID[id(schema)] = (schema, snapshot(schema), compiled)
    return compiled


class _SameBool:
    """A boolean in a snapshot: equal to that boolean only (in Python, False == 0 and True == 1.0)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return other is self.value

    __hash__ = None  # type: ignore[assignment]


def snapshot(value: JSONValue) -> object:
    """A copy of `value`'s objects and arrays that compares equal to it until it is edited in place
    (a boolean turned into a number included): how a cache keyed by an object's id tells that the
    object changed. Only for comparing: its booleans are wrapped."""
    kind = type(value)
    if kind is dict:  # leaves copied in the comprehension (a call each would double the cost)
        return {k: v if type(v) in _LEAVES else snapshot(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _LEAVES else snapshot(v) for v in value]
    if value is True or value is False:
        return _SameBool(value)
    if isinstance(value, Mapping):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snapshot(v) for v in value]
    return value


_LEAVES = frozenset({str, int, float, type(None)})


def contract_violations(value: JSONValue, schema: JSONValue) -> list[str]:
    """Violations of `schema` by `value` (MISSING = nothing parsed), at most 8; [] when it holds."""
    out: list[str] = []
    try:
        compile_contract(schema)(value, "$", out)
    except RecursionError:
        out.append("$: contract too deeply nested to check")
    return out


def contract_shape_errors(schema: JSONValue, path: str = "$") -> list[str]:
    """Validation-time errors of a contract (the checker itself ignores all of these). Never raises:
    a contract nested too deep to walk is one error."""
    try:
        return _shape_errors(schema, path)
    except RecursionError:
        return [f"{path}: contract too deeply nested to check"]


def _shape_errors(schema: JSONValue, path: str) -> list[str]:
    if not isinstance(schema, Mapping):
        return [f"{path}: {NOT_AN_OBJECT}"]
    errors: list[str] = []
    for key in schema:
        if key not in KEYWORDS:
            errors.append(f"{path}.{key}: unknown contract keyword (supported: {_KEYWORD_LIST})")
    if "type" in schema and not (isinstance(schema["type"], str) and schema["type"] in TYPE_NAMES):
        errors.append(f"{path}.type: must be one of {'|'.join(TYPE_NAMES)}")
    if "required" in schema:
        required = schema["required"]
        if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
            errors.append(f"{path}.required: must be an array of key names (strings)")
    if "properties" in schema:
        properties = schema["properties"]
        if not isinstance(properties, Mapping):
            errors.append(f"{path}.properties: must be an object mapping keys to contracts")
        else:
            for key, sub in properties.items():
                errors.extend(_shape_errors(sub, f"{path}.properties.{key}"))
    if "items" in schema:
        errors.extend(_shape_errors(schema["items"], f"{path}.items"))
    if "enum" in schema:
        enum = schema["enum"]
        if not isinstance(enum, list) or not enum:
            errors.append(f"{path}.enum: must be a non-empty array of allowed literals")
    return errors
