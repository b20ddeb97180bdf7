"""JavaScript regular expressions (no flags, as `new RegExp(pattern)`), matched under a time budget.

The `regex` scorer's patterns are written for JavaScript (docs/gates.md §4.5).
`compile_js_regex` translates a pattern to an equivalent Python pattern, checks it with
`re` (so what is accepted, and every error message, is Python's `re`), compiles it for the
`regex` package (ASCII, VERSION0: `re`'s semantics) and caches the result per pattern text.
`search_within` matches with a time budget (docs/trust.md §3): the `regex` engine stops a
catastrophic backtrack at the budget and, with `offload` (a worker thread), releases the GIL
meanwhile, so the event loop and signal handlers keep running. The budget defaults to 1 s
(`set_default_budget`, from the `[limits] regex_budget_ms` setting).
`linear_time` proves a narrow class of patterns unable to backtrack for long; those are matched
by `re` with no budget (`CompiledPattern.fast`, docs/trust.md §3).
`nested_quantifier` finds the shape that backtracks exponentially (`(\\w+\\s?)+`) for `tftui check`.

What the translation does:
- JS-only syntax: `(?<name>…)` → `(?P<name>…)`, `\\k<name>` → named backreference.
- Character classes keep JS meaning: `\\d`, `\\w`, `\\b` are ASCII-only (via `re.ASCII`)
  while `\\s`/`\\S` are spelled out as JS's Unicode whitespace set (U+00A0, U+2028, …).
- `.` excludes all JS line terminators (`\\n`, `\\r`, U+2028, U+2029); `$` is the end of
  input only (Python's `$` also matches before a final newline); `[]` never matches and
  `[^]` matches anything.
- Annex B (non-unicode mode) leniencies: unknown escapes such as `\\A`, `\\Z`, `\\z`, `\\G`
  are the literal letter; `\\x`/`\\u` without hex digits are the letter; `\\c` without a
  letter is a literal backslash; `\\8` is `8`; `\\12` with fewer groups is an octal escape;
  a `{` that does not start a quantifier is literal (Python would read `{,5}` as one);
  `[\\d-z]` is a class with a literal `-`; a surrogate pair `\\uD83D\\uDE00` is one character.
- Backreferences to a group that has not matched (or is defined later, or is still
  open, like `\\1(a)`) match the empty string, as in JS.
- Python-only syntax that JavaScript rejects is rejected with JS's message:
  inline flags `(?i)`, `(?P<n>…)`, atomic groups `(?>…)`, comments `(?#…)`,
  possessive quantifiers `a++` / `a*+`, and out-of-order ranges or `{n,m}` bounds.

Remaining differences (documented, not emulated):
- JS strings are UTF-16: `.` matches a single code unit there but a whole code point
  here, so `^.$` matches "😀" in tftui but not in JavaScript (conformance s066).
- Python needs fixed-width look-behind; JS allows variable width (such patterns fail
  with `invalid pattern: …`).
- Group names must be Python identifiers (`(?<$x>…)` is valid JS, invalid here).
- Catastrophic backtracking is cut at the time budget (JS has no limit): the scorer fails
  with `regex timed out after <ms>ms (catastrophic backtracking?): /<pattern>/`.
- `\\B` matches the empty string, as in JS (`re` alone does not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine is imported where a pattern is first compiled (most flows never do)
    import regex as regex_engine

from tftui.lang.values import JS_WHITESPACE

_WS_BODY = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
_WS = "[" + _WS_BODY + "]"
_NOT_WS = "[^" + _WS_BODY + "]"
_DOT = "[^\\n\\r\\u2028\\u2029]"
_QUANT_RE = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_NAME_RE = re.compile(r"<([^>]*)>")
_HEX = "0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v"}


class JsRegexError(Exception):
    """A pattern JavaScript itself would reject; str() is JS's SyntaxError message."""


DEFAULT_BUDGET_S = 1.0
_budget_s = DEFAULT_BUDGET_S


