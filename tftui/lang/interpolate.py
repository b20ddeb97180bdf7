"""Placeholders: resolve `{path}` refs against a run context and fill templates (docs/language.md §3).

Hot path notes: a template is compiled once (LRU) into literal pieces plus one
resolver closure per placeholder; a ref path is compiled once (LRU) into a closure
that dispatches on its head at compile time. Nothing here raises on user input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import MISSING, JSONObject, JSONValue, template_text

FAILED_SENTINEL = "[previous phase failed]"

# docs/language.md §3.1: `{` segment ("." segment)* `}` with segment = [a-zA-Z0-9_-]+ (ASCII only).
PLACEHOLDER_RE = re.compile(r"\{([a-zA-Z0-9_-]+(?:\.[a-zA-Z0-9_-]+)*)\}")

_NOPE: Final = object()  # "key absent" marker for dict.get (distinct from MISSING values)
_UNPARSED: Final = object()


# --------------------------------------------------------------------------- context


@dataclass(slots=True)
class StepView:
    """What a downstream placeholder sees of a finished (done or failed) phase."""

    output: str
    json: JSONValue = MISSING
    status: str = "done"
    error: str | None = None
    _parsed: JSONValue = field(default=_UNPARSED, init=False, repr=False, compare=False)
    _parsed_src: str | None = field(default=None, init=False, repr=False, compare=False)

    def json_value(self) -> JSONValue:
        """`{steps.ID.json}`: stored json, else (MISSING or null, as JS `??`) a cached lenient parse."""
        if self.status == "failed":
            return MISSING
        stored = self.json
        if stored is not MISSING and stored is not None:
            return stored
        # Cache keyed on the identity of the output string, so a reassigned output re-parses.
        if self._parsed is _UNPARSED or self._parsed_src is not self.output:
            self._parsed = lenient_parse(self.output)
            self._parsed_src = self.output
        return self._parsed

    def error_value(self) -> JSONValue:
        """`{steps.ID.error}` (tftui extension): the error text of a failed phase, else MISSING."""
        if self.status == "failed" and isinstance(self.error, str):
            return self.error
        return MISSING


@dataclass(slots=True)
class Context:
    args: JSONObject
    steps: dict[str, StepView]
    previous_output: str | None = None
    locals: JSONObject = field(default_factory=dict)
    reflexion: str | None = None


@dataclass(slots=True)
class Interpolated:
    text: str
    missing: list[str]


# --------------------------------------------------------------------------- JS property walk


class JSFunction:
    """A JS prototype method reached by a path such as `{args.toString}` (js_artifact emulation).

    It is truthy, stringifies as JS `String(fn)` in comparisons, and inserts as `undefined`
    into templates (JSON.stringify(fn) is undefined, then string concatenation).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"JSFunction({self.name})"

    def js_string(self) -> str:
        return f"function {self.name}() {{ [native code] }}"


_OBJECT_PROTO = frozenset(
    "constructor hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf "
    "__defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__".split()
)
_ARRAY_PROTO = _OBJECT_PROTO | frozenset(
    "at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap "
    "forEach includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice "
    "some sort splice toReversed toSorted toSpliced unshift values with".split()
)
_STRING_PROTO = _OBJECT_PROTO | frozenset(
    "at charAt charCodeAt codePointAt concat endsWith includes indexOf isWellFormed lastIndexOf "
    "localeCompare match matchAll normalize padEnd padStart repeat replace replaceAll search slice "
    "split startsWith substr substring toLocaleLowerCase toLocaleUpperCase toLowerCase toUpperCase "
    "toWellFormed trim trimEnd trimStart trimLeft trimRight anchor big blink bold fixed fontcolor "
    "fontsize italics link small strike sub sup".split()
)
_NUMBER_PROTO = _OBJECT_PROTO | frozenset("toExponential toFixed toPrecision".split())


def _is_index(key: str) -> bool:
    """A canonical JS array index: ASCII digits, no leading zero (so `01` and `-1` are not)."""
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0")


def _utf16_units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def utf16_len(text: str) -> int:
    """JS `.length`: UTF-16 code units."""
    return len(text) if text.isascii() else len(_utf16_units(text)) // 2


