"""JavaScript operand semantics of the condition language: truthiness, Number(), String(), ordering.

docs/language.md §4.4 (comparison) and docs/language.md §4.5 (truthiness). Pure and total: nothing here raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tftui.lang.interpolate import JSFunction
from tftui.lang.values import JS_WHITESPACE, MISSING, JSONValue, is_number, js_number_str, js_to_number


def truthy(value: JSONValue) -> bool:
    """docs/language.md §4.5 truthiness."""
    if value is None or value is MISSING:
        return False
    kind = type(value)  # exact-type tests first: this runs for every guard operand
    if kind is bool:
        flag: bool = value
        return flag
    if kind is str or isinstance(value, str):
        text: str = value
        return text.strip(JS_WHITESPACE).lower() not in _FALSY_WORDS
    if kind is int:
        integer: int = value
        return integer != 0
    if kind is float:
        number: float = value
        return number != 0 and number == number  # NaN is falsy (R3)
    if isinstance(value, (list, tuple, dict)):
        return len(value) > 0
    return True  # JS functions and any other object


_FALSY_WORDS = frozenset(("", "false", "0", "no", "off", "null"))


def js_numeric(value: JSONValue) -> float | None:
    """docs/language.md §4.4 numeric operand: finite number, or non-blank string that JS Number() makes finite."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is str or isinstance(value, str):
        body = value.strip(JS_WHITESPACE)
        if not body or not body.isascii():  # JS Number() only reads ASCII digits ("٣" is NaN)
            return None
        number = js_to_number(body)
        return number if number is not None and math.isfinite(number) else None
    if kind is int or is_number(value):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return None


def js_string(value: JSONValue) -> str:
    """JS String() for comparisons, except null/undefined → "" (docs/language.md §4.4)."""
    if type(value) is str:
        return value
    if value is None or value is MISSING:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return js_number_str(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ",".join(js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, JSFunction):
        return value.js_string()
    return str(value)


def str_compare(op: str, a: str, b: str) -> bool:
    """JS string comparison: order by UTF-16 code units (differs from code points above U+FFFF)."""
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if not (a.isascii() and b.isascii()):
        return ORDER[op](a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass"))
    return ORDER[op](a, b)


# Operands are two floats, two str or two UTF-16 byte strings: one table serves all three.
ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}


def compare(op: str, left: JSONValue, right: JSONValue) -> bool:
    """docs/language.md §4.4: numeric when both sides are numeric, else JS string comparison."""
    a = js_numeric(left)
    if a is not None:
        b = js_numeric(right)
        if b is not None:
            return ORDER[op](a, b)
    return str_compare(op, js_string(left), js_string(right))