@dataclass(frozen=True)
class CompiledPattern:
    regex: regex_engine.Pattern[str] | None
    error: str | None  # full `invalid pattern: …` detail when the pattern is invalid
    # The same translation compiled by `re`, kept only when `linear_time(pattern)` proves the match
    # cannot backtrack catastrophically (docs/trust.md §3): then it is matched without a budget.
    fast: re.Pattern[str] | None = None


def set_default_budget(seconds: float | None) -> None:
    """The time budget of every match from now on (None or a non-positive value: the default)."""
    global _budget_s
    ok = isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 < seconds < float("inf")
    _budget_s = float(seconds) if ok and seconds is not None else DEFAULT_BUDGET_S


def default_budget() -> float:
    return _budget_s


def timeout_detail(pattern: str, budget_s: float) -> str:
    """What a regex scorer cut at its budget says (`ScorerResult.timed_out` is the flag to test)."""
    return f"regex timed out after {round(budget_s * 1000)}ms (catastrophic backtracking?): /{pattern}/"


def search_within(compiled: regex_engine.Pattern[str], text: str, budget_s: float, *, offload: bool = False) -> bool:
    """Whether `compiled` matches somewhere in `text`; raises TimeoutError past `budget_s`.

    `offload`: the caller runs this in a worker thread, so the GIL is released while matching."""
    return compiled.search(text, timeout=budget_s, concurrent=offload) is not None