def js_get(value: JSONValue, key: str) -> JSONValue:
    """`value[key]` as JS property access, MISSING for undefined; never raises."""
    if isinstance(value, dict):
        found = value.get(key, _NOPE)
        if found is not _NOPE:
            return found
        if key == "__proto__":
            return {}
        return JSFunction(key) if key in _OBJECT_PROTO else MISSING
    if isinstance(value, str):
        if key == "length":
            return utf16_len(value)
        if _is_index(key):
            index = int(key)
            if value.isascii():
                return value[index] if index < len(value) else MISSING
            units = _utf16_units(value)
            if index * 2 >= len(units):
                return MISSING
            return units[index * 2 : index * 2 + 2].decode("utf-16-le", "surrogatepass")
        return JSFunction(key) if key in _STRING_PROTO else MISSING
    if isinstance(value, (list, tuple)):
        if _is_index(key):
            index = int(key)
            return value[index] if index < len(value) else MISSING
        if key == "length":
            return len(value)
        if key == "__proto__":
            return []
        return JSFunction(key) if key in _ARRAY_PROTO else MISSING
    if value is None or value is MISSING or isinstance(value, JSFunction):
        return MISSING
    if isinstance(value, bool):
        return JSFunction(key) if key in _OBJECT_PROTO else MISSING
    if isinstance(value, (int, float)):
        return JSFunction(key) if key in _NUMBER_PROTO else MISSING
    return MISSING


def walk(value: JSONValue, segments: tuple[str, ...] | list[str]) -> JSONValue:
    for key in segments:
        if value is MISSING:
            return MISSING
        value = js_get(value, key)
    return value


# --------------------------------------------------------------------------- ref compilation

Resolver = Callable[[Context], JSONValue]


def _const_missing(ctx: Context) -> JSONValue:
    return MISSING


def _previous_output(ctx: Context) -> JSONValue:
    prev = ctx.previous_output
    return MISSING if prev is None else prev


def _reflexion(ctx: Context) -> JSONValue:
    if ctx.reflexion is not None:
        return ctx.reflexion
    return ctx.locals.get("reflexion", MISSING)


def _args_resolver(rest: tuple[str, ...]) -> Resolver:
    if not rest:
        return lambda ctx: ctx.args
    if len(rest) == 1:
        key = rest[0]

        def one(ctx: Context) -> JSONValue:
            args = ctx.args
            if type(args) is dict:  # fast path: a plain own key
                found = args.get(key, _NOPE)
                if found is not _NOPE:
                    return found
            return js_get(args, key)

        return one
    return lambda ctx: walk(ctx.args, rest)


def _steps_resolver(step_id: str, fieldname: str, rest: tuple[str, ...]) -> Resolver:
    if fieldname == "output" and not rest:

        def output(ctx: Context) -> JSONValue:
            step = ctx.steps.get(step_id)
            if step is None:
                return MISSING
            # the failed-phase sentinel for a failed phase (docs/language.md §3.2, D3)
            return step.output if step.status != "failed" else FAILED_SENTINEL

        return output
    if fieldname == "error" and not rest:

        def error(ctx: Context) -> JSONValue:
            step = ctx.steps.get(step_id)
            return MISSING if step is None else step.error_value()

        return error
    if fieldname != "json":
        return _const_missing
    if len(rest) == 1:
        key = rest[0]

        def json_one(ctx: Context) -> JSONValue:
            step = ctx.steps.get(step_id)
            if step is None:
                return MISSING
            data = step.json
            if data is MISSING or data is None or step.status == "failed":
                data = step.json_value()
            if type(data) is dict:
                found = data.get(key, _NOPE)
                if found is not _NOPE:
                    return found
            return MISSING if data is MISSING else js_get(data, key)

        return json_one

    def json_path(ctx: Context) -> JSONValue:
        step = ctx.steps.get(step_id)
        return MISSING if step is None else walk(step.json_value(), rest)

    return json_path


def _local_resolver(head: str, rest: tuple[str, ...]) -> Resolver:
    def local(ctx: Context) -> JSONValue:
        value = ctx.locals.get(head, _NOPE)
        if value is _NOPE:
            return MISSING
        return walk(value, rest) if rest else value

    return local


@lru_cache(maxsize=8192)
def compile_ref(path: str) -> Resolver:
    """The resolver for one ref path (docs/language.md §3.2 resolution by head)."""
    segments = tuple(path.split("."))
    head, rest = segments[0], segments[1:]
    if head == "previous":
        return _previous_output if rest and rest[0] == "output" else _const_missing
    if head == "reflexion":
        return _const_missing if rest else _reflexion
    if head == "args":
        return _args_resolver(rest)
    if head == "steps":
        if len(rest) < 2:
            return _const_missing
        return _steps_resolver(rest[0], rest[1], rest[2:])
    return _local_resolver(head, rest)


