"""The condition language of `when`, `until` and gate `eval` (docs/language.md §4).

parse: tokenizer (docs/language.md §4.1) + an iterative operator-precedence parser (docs/language.md §4.2), so deeply
nested parentheses cannot overflow the Python stack. evaluate: the AST is compiled
once per expression text (LRU) into closures; evaluating a cached guard does no
parsing and allocates nothing but the resolved values. Never uses host `eval`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from tftui.lang.interpolate import Context, JSFunction, compile_ref, interpolate, missing_warning, resolve
from tftui.lang.jsops import ORDER, compare, js_numeric, js_string, str_compare, truthy
from tftui.lang.values import JS_WHITESPACE, MISSING, JSONValue, js_json_stringify, js_trim


class ConditionSyntaxError(Exception):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def __repr__(self) -> str:
        return f"ConditionSyntaxError({self.message!r}, {self.position})"


@dataclass(frozen=True, slots=True)
class CondResult:
    value: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class EvalCheck:
    passed: bool
    detail: str


# ----------------------------------------------------------------------------- AST

LitValue = str | float | bool | None  # a literal of the condition language


@dataclass(frozen=True, slots=True)
class Lit:
    value: LitValue


@dataclass(frozen=True, slots=True)
class Ref:
    path: str  # trimmed placeholder content, not charset-checked (docs/language.md §3.1)


@dataclass(frozen=True, slots=True)
class Not:
    operand: Expr
    count: int = 1  # `!!!x` is kept as one node: deep `!` chains stay shallow


@dataclass(frozen=True, slots=True)
class Logic:
    op: str  # "&&" or "||"; same-op chains are flattened into one n-ary node
    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Cmp:
    op: str
    left: Expr
    right: Expr


Expr = Lit | Ref | Not | Logic | Cmp

# ----------------------------------------------------------------------------- tokenizer

_SKIP = " \t\r\n"  # only these separate tokens; other JS whitespace is an unexpected char
_BARE_STOP = frozenset(JS_WHITESPACE + "&|!=<>()\"'{}")
_OPS2 = ("&&", "||", "==", "!=", ">=", "<=")
_OPS1 = "><!()"
_NUMBER_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_KEYWORDS = {"true": True, "false": False, "null": None}
_CMP_OPS = frozenset(("==", "!=", ">", "<", ">=", "<="))

# token = (kind, value, position); kind: "op" | "lit" | "ref"; an op's or ref's value is its text
Token = tuple[str, LitValue, int]


def tokenize(expr: str) -> list[Token]:
    """Tokens of a condition (positions index the original text). Raises ConditionSyntaxError."""
    start = len(expr) - len(expr.lstrip(JS_WHITESPACE))
    body = js_trim(expr)
    tokens: list[Token] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        pos = start + i
        if c in _SKIP:
            i += 1
        elif c == "{":
            close = body.find("}", i + 1)
            if close < 0:
                raise ConditionSyntaxError("unterminated placeholder", pos)
            tokens.append(("ref", js_trim(body[i + 1 : close]), pos))
            i = close + 1
        elif c == '"' or c == "'":
            chars: list[str] = []
            j = i + 1
            while j < n and body[j] != c:
                if body[j] == "\\":
                    j += 1
                    if j >= n:
                        break
                chars.append(body[j])
                j += 1
            if j >= n:
                raise ConditionSyntaxError("unterminated string", pos)
            tokens.append(("lit", "".join(chars), pos))
            i = j + 1
        elif body.startswith(_OPS2, i):
            tokens.append(("op", body[i : i + 2], pos))
            i += 2
        elif c in _OPS1:
            tokens.append(("op", c, pos))
            i += 1
        else:
            number = _NUMBER_RE.match(body, i)
            if number:
                tokens.append(("lit", float(number.group()), pos))
                i = number.end()
                continue
            j = i
            while j < n and body[j] not in _BARE_STOP:
                j += 1
            if j == i:
                raise ConditionSyntaxError(f"unexpected char '{c}'", pos)
            word = body[i:j]
            tokens.append(("lit", _KEYWORDS[word] if word in _KEYWORDS else word, pos))
            i = j
    return tokens


# ----------------------------------------------------------------------------- parser

_PREC = {"||": 1, "&&": 2, "!": 3}  # comparisons bind tightest (4)


def _reduce(op: str, out: list[Expr]) -> None:
    if op == "!":
        operand = out.pop()
        out.append(Not(operand.operand, operand.count + 1) if isinstance(operand, Not) else Not(operand))
        return
    right = out.pop()
    left = out.pop()
    if op in _CMP_OPS:
        out.append(Cmp(op, left, right))
        return
    parts = (left.operands if isinstance(left, Logic) and left.op == op else (left,)) + (
        right.operands if isinstance(right, Logic) and right.op == op else (right,)
    )
    out.append(Logic(op, parts))


def _parse_tokens(tokens: list[Token], end: int) -> Expr:
    """Operator precedence with explicit stacks; errors match the recursive grammar of docs/language.md §4.2."""
    out: list[Expr] = []
    ops: list[tuple[str, int]] = []  # (operator or "(", position)
    # Per open parenthesis level: was this group the right operand of a comparison?
    cmp_rhs_stack: list[bool] = []
    expect_operand = True
    primary_only = False  # right after a comparison operator: `!` is not allowed
    cmp_rhs = False  # the operand being read is a comparison's right side
    can_compare = False  # the last operand is a bare primary (comparisons are non-associative)
    for kind, value, pos in tokens:
        if expect_operand:
            if kind != "op":
                out.append(Lit(value) if kind == "lit" else Ref(str(value)))  # a ref token holds text
                can_compare, cmp_rhs, primary_only = not cmp_rhs, False, False
                expect_operand = False
            elif value == "(":
                ops.append(("(", pos))
                cmp_rhs_stack.append(cmp_rhs)
                cmp_rhs, primary_only = False, False
            elif value == "!" and not primary_only:
                ops.append(("!", pos))
            else:
                raise ConditionSyntaxError(f"unexpected operator '{value}'", pos)
            continue
        if kind == "op" and value in _CMP_OPS and can_compare:
            ops.append((value, pos))
            expect_operand, primary_only, cmp_rhs, can_compare = True, True, True, False
        elif kind == "op" and value in ("&&", "||"):
            prec = _PREC[value]
            while ops and ops[-1][0] != "(" and _PREC.get(ops[-1][0], 4) >= prec:
                _reduce(ops.pop()[0], out)
            ops.append((value, pos))
            expect_operand, can_compare = True, False
        elif kind == "op" and value == ")" and cmp_rhs_stack:
            while ops[-1][0] != "(":
                _reduce(ops.pop()[0], out)
            ops.pop()
            # The group is a primary; unless it was a comparison's right side it may be compared.
            can_compare = not cmp_rhs_stack.pop()
        else:
            raise ConditionSyntaxError("missing )" if cmp_rhs_stack else "trailing tokens", pos)
    if expect_operand:
        raise ConditionSyntaxError("unexpected end", end)
    if cmp_rhs_stack:
        raise ConditionSyntaxError("missing )", end)
    while ops:
        _reduce(ops.pop()[0], out)
    return out[0]


def _parse_uncached(expr: str) -> Expr | ConditionSyntaxError:
    try:
        tokens = tokenize(expr)
        if not tokens:
            return Lit(True)  # empty / whitespace-only: true, no error (docs/language.md §4.6)
        return _parse_tokens(tokens, len(expr.rstrip(JS_WHITESPACE)))
    except ConditionSyntaxError as exc:
        return exc


_parse_cached = lru_cache(maxsize=4096)(_parse_uncached)


def parse(expr: str) -> Expr:
    """AST of a condition; raises ConditionSyntaxError(message, position). Cached by text."""
    if not isinstance(expr, str):
        raise ConditionSyntaxError("condition must be a string", 0)
    result = _parse_cached(expr)
    if isinstance(result, ConditionSyntaxError):
        raise ConditionSyntaxError(result.message, result.position)
    return result


def syntax_error(expr: str) -> ConditionSyntaxError | None:
    if not isinstance(expr, str):
        return ConditionSyntaxError("condition must be a string", 0)
    result = _parse_cached(expr)
    return result if isinstance(result, ConditionSyntaxError) else None


# ----------------------------------------------------------------------------- compilation

Getter = Callable[[Context], JSONValue]


def _lit_getter(value: LitValue) -> Getter:
    return lambda ctx: value


def _compile_value(node: Expr) -> Getter:
    if isinstance(node, Lit):
        return _lit_getter(node.value)
    if isinstance(node, Ref):
        return compile_ref(node.path)
    return _compile_bool(node)


def _compile_cmp(node: Cmp) -> Getter:
    op, order = node.op, ORDER[node.op]
    left = _compile_value(node.left)
    if isinstance(node.right, Lit):
        literal = node.right.value
        text, number = js_string(literal), js_numeric(literal)
        if number is None:  # a non-numeric literal: always a string comparison
            if op == "==":
                return lambda ctx: js_string(left(ctx)) == text
            if op == "!=":
                return lambda ctx: js_string(left(ctx)) != text
            return lambda ctx: str_compare(op, js_string(left(ctx)), text)

        def against_number(ctx: Context) -> bool:
            value = left(ctx)
            mine = js_numeric(value)
            if mine is not None:
                return order(mine, number)
            return str_compare(op, js_string(value), text)

        return against_number
    right = _compile_value(node.right)
    return lambda ctx: compare(op, left(ctx), right(ctx))


def _compile_bool(node: Expr) -> Getter:
    """A closure returning the node's truthiness as a bool."""
    if isinstance(node, Lit):
        constant = truthy(node.value)
        return lambda ctx: constant
    if isinstance(node, Ref):
        resolver = compile_ref(node.path)
        return lambda ctx: truthy(resolver(ctx))
    if isinstance(node, Cmp):
        return _compile_cmp(node)
    if isinstance(node, Not):
        inner = _compile_bool(node.operand)
        if node.count % 2:
            return lambda ctx: not inner(ctx)
        return inner
    parts = tuple(_compile_bool(operand) for operand in node.operands)
    if len(parts) == 2:
        first, second = parts
        if node.op == "&&":
            return lambda ctx: first(ctx) and second(ctx)
        return lambda ctx: first(ctx) or second(ctx)
    if node.op == "&&":
        return lambda ctx: all(part(ctx) for part in parts)
    return lambda ctx: any(part(ctx) for part in parts)


