"""Reading model replies: gate verdicts (docs/gates.md §3), judge output (docs/gates.md §7), tournament winners (docs/language.md §6.1).

All three fail open (docs/differences.md §1): text that says nothing recognisable passes
(gate, judge) or picks variant 1 (tournament). Marker regexes follow JavaScript: `\\s`
is the JS whitespace set (incl. U+00A0), letters match case-insensitively for ASCII only
(so `VERDİCT` with U+0130 is not a marker), and digits are ASCII. Never raises.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tftui.lang.jsonish import lenient_parse
from tftui.lang.values import JS_WS_CLASS, MISSING, JSONObject, JSONValue, is_number, js_to_number, js_trim

GATE_UNPARSEABLE = "unparseable gate verdict (fail-open)"
JUDGE_UNPARSEABLE = "unparseable judge output (fail-open)"
WINNER_UNPARSEABLE = "no parseable winner; defaulted to variant 1"

_WS = JS_WS_CLASS + "*"
_EMPHASIS_OPEN = r"(?:[*_~`]+" + _WS + ")?"
_EMPHASIS_CLOSE = "(?:" + _WS + r"[*_~`]+)?"
_FLAGS = re.ASCII | re.IGNORECASE

VERDICT_RE = re.compile(
    "VERDICT"
    + _WS
    + "[:=]"
    + _WS
    + _EMPHASIS_OPEN
    + "(PASS|BLOCK|FAIL|STOP|OK|REJECT|HALT)"
    + _EMPHASIS_CLOSE,
    _FLAGS,
)
SCORE_RE = re.compile("SCORE" + _WS + "[:=]" + _WS + _EMPHASIS_OPEN + r"([01](?:\.[0-9]+)?)", _FLAGS)
WINNER_RE = re.compile(
    "WINNER" + _WS + "[:=]" + _WS + _EMPHASIS_OPEN + "#?([0-9]+)" + _EMPHASIS_CLOSE, _FLAGS
)

_BLOCK_WORDS = frozenset(("block", "fail", "stop", "reject", "halt"))


@dataclass(frozen=True, slots=True)
class GateVerdict:
    verdict: str  # "pass" | "block"
    reason: str | None
    parsed: bool  # False when nothing was recognised (fail-open pass)


@dataclass(frozen=True, slots=True)
class JudgeOutput:
    score: float
    verdict: str  # "pass" | "block"
    reason: str | None
    parsed: bool


@dataclass(frozen=True, slots=True)
class Winner:
    index: int  # 1-based
    reason: str | None
    parsed: bool


def _json_object(text: object) -> JSONObject | None:
    value = lenient_parse(text) if isinstance(text, str) else MISSING
    return value if isinstance(value, dict) else None


def _reason(data: JSONObject) -> str | None:
    reason = data.get("reason")
    if isinstance(reason, str) and js_trim(reason):
        return js_trim(reason)
    return None


def _is_block_word(verdict: str) -> bool:
    """Whole-value match of the block words (docs/gates.md §3, D6): `"not blocked"` passes."""
    return js_trim(verdict).lower() in _BLOCK_WORDS


def _last(pattern: re.Pattern[str], text: str) -> str | None:
    last = None
    for match in pattern.finditer(text):
        last = match.group(1)
    return last


def _marker_verdict(word: str) -> str:
    return "pass" if word.upper() in ("PASS", "OK") else "block"


def parse_gate_verdict(text: object) -> GateVerdict:
    """docs/gates.md §3: JSON continue/pass/verdict, else the last VERDICT marker, else pass (fail-open)."""
    if not isinstance(text, str):
        return GateVerdict("pass", GATE_UNPARSEABLE, False)
    data = _json_object(text)
    if data is not None:
        decided: str | None = None
        if isinstance(data.get("continue"), bool):
            decided = "pass" if data["continue"] else "block"
        elif isinstance(data.get("pass"), bool):
            decided = "pass" if data["pass"] else "block"
        elif isinstance(data.get("verdict"), str):
            decided = "block" if _is_block_word(data["verdict"]) else "pass"
        if decided is not None:
            return GateVerdict(decided, _reason(data), True)
    word = _last(VERDICT_RE, text)
    if word is not None:
        return GateVerdict(_marker_verdict(word), None, True)
    return GateVerdict("pass", GATE_UNPARSEABLE, False)


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))


def _json_number(value: JSONValue) -> float | None:
    """A finite number, or a string through JS Number() (so `"0x2"` is 2 and `""` is 0)."""
    number: float | None
    if is_number(value):
        try:
            number = float(value)
        except OverflowError:  # a huge JSON integer: JS reads it as a (finite or infinite) double
            return None
    elif isinstance(value, str):
        number = js_to_number(value) if js_trim(value).isascii() else None
        if number is None:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def parse_judge_output(text: object) -> JudgeOutput:
    """docs/gates.md §7 judge grammar; unparseable → score 1, pass (fail-open, D2)."""
    if not isinstance(text, str):
        return JudgeOutput(1.0, "pass", JUDGE_UNPARSEABLE, False)
    data = _json_object(text)
    if data is not None:
        score = _json_number(data.get("score"))
        if isinstance(data.get("verdict"), str):
            verdict = "block" if _is_block_word(data["verdict"]) else "pass"
            default = 0.0 if verdict == "block" else 1.0
            return JudgeOutput(default if score is None else _clamp01(score), verdict, _reason(data), True)
        if score is not None:
            score = _clamp01(score)
            return JudgeOutput(score, "pass" if score >= 0.5 else "block", _reason(data), True)
    score_text = _last(SCORE_RE, text)
    word = _last(VERDICT_RE, text)
    score = None if score_text is None else _clamp01(float(score_text))
    if word is not None:
        verdict = _marker_verdict(word)
        if score is None:
            score = 1.0 if verdict == "pass" else 0.0
        return JudgeOutput(score, verdict, None, True)
    if score is not None:
        return JudgeOutput(score, "pass" if score >= 0.5 else "block", None, True)
    return JudgeOutput(1.0, "pass", JUDGE_UNPARSEABLE, False)


def parse_tournament_winner(text: object, count: int) -> Winner:
    """docs/language.md §6.1 winner grammar: JSON winner/best/choice, else the last WINNER marker, else 1."""
    number: float | None = None
    reason: str | None = None
    data = _json_object(text)
    if data is not None:
        for key in ("winner", "best", "choice"):
            if data.get(key) is not None:
                number = _json_number(data[key])  # the first non-null key decides, even if unusable
                break
        if number is not None:
            reason = _reason(data)
    if number is None and isinstance(text, str):
        digits = _last(WINNER_RE, text)
        if digits is not None:
            number = float(digits)
    if number is None:
        return Winner(1, WINNER_UNPARSEABLE, False)
    upper = max(1, count) if is_number(count) and math.isfinite(count) else 1
    index = upper if number == math.inf else min(max(math.floor(number), 1), upper)
    return Winner(int(index) if float(index).is_integer() else index, reason, True)