def resolve(ref: str, ctx: Context) -> JSONValue:
    """Raw value of a ref path (no braces), MISSING when unresolved. Never raises."""
    if not isinstance(ref, str):
        return MISSING
    try:
        return compile_ref(ref)(ctx)
    except Exception:  # a malformed context (wrong types) must not crash the caller
        return MISSING


# --------------------------------------------------------------------------- templates


def value_text(value: JSONValue) -> str:
    """Insertion text of a resolved (non-MISSING) value: docs/language.md §3.5, plus JS functions → `undefined`."""
    if isinstance(value, JSFunction):
        return "undefined"
    return template_text(value)


# Large enough for every task of a 16,000-phase flow: a cache smaller than the flow's own
# templates is missed on every run, so a big flow paid a compile per phase that a small one
# did not (the per-phase time grew with the flow). An entry holds about twice its template, so
# the big cache takes only short templates (at most ~128 MB however many edits a hot-reload
# session makes); long prompts share a small one (their compile is cheap beside their size).
_SHORT_TEMPLATE = 1024


def _compile_template(template: str) -> tuple[str, tuple[tuple[str, Resolver], ...]]:
    if len(template) <= _SHORT_TEMPLATE:
        return _compile_short(template)
    return _compile_long(template)


@lru_cache(maxsize=1 << 16)
def _compile_short(template: str) -> tuple[str, tuple[tuple[str, Resolver], ...]]:
    return _compile_uncached(template)


@lru_cache(maxsize=256)
def _compile_long(template: str) -> tuple[str, tuple[tuple[str, Resolver], ...]]:
    return _compile_uncached(template)


def _compile_uncached(template: str) -> tuple[str, tuple[tuple[str, Resolver], ...]]:
    """A template as a `%`-format string (literals escaped) plus (path, resolver) per placeholder."""
    pieces: list[str] = []
    refs: list[tuple[str, Resolver]] = []
    last = 0
    for match in PLACEHOLDER_RE.finditer(template):
        pieces.append(template[last : match.start()].replace("%", "%%"))
        pieces.append("%s")
        refs.append((match.group(1), compile_ref(match.group(1))))
        last = match.end()
    pieces.append(template[last:].replace("%", "%%"))
    return "".join(pieces), tuple(refs)


def interpolate(template: JSONValue, ctx: Context) -> Interpolated:
    """Fill `{path}` placeholders; unresolved ones stay verbatim and are listed (in order, with duplicates)."""
    if type(template) is not str:
        if not isinstance(template, str):
            template = "" if template is None or template is MISSING else value_text(template)
        template = str(template)
    if "{" not in template:
        return Interpolated(template, [])
    # (`_compile_template` without its frame: this runs for every task of every phase)
    form, refs = (_compile_short if len(template) <= _SHORT_TEMPLATE else _compile_long)(template)
    if not refs:
        return Interpolated(template, [])
    texts: list[str] = []
    missing: list[str] = []
    for path, resolver in refs:
        try:
            value = resolver(ctx)
        except Exception:  # a malformed context: treat the ref as unresolved
            value = MISSING
        if type(value) is str:
            texts.append(value)
        elif value is MISSING:
            texts.append("{" + path + "}")
            missing.append(path)
        else:
            texts.append(value_text(value))
    return Interpolated(form % tuple(texts), missing)


# Heads whose value is the same for every item of a map phase (docs/language.md §3.2): the rest
# (`{item…}`, any other local name, a bare `{reflexion}`) are read from the item's locals.
_SHARED_HEADS = frozenset({"previous", "args", "steps"})


def _per_item(path: str) -> bool:
    head, _, rest = path.partition(".")
    return head not in _SHARED_HEADS and not (head == "reflexion" and rest)