@lru_cache(maxsize=4096)
def _compiled(expr: str) -> tuple[Getter | None, str | None]:
    parsed = _parse_cached(expr)
    if isinstance(parsed, ConditionSyntaxError):
        return None, parsed.message
    try:
        return _compile_bool(parsed), None
    except RecursionError:
        return None, "expression nested too deeply"


_TRUE = CondResult(True, None)
_FALSE = CondResult(False, None)


def evaluate(expr: str, ctx: Context) -> CondResult:
    """Truthiness of a condition. Never raises; any error fails open (value true, error set)."""
    if not isinstance(expr, str):
        return CondResult(True, "condition must be a string")
    fn, error = _compiled(expr)
    if fn is None:
        return CondResult(True, error)
    try:
        return _TRUE if fn(ctx) else _FALSE
    except Exception as exc:  # a malformed context; conditions fail open
        return CondResult(True, f"evaluation failed: {type(exc).__name__}")


# ----------------------------------------------------------------------------- gate eval entries

_CONTAINS = " contains "


# A `when` guard (docs/scheduling.md §2.1 and §2.3, check 4): the engine's admission, the guard
# editor and the skip explanations read these, so blank and the skip reason are written once.
UNMET = "Condition not met"


def is_blank(expr: str | None) -> bool:
    """No guard, or one that is only whitespace (JS trim): nothing to evaluate, the phase runs."""
    return expr is None or not js_trim(expr)


