"""JavaScript value semantics that flow files depend on (docs/language.md §3.5, §4.4).

Flows were specified against a JavaScript runtime; these helpers reproduce the
few JS behaviours the language exposes: `undefined` (MISSING), `Number()` on
strings, number-to-text, `String.prototype.trim` and `JSON.stringify(v, null, 2)`.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any, Final, TypeAlias, TypeGuard


class _Missing:
    """JavaScript `undefined`: a value that is absent (distinct from JSON null)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
Missing: TypeAlias = _Missing  # the type of MISSING, for annotations (`str | Missing`)

# A value of the flow language: what JSON parsing gives (dict / list / str / int / float / bool /
# None), and where a placeholder resolves, also MISSING (JS undefined) or a JS prototype function.
# It stays `Any` on purpose: this is the JSON boundary (flow args, agent replies, `{steps.X.json}`),
# every consumer dispatches on the runtime type, and a recursive union would make each
# `dict[str, int]` literal incompatible with `dict[str, JSONValue]` (dict is invariant).
JSONValue: TypeAlias = Any
JSONObject: TypeAlias = dict[str, JSONValue]

# Characters JavaScript's `\s` and `String.prototype.trim` treat as whitespace.
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number (bool excluded, as in JS where true is not a number)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_number_str(value: float | int) -> str:
    """ECMAScript Number::toString: `1` not `1.0`, `1e+21`, `1e-7`, `-0` -> `0`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        value = float(value)  # JS has only doubles: big integers lose precision as they do there
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    sign_bit, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    k = len(digits)
    n = k + int(exponent)  # value = 0.d1..dk x 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_RADIX_RE = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_RADIX_BASE = {"x": 16, "o": 8, "b": 2}


def js_to_number(text: str) -> float | None:
    """JS `Number(string)`; None where JS gives NaN. Blank text is 0, as in JS."""
    body = js_trim(text)
    if body == "":
        return 0.0
    if _DECIMAL_RE.fullmatch(body):
        try:
            return float(body)
        except (ValueError, OverflowError):
            return None
    radix = _RADIX_RE.fullmatch(body)
    if radix:
        return float(int(radix.group(1)[1:], _RADIX_BASE[radix.group(1)[0].lower()]))
    if body in ("Infinity", "+Infinity"):
        return math.inf
    if body == "-Infinity":
        return -math.inf
    return None


def _json_scalar(value: object) -> str:
    if value is None or value is MISSING:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return js_number_str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(str(value), ensure_ascii=False)


def js_json_stringify(value: object, indent: int | None = 2) -> str:
    """`JSON.stringify(value, null, indent)` with JS number formatting and no ASCII escaping."""
    parts: list[str] = []
    step = " " * indent if indent else ""
    newline = "\n" if indent else ""
    colon = ": " if indent else ":"

    def emit(node: object, depth: int) -> None:
        if isinstance(node, dict):
            items = [(k, v) for k, v in node.items() if v is not MISSING]
            if not items:
                parts.append("{}")
                return
            parts.append("{")
            inner = step * (depth + 1)
            for i, (key, child) in enumerate(items):
                parts.append(("," if i else "") + newline + inner + json.dumps(str(key), ensure_ascii=False) + colon)
                emit(child, depth + 1)
            parts.append(newline + step * depth + "}")
        elif isinstance(node, (list, tuple)):
            if not node:
                parts.append("[]")
                return
            parts.append("[")
            inner = step * (depth + 1)
            for i, child in enumerate(node):
                parts.append(("," if i else "") + newline + inner)
                emit(None if child is MISSING else child, depth + 1)
            parts.append(newline + step * depth + "]")
        else:
            parts.append(_json_scalar(node))

    emit(value, 0)
    return "".join(parts)


def template_text(value: object) -> str:
    """How a resolved value is inserted into a template (docs/language.md §3.5). MISSING is the caller's business."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return js_number_str(value)
    return js_json_stringify(value, 2)