def _lit(code: int) -> str:
    """A code point as an unambiguous escape, valid inside and outside classes."""
    if code < 0x80 and chr(code).isalnum():
        return chr(code)
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def _prescan(p: str) -> tuple[int, set[str]]:
    """Count capture groups and collect names (JS needs them before reading `\\N` and `\\k`)."""
    count, names, i, in_class = 0, set(), 0, False
    while i < len(p):
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if p.startswith("]", i + 1) or p.startswith("^]", i + 1):
                i += 2 if p[i + 1] == "]" else 3
                in_class = False
                continue
        elif c == "(":
            if not p.startswith("?", i + 1):
                count += 1
            elif p.startswith("?<", i + 1) and not p.startswith(("?<=", "?<!"), i + 1):
                count += 1
                m = _NAME_RE.match(p, i + 2)
                if m:
                    names.add(m.group(1))
        i += 1
    return count, names


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.total_groups, self.names = _prescan(pattern)
        self.opened = 0
        self.open_numbers: list[int | None] = []  # stack: group number (None for non-capturing)
        self.open_kinds: list[str] = []
        self.closed_names: set[str] = set()
        self.open_names: list[str | None] = []

    def fail(self, reason: str) -> JsRegexError:
        return JsRegexError(f"Invalid regular expression: /{self.p}/: {reason}")

    def run(self) -> str:
        p = self.p
        atom = False  # may a quantifier follow?
        while self.i < len(p):
            c = p[self.i]
            if c == "\\":
                atom = self.escape()
            elif c == "[":
                self.char_class()
                atom = True
            elif c == "(":
                self.open_group()
                atom = False
            elif c == ")":
                if not self.open_kinds:
                    raise self.fail("Unmatched ')'")
                kind = self.open_kinds.pop()
                self.open_numbers.pop()
                name = self.open_names.pop()
                if name is not None:
                    self.closed_names.add(name)
                self.out.append(")")
                self.i += 1
                atom = kind != "lookbehind"
            elif c in "*+?":
                if not atom:
                    raise self.fail("Nothing to repeat")
                self.out.append(c)
                self.i += 1
                self.lazy()
                atom = False
            elif c == "{":
                m = _QUANT_RE.match(p, self.i)
                if m:
                    if not atom:
                        raise self.fail("Nothing to repeat")
                    low, comma, high = m.group(1), m.group(2), m.group(3)
                    if high and int(high) < int(low):
                        raise self.fail("numbers out of order in {} quantifier")
                    self.out.append("{" + low + (("," + high) if comma else "") + "}")
                    self.i = m.end()
                    self.lazy()
                    atom = False
                else:
                    self.out.append("\\{")
                    self.i += 1
                    atom = True
            else:
                self.i += 1
                if c == "|":
                    self.out.append("|")
                    atom = False
                elif c == "^":
                    self.out.append("^")
                    atom = False
                elif c == "$":
                    self.out.append("\\Z")
                    atom = False
                elif c == ".":
                    self.out.append(_DOT)
                    atom = True
                else:
                    self.out.append(_lit(ord(c)))
                    atom = True
        if self.open_kinds:
            raise self.fail("Unterminated group")
        return "".join(self.out)

    def lazy(self) -> None:
        if self.p.startswith("?", self.i):
            self.out.append("?")
            self.i += 1

    def open_group(self) -> None:
        p, i = self.p, self.i
        if not p.startswith("?", i + 1):
            self.opened += 1
            self._push("capture", self.opened, None, "(")
            self.i = i + 1
            return
        for prefix, kind in (
            ("(?:", "group"),
            ("(?=", "lookahead"),
            ("(?!", "lookahead"),
            ("(?<=", "lookbehind"),
            ("(?<!", "lookbehind"),
        ):
            if p.startswith(prefix, i):
                self._push(kind, None, None, prefix)
                self.i = i + len(prefix)
                return
        if p.startswith("(?<", i):
            m = _NAME_RE.match(p, i + 2)
            if not m or not m.group(1):
                raise self.fail("Invalid capture group name")
            self.opened += 1
            self._push("capture", self.opened, m.group(1), f"(?P<{m.group(1)}>")
            self.i = m.end()
            return
        raise self.fail("Invalid group")  # (?i) (?P<n> (?> (?# … are not JavaScript

    def _push(self, kind: str, number: int | None, name: str | None, text: str) -> None:
        self.open_kinds.append(kind)
        self.open_numbers.append(number)
        self.open_names.append(name)
        self.out.append(text)

    def escape(self) -> bool:
        """Translate the escape at self.i (outside a class); returns whether it is quantifiable."""
        p = self.p
        if self.i + 1 >= len(p):
            raise self.fail("\\ at end of pattern")
        c = p[self.i + 1]
        self.i += 2
        if c in "dDwW":
            self.out.append("\\" + c)
        elif c in "bB":
            self.out.append("\\" + c)
            return False
        elif c == "s":
            self.out.append(_WS)
        elif c == "S":
            self.out.append(_NOT_WS)
        elif c in "123456789":
            self.backref()
        elif c == "k" and self.names:
            m = _NAME_RE.match(p, self.i)
            if not m or m.group(1) not in self.names:
                raise self.fail("Invalid named capture referenced")
            self.i = m.end()
            name = m.group(1)
            self.out.append(self._named_ref(name))
        else:
            self.out.append(_lit(self.char_escape(c)))
        return True

    def _named_ref(self, name: str) -> str:
        if name not in self.closed_names:
            return "(?:)"  # forward or open reference: JS matches the empty string
        return f"(?({name})(?P={name})|)"

    def backref(self) -> None:
        p, start = self.p, self.i - 1
        j = start
        while j < len(p) and p[j] in "0123456789":
            j += 1
        number = int(p[start:j])
        if number <= self.total_groups:
            self.i = j
            if number > self.opened or number in self.open_numbers:
                self.out.append("(?:)")  # JS: a group that has not captured matches empty
            else:
                self.out.append(f"(?({number})(?:\\{number})|)")
            return
        self.i = start
        self.out.append(_lit(self.legacy_octal()))

    def legacy_octal(self) -> int:
        """Annex B: `\\8` is "8"; `\\1`..`\\377` is an octal escape (self.i is after the backslash)."""
        p, i = self.p, self.i
        if p[i] in "89":
            self.i = i + 1
            return ord(p[i])
        limit = 3 if p[i] in "0123" else 2
        j = i
        while j < len(p) and j - i < limit and p[j] in "01234567":
            j += 1
        self.i = j
        return int(p[i:j], 8)

    def char_escape(self, c: str) -> int:
        """A character escape (self.i is just after `c`); returns its code point."""
        p = self.p
        if c in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[c])
        if c == "0":
            if self.i < len(p) and p[self.i] in "01234567":
                self.i -= 1
                return self.legacy_octal()
            return 0
        if c == "c":
            if self.i < len(p) and p[self.i].isascii() and p[self.i].isalpha():
                self.i += 1
                return ord(p[self.i - 1]) % 32
            self.i -= 1  # `\c` not followed by a letter: a literal backslash, then `c`
            return ord("\\")
        if c == "x" and len(p) >= self.i + 2 and all(h in _HEX for h in p[self.i : self.i + 2]):
            self.i += 2
            return int(p[self.i - 2 : self.i], 16)
        if c == "u" and len(p) >= self.i + 4 and all(h in _HEX for h in p[self.i : self.i + 4]):
            code = int(p[self.i : self.i + 4], 16)
            self.i += 4
            low = p[self.i + 2 : self.i + 6]
            if (
                0xD800 <= code < 0xDC00
                and p.startswith("\\u", self.i)
                and len(low) == 4
                and all(h in _HEX for h in low)
                and 0xDC00 <= int(low, 16) < 0xE000
            ):
                self.i += 6
                return 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
            return code
        return ord(c)  # identity escape: `\A`, `\-`, `\k` without named groups, …

    def char_class(self) -> None:
        p = self.p
        self.i += 1
        negated = p.startswith("^", self.i)
        if negated:
            self.i += 1
        items: list[str] = []  # Python class body fragments
        shorthands: set[str] = set()
        while True:
            if self.i >= len(p):
                raise self.fail("Unterminated character class")
            if p[self.i] == "]":
                self.i += 1
                break
            first = self.class_atom()
            if p.startswith("-", self.i) and self.i + 1 < len(p) and p[self.i + 1] != "]":
                self.i += 1
                second = self.class_atom()
                if isinstance(first, int) and isinstance(second, int):
                    if first > second:
                        raise self.fail("Range out of order in character class")
                    items.append(_lit(first) + "-" + _lit(second))
                    continue
                # Annex B: a range with a class escape as an end is a literal '-'
                for atom in (first, "-", second):
                    self._class_item(atom if atom != "-" else ord("-"), items, shorthands)
                continue
            self._class_item(first, items, shorthands)
        self.out.append(_class_text(negated, "".join(items), shorthands))

    def _class_item(self, atom: int | str, items: list[str], shorthands: set[str]) -> None:
        if isinstance(atom, int):
            items.append(_lit(atom))
        elif atom == "s":
            items.append(_WS_BODY)
        elif atom == "S":
            shorthands.add("S")
        else:
            items.append("\\" + atom)  # d D w W: ASCII-only under re.ASCII, as in JS

    def class_atom(self) -> int | str:
        """One class member: a code point, or a shorthand letter (d D w W s S)."""
        p = self.p
        c = p[self.i]
        if c != "\\":
            self.i += 1
            return ord(c)
        if self.i + 1 >= len(p):
            raise self.fail("\\ at end of pattern")
        c = p[self.i + 1]
        self.i += 2
        if c in "dDwWsS":
            return c
        if c == "b":
            return 8
        if c in "123456789":
            self.i -= 1
            return self.legacy_octal()
        if c == "c" and self.i < len(p) and p[self.i] in "0123456789_":
            self.i += 1  # Annex B: inside a class `\c` also takes digits and `_`
            return ord(p[self.i - 1]) % 32
        return self.char_escape(c)