def unmet_reason(expr: str | None) -> str:
    """The skip reason the engine records for a phase whose guard is false."""
    return f"{UNMET}: {expr}"


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluate_eval_entry(entry: JSONValue, ctx: Context) -> EvalCheck:
    """One gate `eval` entry (docs/language.md §4.8, docs/gates.md §1): non-strings, parse errors and false all fail."""
    if not isinstance(entry, str):
        return EvalCheck(False, f"eval entry is not a string ({type(entry).__name__})")
    split = entry.find(_CONTAINS)
    if split > 0:
        left, needle = js_trim(entry[:split]), js_trim(entry[split + len(_CONTAINS) :])
        filled = interpolate(left, ctx)
        if filled.missing:
            return EvalCheck(False, f"{_clip(left)!r}: " + missing_warning(filled.missing))
        if needle in filled.text:
            return EvalCheck(True, f"{_clip(filled.text)!r} contains {needle!r}")
        return EvalCheck(False, f"{_clip(filled.text)!r} does not contain {needle!r}")
    fn, error = _compiled(entry)
    if fn is None:
        return EvalCheck(False, f"{_clip(entry)!r} could not be evaluated ({error})")
    try:
        value = fn(ctx)
    except Exception as exc:
        return EvalCheck(False, f"{_clip(entry)!r} could not be evaluated ({type(exc).__name__})")
    return EvalCheck(bool(value), f"{_clip(js_trim(entry))!r} is {'true' if value else 'false'}")


