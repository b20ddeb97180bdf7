"""Trace integrity (docs/trace-gates.md §4): is the telemetry itself trustworthy?

Two passes, both before any rule; a failure of either is an instrumentation error (rules
are not evaluated and `tftui gate` exits 3):
- `schema_problems`: the trace file's JSON against the published JSON Schema of the trace
  format (`tftui/trace/trace.schema.json`, schemaVersion 1; `tftui schema --trace` prints it);
- `check_columns`: what a schema cannot say: ids, parent links, one root, a terminal status,
  finite non-negative numbers, no payload keys in metadata.
Both run on the trace as loaded (ids as the recorder wrote them, so messages point at the file).
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from itertools import compress, repeat
from operator import eq, is_not, lt
from typing import TYPE_CHECKING, Any, cast

from tftui.lang.values import js_number_str
from tftui.trace.columns import STEP_STATUSES, TraceColumns

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

    from tftui.trace.model import AgentTrace

# tftui decision (docs/trace-gates.md §4): payload keys that must never reach trace metadata (case-insensitive).
FORBIDDEN_METADATA_KEYS = frozenset(
    {
        "prompt",
        "completion",
        "messages",
        "content",
        "payload",
        "raw",
        "body",
        "headers",
        "authorization",
        "api_key",
        "apikey",
        "secret",
        "password",
    }
)

_MAX_PROBLEMS = 50  # enough to fix a recorder; a broken million-step trace should not print a million lines
_INF = math.inf
MAX_SAFE_INTEGER = 2**53  # docs/trace-gates.md §4: larger numbers are not exact in the JSON readers of other tools


def _num(value: Any) -> str:
    return js_number_str(value) if isinstance(value, (int, float)) else str(value)


def _bad_number(value: Any) -> bool:
    """Not finite or negative (NaN fails every comparison, so it is caught too)."""
    return not (0 <= value < _INF)


_NUMBER_TYPES = frozenset({int, float})  # exact types: bool is not a number here


def _all_sound(values: list[Any]) -> bool:
    """Fast path: every number finite, ≥ 0 and ≤ 2**53 (C-level min/max/sum; a NaN or inf makes the
    sum non-finite)."""
    if not values:
        return True
    try:
        return min(values) >= 0 and max(values) <= MAX_SAFE_INTEGER and math.isfinite(sum(values))
    except OverflowError:  # an int too large for a float: let the exact check decide
        return False


def _column_sound(column: list[Any]) -> bool:
    """`_all_sound` of a column's present values; a column without gaps (sequences) is read as it
    is, without the copy (min() meets an absent value at once in the others: the root has none)."""
    try:
        return _all_sound(column)
    except TypeError:  # None among the numbers
        return _all_sound(_present(column))


def _number_problem(field: str, value: Any, step_id: str) -> str | None:
    if _bad_number(value):
        return f"non-finite or negative {field} on step {step_id}"
    if value > MAX_SAFE_INTEGER:
        return f"{field} out of range on step {step_id} (above 2**53)"
    return None


_FEW_PARENTS = 32  # up to this many distinct parents, `list.index` scans beat a million-entry position dict


def _parents_listed_first(ids: list[str], parent_ids: list[str | None], parents: set[str]) -> bool:
    """True when every parent is listed before the first step that names it, checked per distinct
    parent (a run's trace has a handful: its root and its groups); False when unsure or when a
    parent is unknown. `parents`: the distinct non-null parent ids. Needs unique ids (the caller
    checked). A step that is its own parent fails it."""
    if len(parents) > _FEW_PARENTS:
        return False
    try:
        return all(parent_ids.index(p) > ids.index(p) for p in parents)
    except ValueError:  # an unknown parent: the walk below skips it as before
        return False


def _cycle_problem(ids: list[str], parent_ids: list[str | None], parents: set[str] | None = None) -> str | None:
    """A step that is its own parent, or a parent chain that loops, in linear time; None when none.

    Fast path (C-level passes): when every parent is listed before its child, each chain strictly
    moves towards the start of the list and cannot loop — what the recorder writes. Otherwise
    one walk up from each step, each step visited once (state: 1 on the current walk, 2 done).
    """
    if parents is None:
        parents = cast("set[str]", set(parent_ids) - {None})
    if _parents_listed_first(ids, parent_ids, parents):
        return None
    if any(map(eq, ids, parent_ids)):
        return next(f"step {s} is its own parent" for s, p in zip(ids, parent_ids, strict=True) if s == p)
    position = dict(zip(ids, range(len(ids)), strict=False))
    parent_pos: list[int | None] = list(map(position.get, cast("list[str]", parent_ids)))
    linked = list(map(is_not, parent_pos, repeat(None)))
    listed_before = cast("Iterator[int]", compress(parent_pos, linked))
    if all(map(lt, listed_before, compress(range(len(ids)), linked))):
        return None
    state = [0] * len(ids)
    for start in range(len(ids)):
        walk: list[int] = []
        at: int | None = start
        while at is not None and state[at] == 0:
            state[at] = 1
            walk.append(at)
            at = parent_pos[at]
        if at is not None and state[at] == 1:
            return f"parent cycle through step {ids[at]}"
        for index in walk:
            state[index] = 2
    return None


def _canonical_parents_known(parents: set[str], sequences: list[int]) -> bool:
    """With ids `s<sequence>` and sequences ascending: True when every distinct parent is a step's
    id (a binary search per parent; a run's trace has a handful); False when unsure."""
    if len(parents) > _FEW_PARENTS:
        return False
    for parent in parents:
        try:
            sequence = int(parent[1:])
        except ValueError:
            return False
        at = bisect_left(sequences, sequence)
        if parent != f"s{sequence}" or at == len(sequences) or sequences[at] != sequence:
            return False
    return True


def _present(column: list[Any]) -> list[Any]:
    return list(compress(column, map(is_not, column, repeat(None))))


def check_columns(cols: TraceColumns) -> list[str]:
    """Every failed check, in docs/trace-gates.md §4 order (the first one is the reported error); [] when sound.

    Each check is a C-level pass over one column (set, count, min, sum, compress); the
    per-step Python loop that locates the offending step runs only when a check fails.
    """
    problems: list[str] = []

    def add(message: str) -> bool:
        problems.append(message)
        return len(problems) >= _MAX_PROBLEMS

    ids = cols.ids
    parents = cols.distinct_parents()
    # A trace as tftui writes it (ids `s<sequence>`, sequences ascending) has unique ids and
    # sequences by construction: proven without a set of a million ids or sequences.
    canonical = cols.increasing() and cols.canonical_ids()
    known: set[str] | None = None
    if not canonical:
        # Ids must be unique, or parent links are ambiguous.
        known = set(ids)
        if len(known) != len(ids):
            seen: set[str] = set()
            for step_id in ids:
                if step_id in seen and add(f"duplicate id {step_id}"):
                    return problems
                seen.add(step_id)
    if not (canonical and _canonical_parents_known(parents, cols.sequences)):
        if known is None:
            known = set(ids)
        if not parents <= known:
            for step_id, parent in zip(ids, cols.parent_ids, strict=True):
                if parent is not None and parent not in known and add(f"unknown parent {parent} for step {step_id}"):
                    return problems
    unique_ids = canonical or (known is not None and len(known) == len(ids))

    if not cols.increasing() and len(set(cols.sequences)) != len(cols.sequences):
        ordered = sorted(cols.sequences)
        for prev, cur in zip(ordered, ordered[1:], strict=False):
            if cur == prev and add(f"duplicate sequence {cur}"):
                return problems

    roots = cols.root_count()
    if roots != 1 and add(f"expected exactly one root step, found {roots}"):
        return problems
    cycle = _cycle_problem(ids, cols.parent_ids, parents) if unique_ids else None
    if cycle is not None and add(cycle):
        return problems

    root_status = cols.statuses[cols.parent_ids.index(None)] if roots else None
    if cols.status not in STEP_STATUSES or root_status not in STEP_STATUSES:
        if add("missing terminal status"):
            return problems

    # Numbers: a reader that checked every number as it read (fileload's typed decode) proved
    # all of this already (cols.numbers_sound); whatever it refused was read another way.
    if not cols.numbers_sound:
        numeric = (
            ("sequence", cols.sequences),
            ("attempt", cols.attempts),
            ("inputTokens", cols.input_tokens),
            ("outputTokens", cols.output_tokens),
            ("durationMs", cols.durations),
        )
        for field, column in numeric:
            if _column_sound(column):
                continue
            for step_id, value in zip(ids, column, strict=True):
                problem = _number_problem(field, value, step_id) if value is not None else None
                if problem is not None and add(problem):
                    return problems
        if 0 in _present(cols.attempts):
            for step_id, attempt in zip(ids, cols.attempts, strict=True):
                # docs/trace-gates.md §1: attempt is an integer ≥ 1 (0 would be a 0-based counter leaking into the trace).
                if attempt is not None and attempt == 0 and add(f"attempt {_num(attempt)} below 1 on step {step_id}"):
                    return problems

        # The distinct values answer for all of them (a value equal to a sound one is sound; NaN stays:
        # it equals nothing); a set of a million values costs a fraction of a type test per value.
        distinct = cols.metadata_values()
        numbers = [v for v in distinct if type(v) in _NUMBER_TYPES]
        if not _all_sound(numbers):
            for step_id, metadata in zip(ids, cols.metadata, strict=True):
                for key, meta_value in (metadata or {}).items():
                    problem = _number_problem(f"metadata.{key}", meta_value, step_id) \
                        if type(meta_value) in _NUMBER_TYPES else None
                    if problem is not None and add(problem):
                        return problems
    keys = cols.metadata_keys()
    if any(k.lower() in FORBIDDEN_METADATA_KEYS for k in keys):
        for step_id, metadata in zip(ids, cols.metadata, strict=True):
            for key in metadata or ():
                if key.lower() in FORBIDDEN_METADATA_KEYS and add(f"forbidden payload key '{key}' on step {step_id}"):
                    return problems
    return problems


# --- the published schema ---------------------------------------------------------------------------

SCHEMA_FILE = "trace.schema.json"
# Keywords whose verdict on a value depends only on its JSON type (and, for `enum`, the value of
# that one field): with only these in the step schema, one validation per distinct step shape
# answers for every step of that shape, which keeps a million-step trace fast.
_SHAPE_KEYWORDS = frozenset({"type", "enum", "description", "additionalProperties"})
_ABSENT = object()


@lru_cache(maxsize=1)
def trace_schema() -> dict[str, Any]:
    """The JSON Schema of the trace format (schemaVersion 1), as shipped in the package."""
    text = resources.files("tftui.trace").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


class _SchemaCheck:
    """The envelope validator, the step validator, and what makes two steps the same shape."""

    def __init__(self, schema: dict[str, Any]) -> None:
        from jsonschema import Draft202012Validator  # only a file the fast reader refused is schema-checked

        step = schema["$defs"]["step"]
        self.envelope = Draft202012Validator(schema)
        self.step = Draft202012Validator(step)
        props: dict[str, dict[str, Any]] = step["properties"]
        self.keys = tuple(props)
        self.enum_keys = tuple(k for k, rule in props.items() if "enum" in rule)
        self.object_keys = tuple(k for k, rule in props.items() if "object" in _types(rule))
        # `integer` tells 3.0 from 3.5, which the type alone does not.
        self.integer_keys = tuple(k for k, rule in props.items() if "integer" in _types(rule))
        self.cacheable = set(step) <= {"type", "required", "properties", "description"} and all(
            set(rule) <= _SHAPE_KEYWORDS and set(rule.get("additionalProperties") or {}) <= _SHAPE_KEYWORDS
            for rule in props.values()
        )
        self.valid_shapes: dict[tuple[Any, ...], bool] = {}

    def shape(self, step: Any) -> tuple[Any, ...] | None:
        """A hashable summary of everything the step schema looks at, or None (validate this step alone).

        Per field: its JSON type; for `enum` fields the string value; for object fields (metadata)
        the types of its values; for `integer` fields holding a float, whether it is integral.
        """
        if not self.cacheable or type(step) is not dict:
            return None
        get = step.get
        parts: list[Any] = [tuple(map(type, map(get, self.keys, repeat(_ABSENT))))]
        for key in self.enum_keys:
            value = get(key)
            parts.append(value if type(value) is str else None)
        for key in self.object_keys:
            value = get(key)
            if type(value) is dict:
                inner = frozenset(map(type, value.values()))
                if dict in inner or list in inner:
                    return None
                parts.append(inner)
        for key in self.integer_keys:
            value = get(key)
            if type(value) is float:
                parts.append((key, value.is_integer()))
        return tuple(parts)

    def step_errors(self, step: Any) -> Iterator[ValidationError]:
        shape = self.shape(step)
        if shape is not None:
            valid = self.valid_shapes.get(shape)
            if valid is None:
                valid = self.valid_shapes[shape] = self.step.is_valid(step)
            if valid:
                return iter(())
        errors: Iterator[ValidationError] = self.step.iter_errors(step)
        return errors


def _types(rule: dict[str, Any]) -> list[str]:
    kind = rule.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _where(path: Iterator[Any] | Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"


def schema_problems(data: Any) -> list[str]:
    """Every way the decoded trace JSON breaks the published schema, as `path: message`
    (`steps[3].kind: 'thinking' is not one of [...]`); [] when it conforms. Never raises."""
    check = _SchemaCheck(trace_schema())
    problems: list[str] = []
    steps = data.get("steps") if isinstance(data, dict) else None
    envelope = {**data, "steps": []} if isinstance(steps, list) else data
    for error in sorted(check.envelope.iter_errors(envelope), key=lambda e: list(e.absolute_path)):
        problems.append(f"{_where(error.absolute_path)}: {error.message}")
        if len(problems) >= _MAX_PROBLEMS:
            return problems
    for index, step in enumerate(steps if isinstance(steps, list) else ()):
        for error in check.step_errors(step):
            problems.append(f"{_where(['steps', index, *error.absolute_path])}: {error.message}")
            if len(problems) >= _MAX_PROBLEMS:
                return problems
    return problems


def schema_error(problems: list[str]) -> str | None:
    """The report's `error` field for schema problems (like `integrity_error`), or None."""
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"trace schema: {problems[0]}{more}"


def check_integrity(trace: AgentTrace | TraceColumns) -> list[str]:
    """Integrity problems of a trace ([] when it can be evaluated). Never raises."""
    cols = trace if isinstance(trace, TraceColumns) else TraceColumns.from_trace(trace)
    return check_columns(cols)


def integrity_error(problems: list[str]) -> str | None:
    """The report's `error` field (docs/trace-gates.md §4) for a list of problems, or None."""
    return f"trace integrity: {problems[0]}" if problems else None
