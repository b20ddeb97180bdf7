"""Rule sets in TOML (docs/trace-gates.md §3.7): one `[[rules]]` table per rule, in evaluation order.

    [[rules]]
    id = "order"
    before = "plan"
    after = "build"
    severity = "warning"   # optional: overrides the rule's default (error)

Any problem is a usage error naming the file, the table (`rules[3]` = the third `[[rules]]`
table, 1-based, with its line when it can be found) and the key. Loading never raises.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from tftui.trace.rules import (
    DEFAULT_SIGNATURE_KEYS,
    PROFILES,
    SEVERITIES,
    Distribution,
    LoopSignature,
    MaxAttempts,
    MaxDuration,
    MaxTotalTokens,
    NoExternalWorkAfterBlock,
    Order,
    RequiredSteps,
    Rule,
    Severity,
)

Table = dict[str, object]  # one parsed TOML table (values: any TOML value)
TOP_LEVEL_KEYS = ("rules", "description")


@dataclass
class RuleSetLoad:
    rules: list[Rule] = field(default_factory=list)
    error: str | None = None  # a usage error (exit 2)
    description: str | None = None


class _ParamError(Exception):
    def __init__(self, key: str, problem: str) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _name(table: Table, key: str) -> str:
    value = table.get(key)
    if value is None:
        raise _ParamError(key, f"missing parameter '{key}' (a step name)")
    if not isinstance(value, str) or not value:
        raise _ParamError(key, f"'{key}' must be a non-empty string, got {value!r}")
    return value


def _names(table: Table, key: str, *, required: bool, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    if key not in table:
        if required:
            raise _ParamError(key, f"missing parameter '{key}' (an array of strings)")
        return default
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _ParamError(key, f"'{key}' must be an array of non-empty strings, got {value!r}")
    if required and not value:
        raise _ParamError(key, f"'{key}' must not be empty")
    return tuple(value)


def _limit(table: Table, *, minimum: int) -> float:
    if "limit" not in table:
        raise _ParamError("limit", "missing parameter 'limit'")
    value = table["limit"]
    if not _is_number(value) or not value >= minimum or value == float("inf"):
        raise _ParamError("limit", f"'limit' must be a finite number ≥ {minimum}, got {value!r}")
    return value


def _int_limit(table: Table, *, minimum: int) -> int:
    value = table.get("limit")
    if "limit" in table and not (isinstance(value, int) and not isinstance(value, bool)):
        raise _ParamError("limit", f"'limit' must be an integer, got {value!r}")
    _limit(table, minimum=minimum)  # missing, or below the minimum
    assert isinstance(value, int)
    return value


def _required_steps(t: Table, sev: Severity) -> Rule:
    return RequiredSteps(sev, names=_names(t, "names", required=True))


def _order(t: Table, sev: Severity) -> Rule:
    return Order(sev, before=_name(t, "before"), after=_name(t, "after"))


def _no_external(t: Table, sev: Severity) -> Rule:
    return NoExternalWorkAfterBlock(sev)


def _max_attempts(t: Table, sev: Severity) -> Rule:
    return MaxAttempts(sev, name=_name(t, "name"), limit=_int_limit(t, minimum=0))


def _max_total_tokens(t: Table, sev: Severity) -> Rule:
    return MaxTotalTokens(sev, limit=_limit(t, minimum=0))


def _loop_signature(t: Table, sev: Severity) -> Rule:
    keys = _names(t, "keys", required=False, default=DEFAULT_SIGNATURE_KEYS)
    return LoopSignature(sev, keys=keys, limit=_int_limit(t, minimum=1))


def _max_duration(t: Table, sev: Severity) -> Rule:
    name = _name(t, "name") if "name" in t else ""
    return MaxDuration(sev, name=name, limit=_limit(t, minimum=0))


def _distribution(t: Table, sev: Severity) -> Rule:
    return Distribution(sev, metrics=_names(t, "metrics", required=False))


# id -> (parameter keys, builder)
RULE_TYPES: dict[str, tuple[tuple[str, ...], Callable[[Table, Severity], Rule]]] = {
    "required_steps": (("names",), _required_steps),
    "order": (("before", "after"), _order),
    "no_external_work_after_block": ((), _no_external),
    "max_attempts": (("name", "limit"), _max_attempts),
    "max_total_tokens": (("limit",), _max_total_tokens),
    "loop_signature": (("keys", "limit"), _loop_signature),
    "max_duration": (("name", "limit"), _max_duration),
    "distribution": (("metrics",), _distribution),
}
# Rules whose profile is fixed: an exact latency bound is synthetic, a distribution is real.
FIXED_PROFILE = {"max_duration": "synthetic", "distribution": "real"}

_RULES_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*rules[ \t]*\]\]", re.MULTILINE)


MAX_RULES = 1000


def _table_lines(text: str) -> list[int]:
    """1-based line of each `[[rules]]` header (used only when the count matches the parsed tables).

    Counted on from the previous header, so linear in the text (a count from the start per header
    was quadratic: 100k rules took minutes).
    """
    lines: list[int] = []
    line, last = 1, 0
    for match in _RULES_HEADER.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        lines.append(line)
    return lines


def _build(table: object) -> tuple[Rule | None, str | None, str | None]:
    """(rule, key, problem) for one `[[rules]]` table."""
    if not isinstance(table, dict):
        return None, None, "must be a table"
    rule_id = table.get("id")
    if rule_id is None:
        return None, "id", f"missing key 'id' (one of: {', '.join(RULE_TYPES)})"
    if not isinstance(rule_id, str) or rule_id not in RULE_TYPES:
        return None, "id", f"unknown rule id {rule_id!r} (known: {', '.join(RULE_TYPES)})"
    params, builder = RULE_TYPES[rule_id]
    allowed = ("id", "severity", *params)
    for key in table:
        if key not in allowed and key != "profile":
            return None, key, (f"unknown key '{key}' for rule '{rule_id}' (allowed: {', '.join(allowed)}); "
                               'any rule also takes profile = "synthetic" | "real"')
    severity = table.get("severity", "error")
    if severity not in SEVERITIES:
        return None, "severity", f"'severity' must be \"error\" or \"warning\", got {severity!r}"
    profile = table.get("profile", FIXED_PROFILE.get(rule_id, "synthetic"))
    if profile not in PROFILES:
        return None, "profile", f"'profile' must be \"synthetic\" or \"real\", got {profile!r}"
    fixed = FIXED_PROFILE.get(rule_id)
    if fixed is not None and profile != fixed:
        return None, "profile", f"rule '{rule_id}' is always profile \"{fixed}\""
    try:
        rule = builder(table, severity)
    except _ParamError as exc:
        return None, exc.key, exc.problem
    return dataclasses.replace(rule, profile=profile), None, None


def parse_ruleset(text: str, path: str = "rules.toml") -> RuleSetLoad:
    """Rules from TOML text; `path` only names the file in messages."""
    # Counted before parsing: the TOML parser's time grows faster than linearly with the number of
    # tables, and no rule set needs this many (docs/trace-gates.md §3.7).
    headers = sum(1 for _ in _RULES_HEADER.finditer(text))
    if headers > MAX_RULES:
        return RuleSetLoad(error=f"{path}: {headers} [[rules]] tables; a rule set holds at most {MAX_RULES} rules")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return RuleSetLoad(error=f"{path}: invalid TOML: {exc}")
    for top_key in data:
        if top_key not in TOP_LEVEL_KEYS:
            return RuleSetLoad(error=f"{path}: unknown top-level key '{top_key}' (allowed: {', '.join(TOP_LEVEL_KEYS)})")
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        return RuleSetLoad(error=f"{path}: 'description' must be a string")
    tables = data.get("rules")
    if tables is None:
        return RuleSetLoad(error=f"{path}: no [[rules]] tables: add at least one rule")
    if not isinstance(tables, list):
        return RuleSetLoad(error=f"{path}: 'rules' must be an array of tables ([[rules]])")
    lines = _table_lines(text)
    rules: list[Rule] = []
    seen: dict[str, int] = {}
    for index, table in enumerate(tables, start=1):
        where = f"{path}:{lines[index - 1]}" if len(lines) == len(tables) else path
        rule, key, problem = _build(table)
        if rule is None:
            key_text = f" key '{key}'" if key else ""
            return RuleSetLoad(error=f"{where}: rules[{index}]{key_text}: {problem}")
        if rule.rule_id in seen:
            return RuleSetLoad(
                error=f"{where}: rules[{index}] key 'id': duplicate rule {rule.rule_id} "
                f"(already rules[{seen[rule.rule_id]}]); results are keyed by rule id"
            )
        seen[rule.rule_id] = index
        rules.append(rule)
    if not rules:
        return RuleSetLoad(error=f"{path}: no [[rules]] tables: add at least one rule")
    return RuleSetLoad(rules, None, description)


def load_ruleset(path: str | Path) -> RuleSetLoad:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return RuleSetLoad(error=f"cannot read rule set {path}: {exc.strerror if isinstance(exc, OSError) else exc}")
    return parse_ruleset(text, str(path))