def _class_text(negated: bool, body: str, shorthands: set[str]) -> str:
    if "S" not in shorthands:
        if not body:
            return "[\\s\\S]" if negated else "(?!)"  # JS `[^]` / `[]`
        return ("[^" if negated else "[") + body + "]"
    # `\S` inside a class: Python's ASCII `\S` would include U+00A0, so spell it out.
    if _WS_BODY in body:
        return "(?!)" if negated else "[\\s\\S]"  # \s ∪ \S: everything
    if negated:  # not (others or non-space) = whitespace that is not one of the others
        return f"(?![{body}]){_WS}" if body else _WS
    return f"(?:[{body}]|{_NOT_WS})" if body else _NOT_WS


def translate(pattern: str) -> str:
    """The Python spelling of a JS pattern; raises JsRegexError where JavaScript would."""
    return _Translator(pattern).run()


@lru_cache(maxsize=1024)
def compile_js_regex(pattern: str) -> CompiledPattern:
    """Compile once per pattern text; never raises."""
    try:
        python_pattern = translate(pattern)
    except JsRegexError as exc:
        return CompiledPattern(None, f"invalid pattern: {exc}")
    except (RecursionError, ValueError, IndexError) as exc:  # defensive: translator bug
        return CompiledPattern(None, f"invalid pattern: {exc}")
    import regex as regex_engine

    try:
        checked = re.compile(python_pattern, re.ASCII)  # what `re` accepts, and its messages, stay the contract
        return CompiledPattern(regex_engine.compile(python_pattern, regex_engine.ASCII | regex_engine.VERSION0), None,
                               checked if linear_time(pattern) else None)
    except (re.error, regex_engine.error, OverflowError, RecursionError, ValueError) as exc:
        return CompiledPattern(None, f"invalid pattern: {exc}")