# ----------------------------------------------------------------------------- explanations (guard editor)

_BRACED_RE = re.compile(r"\{([^}]*)\}")


@dataclass(frozen=True, slots=True)
class Explanation:
    value: bool
    error: str | None
    refs: list[tuple[str, JSONValue]]  # ("{path}", resolved value or MISSING), first appearance order


def condition_refs(expr: str) -> list[str]:
    """Placeholder paths a condition reads (in order, no duplicates); tolerant of syntax errors."""
    try:
        paths = [str(value) for kind, value, _ in tokenize(expr) if kind == "ref"]
    except ConditionSyntaxError:
        paths = [js_trim(match.group(1)) for match in _BRACED_RE.finditer(expr)]
    return list(dict.fromkeys(paths))


def explain(expr: str, ctx: Context) -> Explanation:
    """The result of a condition plus the value each of its placeholders resolved to."""
    result = evaluate(expr, ctx)
    refs = (
        [("{" + path + "}", resolve(path, ctx)) for path in condition_refs(expr)]
        if isinstance(expr, str)
        else []
    )
    return Explanation(result.value, result.error, refs)


def _show(value: JSONValue) -> str:
    if value is MISSING:
        return "unresolved"
    if isinstance(value, JSFunction):
        return "function"
    try:
        shown = js_json_stringify(value, None)
    except (TypeError, ValueError, RecursionError):
        shown = js_string(value)
    return _clip(shown, 60)


def describe_skip(expr: str, ctx: Context) -> str:
    """One line for the TUI, e.g. `skipped because {x.y} == high was false: y = "low"`."""
    if not isinstance(expr, str) or is_blank(expr):
        return "not skipped: no condition"
    info = explain(expr, ctx)
    shown = _clip(" ".join(js_trim(expr).split()), 120)
    if info.error is not None:
        return f"not skipped: {shown} could not be evaluated ({info.error}) — ran (fail-open)"
    names = [path[1:-1].split(".")[-1] or path for path, _ in info.refs]
    # Use full paths when two refs share a last segment, so each line stays unambiguous.
    if len(set(names)) != len(names):
        names = [path[1:-1] for path, _ in info.refs]
    values = ", ".join(f"{name} = {_show(value)}" for name, (_, value) in zip(names, info.refs, strict=True))
    verdict = "not skipped: " if info.value else "skipped because "
    line = f"{verdict}{shown} was {'true' if info.value else 'false'}"
    return f"{line}: {values}" if values else line