class ItemTemplate:
    """One template filled for many values of a local (the items of a map phase): `fill(value)`
    is what `interpolate(template, Context(…, locals={name: value}))` gives, with the placeholders
    that do not read the local resolved once instead of once per item.

    The shared context must not change between `fill` calls (a map renders every item's task
    before the first one runs)."""

    __slots__ = ("_ctx", "_locals", "_name", "_form", "_texts", "_slots", "_missing_at", "_paths", "_plain",
                 "_template")

    def __init__(self, template: str, ctx: Context, name: str) -> None:
        self._template = template
        self._locals: JSONObject = {}
        self._ctx = Context(ctx.args, ctx.steps, ctx.previous_output, self._locals, ctx.reflexion)
        self._name = name
        form, refs = _compile_template(template) if "{" in template else ("", ())
        self._plain: str | None = None if refs else template
        self._form = form
        self._paths = tuple(path for path, _resolver in refs)
        texts: list[str] = []
        # (index, path, resolver, key): `key` for `{name.key}`, read straight from a dict item
        slots: list[tuple[int, str, Resolver, str | None]] = []
        missing_at: list[int] = []
        for index, (path, resolver) in enumerate(refs):
            if _per_item(path):
                texts.append("")
                head, _, key = path.partition(".")
                own_key = key if head == name and key and "." not in key else None
                slots.append((index, path, resolver, own_key))
                continue
            try:
                shared = resolver(self._ctx)
            except Exception:  # a malformed context: treat the ref as unresolved (as `interpolate`)
                shared = MISSING
            text, missing = _filled(path, shared)
            texts.append(text)
            if missing:
                missing_at.append(index)
        self._texts = texts
        self._slots = tuple(slots)
        self._missing_at = tuple(missing_at)  # shared placeholders left unresolved

    def fill(self, value: JSONValue) -> Interpolated:
        if self._plain is not None:
            return Interpolated(self._plain, [])
        try:
            return self._fill(value)
        except Exception:  # a resolver that raised: `interpolate` itself says what that gives
            return interpolate(self._template, Context(self._ctx.args, self._ctx.steps, self._ctx.previous_output,
                                                       {self._name: value}, self._ctx.reflexion))

    def _fill(self, value: JSONValue) -> Interpolated:
        self._locals[self._name] = value
        ctx = self._ctx
        texts = self._texts.copy()
        missing_here: list[int] | None = None
        own = value if type(value) is dict else None
        for index, path, resolver, key in self._slots:
            # an own key of a dict item is what the resolver would find (js_get of a present key)
            found = own.get(key, _NOPE) if key is not None and own is not None else _NOPE
            text, missing = _filled(path, resolver(ctx) if found is _NOPE else found)
            texts[index] = text
            if missing:
                missing_here = [index] if missing_here is None else [*missing_here, index]
        text = self._form % tuple(texts)
        if missing_here is None and not self._missing_at:
            return Interpolated(text, [])
        # unresolved placeholders in template order, with duplicates (as `interpolate` lists them)
        at = sorted((*self._missing_at, *(missing_here or ())))
        return Interpolated(text, [self._paths[index] for index in at])


_SAFE_INT = 2**53  # below it, a JS number prints as Python prints the int (js_number_str)


def _filled(path: str, value: JSONValue) -> tuple[str, bool]:
    """(insertion text, unresolved?) of one placeholder's value, as `interpolate` fills it."""
    kind = type(value)
    if kind is str:
        return value, False
    if kind is int and -_SAFE_INT < value < _SAFE_INT:
        return str(value), False
    if value is MISSING:
        return "{" + path + "}", True
    return value_text(value), False


def interpolate_value(value: JSONValue, ctx: Context) -> JSONValue:
    """docs/language.md §3.8: an exact single placeholder keeps its type; mixed strings become text; others pass.

    A JS prototype function (js_artifact) is treated as unresolved here, so it never leaks
    into structured values.
    """
    if not isinstance(value, str):
        return value
    match = PLACEHOLDER_RE.fullmatch(value)
    if match:
        resolved = resolve(match.group(1), ctx)
        if resolved is MISSING or isinstance(resolved, JSFunction):
            return value
        return resolved
    return interpolate(value, ctx).text


def placeholders(template: JSONValue) -> list[str]:
    """Ref paths of a template, in order of first appearance, without duplicates."""
    if not isinstance(template, str):
        return []
    seen: dict[str, None] = {}
    for match in PLACEHOLDER_RE.finditer(template):
        seen.setdefault(match.group(1), None)
    return list(seen)


def missing_warning(missing: list[str]) -> str:
    """docs/language.md §3.6 phase warning for unresolved refs (de-duplicated, in order)."""
    unique = list(dict.fromkeys(missing))
    refs = ", ".join("{" + path + "}" for path in unique)
    return f"unresolved refs in task: {refs} — left intact (check dependsOn / placeholder spelling)"