# --- nested quantifiers, for `tftui check` ------------------------------------------------

_REPEAT_RE = re.compile(r"[*+]|\{[0-9]+,[0-9]*\}")


def _repeat_at(p: str, i: int) -> int:
    """Length of a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 1) at `i`, else 0."""
    m = _REPEAT_RE.match(p, i)
    if m is None:
        return 0
    text = m.group()
    if text.startswith("{"):
        high = text[1:-1].split(",")[1]
        if high and int(high) <= 1:
            return 0
    return len(text)


def nested_quantifier(pattern: str) -> str | None:
    """The first quantified group that itself holds a repeating quantifier, e.g. `(\\w+\\s?)+` in
    `^(\\w+\\s?)+$`: the shape whose backtracking is exponential on a near-miss. None if none."""
    p, i = pattern, 0
    starts: list[int] = []  # open groups: where each starts
    inner: list[bool] = []  # does the open group hold a repeating quantifier?
    closed: tuple[int, bool] | None = None  # the group that just closed: (start, held a quantifier)
    while i < len(p):
        c = p[i]
        just_closed, closed = closed, None
        if c == "\\":
            i += 2
            continue
        if c == "[":
            j = i + 1
            if p.startswith("^", j):
                j += 1
            if p.startswith("]", j):
                j += 1
            while j < len(p) and p[j] != "]":
                j += 2 if p[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            starts.append(i)
            inner.append(False)
            i += 1
            continue
        if c == ")" and starts:
            start, held = starts.pop(), inner.pop()
            if inner and held:
                inner[-1] = True
            closed = (start, held)
            i += 1
            continue
        width = _repeat_at(p, i)
        if width:
            if just_closed is not None and just_closed[1]:
                return p[just_closed[0] : i + width]
            if inner:
                inner[-1] = True
            i += width
            continue
        i += 1
    return None


# --- patterns that cannot backtrack catastrophically (docs/trust.md §3) ----------------------

# A character set as sorted, disjoint, inclusive code point ranges.
_Ranges = tuple[tuple[int, int], ...]
_MAX_CODE = 0x10FFFF
_UNBOUNDED = -1
_MAX_COPIES = 64  # `x{n}` is read as n positions up to this n
# The fast path's bounds (docs/trust.md §3): a linear search still costs up to (text length x
# pattern positions), so only patterns of up to 64 positions on texts up to 64 KB skip the budget.
FAST_MAX_POSITIONS = 64
FAST_MAX_TEXT = 64 * 1024


def _ranges(codes: list[tuple[int, int]]) -> _Ranges:
    out: list[tuple[int, int]] = []
    for low, high in sorted(codes):
        if out and low <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], high))
        else:
            out.append((low, high))
    return tuple(out)


def _complement(ranges: _Ranges) -> _Ranges:
    out, at = [], 0
    for low, high in ranges:
        if low > at:
            out.append((at, low - 1))
        at = high + 1
    if at <= _MAX_CODE:
        out.append((at, _MAX_CODE))
    return tuple(out)


def _disjoint(a: _Ranges, b: _Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return False
    return True


_DIGITS = _ranges([(0x30, 0x39)])
_WORD = _ranges([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
_SPACE = _ranges([(ord(c), ord(c)) for c in JS_WHITESPACE])
_SHORTHAND_SETS = {"d": _DIGITS, "D": _complement(_DIGITS), "w": _WORD, "W": _complement(_WORD),
                   "s": _SPACE, "S": _complement(_SPACE)}
_ANY_BUT_LINE_END = _complement(_ranges([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]))
_IDENTITY_ESCAPES = frozenset("^$\\.*+?()[]{}|/-\"'")
_REPEAT = re.compile(r"[*+?]|\{([0-9]+)(,([0-9]*))?\}")


class _NotLinear(Exception):
    """The pattern uses something outside what `linear_time` can reason about."""


def _escape_code(p: str, i: int, in_class: bool) -> tuple[int | _Ranges, int]:
    """The escape at `p[i]` (just after the backslash): a code point or a set, and where it ends."""
    c = p[i] if i < len(p) else ""
    if c in _SHORTHAND_SETS and not (in_class and c == "S"):  # `[\S…]` is not one class in Python
        return _SHORTHAND_SETS[c], i + 1
    if c in _SIMPLE_ESCAPES:
        return ord(_SIMPLE_ESCAPES[c]), i + 1
    if in_class and c == "b":
        return 8, i + 1
    if c == "x" and len(p) >= i + 3 and all(h in _HEX for h in p[i + 1 : i + 3]):
        return int(p[i + 1 : i + 3], 16), i + 3
    if c == "u" and len(p) >= i + 5 and all(h in _HEX for h in p[i + 1 : i + 5]):
        code = int(p[i + 1 : i + 5], 16)
        if 0xD800 <= code < 0xE000:
            raise _NotLinear  # surrogate pairs: left to the general path
        return code, i + 5
    if c and c in _IDENTITY_ESCAPES:
        return ord(c), i + 1
    raise _NotLinear  # \b \B outside classes are handled by the caller; backreferences, octal, \c, \k, …


def _class_set(p: str, i: int) -> tuple[_Ranges, int]:
    """The set of the class opening at `p[i]` (`[`), and where it ends."""
    i += 1
    negated = p.startswith("^", i)
    i += negated
    if p.startswith("]", i):
        raise _NotLinear  # `[]` / `[^]`
    codes: list[tuple[int, int]] = []
    while i < len(p) and p[i] != "]":
        first: int | _Ranges
        if p[i] == "\\":
            first, i = _escape_code(p, i + 1, True)
        else:
            first, i = ord(p[i]), i + 1
        if p.startswith("-", i) and i + 1 < len(p) and p[i + 1] != "]":
            second: int | _Ranges
            if p[i + 1] == "\\":
                second, i = _escape_code(p, i + 2, True)
            else:
                second, i = ord(p[i + 1]), i + 2
            if not isinstance(first, int) or not isinstance(second, int) or first > second:
                raise _NotLinear  # Annex B `[\d-z]`
            codes.append((first, second))
        elif isinstance(first, int):
            codes.append((first, first))
        else:
            codes.extend(first)
    if i >= len(p):
        raise _NotLinear
    ranges = _ranges(codes)
    return (_complement(ranges) if negated else ranges), i + 1


def _atoms(p: str) -> list[tuple[_Ranges | None, int, int]]:
    r"""The pattern as a flat sequence of (set, min, max) per character position (set None: a
    zero-width `^`, `$` or `\b`; max -1: unbounded). Raises _NotLinear outside the subset: any
    `|`, lookaround, backreference, lazy quantifier, quantified group or assertion, `\B`."""
    atoms: list[tuple[_Ranges | None, int, int]] = []
    i, depth = 0, 0
    while i < len(p):
        c = p[i]
        chars: _Ranges | None = None
        if c == "\\":
            if p.startswith("b", i + 1):
                atoms.append((None, 1, 1))
                i += 2
                continue
            code, i = _escape_code(p, i + 1, False)
            chars = code if not isinstance(code, int) else ((code, code),)
        elif c == "[":
            chars, i = _class_set(p, i)
        elif c == "(":
            if p.startswith("(?:", i):
                i += 3
            elif p.startswith("?", i + 1):
                raise _NotLinear  # lookarounds, named groups
            else:
                i += 1
            depth += 1
            continue
        elif c == ")":
            depth -= 1
            i += 1
            if depth < 0 or _REPEAT.match(p, i):
                raise _NotLinear  # a quantified group
            continue
        elif c in "^$":
            atoms.append((None, 1, 1))
            i += 1
            continue
        elif c == "|" or c == "{" or c in "*+?":
            raise _NotLinear  # alternation; a literal `{`; a quantifier here follows no character
        else:
            chars = _ANY_BUT_LINE_END if c == "." else ((ord(c), ord(c)),)
            i += 1
        low, high = 1, 1
        m = _REPEAT.match(p, i)
        if m:
            text = m.group()
            if text[0] == "{":
                low = int(m.group(1))
                high = low if m.group(2) is None else (int(m.group(3)) if m.group(3) else _UNBOUNDED)
            else:
                low, high = (0 if text != "+" else 1), (1 if text == "?" else _UNBOUNDED)
            i = m.end()
            if p.startswith("?", i) or _REPEAT.match(p, i):
                raise _NotLinear  # lazy, or a quantifier on a quantifier
        if low == high and low <= _MAX_COPIES:  # `a{3}` is `aaa`
            atoms.extend([(chars, 1, 1)] * low)
        elif low == high:
            raise _NotLinear
        else:
            atoms.append((chars, low, high))
    return atoms


@lru_cache(maxsize=1024)
def linear_time(pattern: str) -> bool:
    r"""Whether a valid JS pattern is proven to match in time linear in the text (docs/trust.md §3),
    so that `re` can match it without a budget. A conservative sufficient rule:

    - the pattern is a plain sequence: characters, classes, `.`, the escapes `\d \w \s \D \W \S`,
      `\t \n …`, `\xHH`, `\uHHHH` and escaped punctuation, the assertions `^`, `$`, `\b`, and
      unquantified groups; no `|`, lookaround, backreference, lazy quantifier or `\B`;
    - every quantified position (`*`, `+`, `?`, `{n,m}`) shares no character with what may come
      right after it (the following positions up to the first one that is not optional), so a
      backtrack into it fails at its first step instead of trying the rest again;
    - unless the pattern starts with `^`, its first position is not quantified and shares no
      character with any quantified position, so no two match attempts scan the same run.

    - it has at most FAST_MAX_POSITIONS positions.

    Anything else (`(a+)+`, `\s*\s*x`, `.*x`, `(a|ab)*`) keeps the budgeted `regex` match."""
    try:
        atoms = _atoms(pattern)
    except (_NotLinear, ValueError, IndexError):
        return False
    if len(atoms) > FAST_MAX_POSITIONS:
        return False  # a search costs up to (text length x positions): keep that product small
    chars = [(s, low, high) for s, low, high in atoms if s is not None]
    for index, (own, low, high) in enumerate(chars):
        if (low, high) == (1, 1):
            continue
        for after, after_low, _ in chars[index + 1 :]:
            if not _disjoint(own, after):
                return False
            if after_low >= 1:
                break
    anchored = bool(atoms) and atoms[0][0] is None and pattern.startswith("^")
    if chars and not anchored:
        first, low, high = chars[0]
        if (low, high) != (1, 1):
            return False
        if any(not _disjoint(first, s) for s, lo, hi in chars[1:] if (lo, hi) != (1, 1)):
            return False
    return True


# --- fix hints for `tftui check` (the run only reports `invalid pattern: …`) -----------------

_INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]*[:)]")
_SIMPLE_TAIL = re.compile(r"[A-Za-z0-9 ]+")
_ESCAPE_HINT = "escape a literal '{c}' as \\{c} (written \"\\\\{c}\" in JSON)"


def _case_insensitive(text: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in text)


def _group_hint(pattern: str) -> str:
    if "(?P<" in pattern or "(?P=" in pattern:
        return "named groups are (?<name>…) and back-references \\k<name> in JavaScript"
    if "(?>" in pattern:
        return "JavaScript has no atomic groups (?>…); use a plain group (?:…)"
    if "(?#" in pattern:
        return "JavaScript has no (?#…) comments; remove it"
    flags = _INLINE_FLAGS.search(pattern)
    if flags:
        hint = (
            f"JavaScript regexes have no inline flags such as {flags.group()[:-1]}) and regex scorers "
            "have no flags field; spell the alternatives out instead"
        )
        letters = flags.group()
        if "i" in letters:
            rest = pattern[flags.end() :] if flags.start() == 0 and letters.endswith(")") else ""
            if _SIMPLE_TAIL.fullmatch(rest):
                return f'{hint}, e.g. "{_case_insensitive(rest)}" for a case-insensitive {rest}'
            return hint + " (e.g. [Ee]rror for a case-insensitive Error)"
        if "s" in letters:
            return hint + " ([\\s\\S] matches any character including line breaks)"
        if "m" in letters:
            return hint + " (match line starts with (?:^|\\n) and line ends with (?=\\n|$))"
        return hint
    return "JavaScript groups are (…), (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?<name>…)"


def fix_hint(pattern: str, error: str) -> str | None:
    """How to fix a pattern `compile_js_regex` rejected with `error` (None if nothing useful)."""
    if error.endswith(": Invalid group"):
        return _group_hint(pattern)
    if error.endswith(": Unterminated group"):
        return "add the missing ')' or " + _ESCAPE_HINT.format(c="(")
    if error.endswith(": Unmatched ')'"):
        return "remove it or " + _ESCAPE_HINT.format(c=")")
    if error.endswith(": Unterminated character class"):
        return "add the missing ']' or " + _ESCAPE_HINT.format(c="[")
    if error.endswith(": Nothing to repeat"):
        if re.search(r"[*+?}]\+", pattern):
            return "JavaScript has no possessive quantifiers (a++, a*+); drop the second '+'"
        return "a quantifier (* + ? {n}) must follow something to repeat; " + _ESCAPE_HINT.format(c="*")
    if error.endswith(": Range out of order in character class"):
        return "write ranges low to high ([a-z]) or put a literal '-' last in the class"
    if error.endswith(": numbers out of order in {} quantifier"):
        return "write {min,max} with min <= max"
    if error.endswith(": \\ at end of pattern"):
        return 'a literal backslash is \\\\ (written "\\\\\\\\" in JSON)'
    if "look-behind requires fixed-width pattern" in error:
        return (
            "tftui runs patterns on Python's re, which needs a fixed-width look-behind "
            "(JavaScript does not); use fixed-length alternatives"
        )
    if "bad character in group name" in error:
        return "group names must be identifiers (letters, digits, _, not starting with a digit)"
    if "redefinition of group name" in error:
        return "give each named group its own name"
    return None
