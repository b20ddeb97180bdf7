"""The flow linter: typos that taskflow's validator lets through (docs/linter.md).

A placeholder that names no phase (`{steps.zz.output}`), an unknown head (`{stesp.a.output}`), an
unknown field (`{steps.a.outptu}`), a `{steps.X.json.f}` field that X's `expect` contract does not
declare, an agent that no definition matches, a condition comparing a contract field with a
value its `enum` excludes, and a regex scorer pattern with nested quantifiers (which can backtrack
until its time budget runs out): each of these runs without complaint and sends the literal text (or
asks the default agent). The linter reports them as warnings (`tftui check --strict` makes them
errors); `strictInterpolation` does not promote them, as they are tftui's own, beyond taskflow.

Two entry points:

- `lint_flow(flow, …)`: every finding of a flow as a `Diagnostic` pinned on the placeholder's
  character inside its JSON string (the loader turns that into line:col).
- `lint_expression(text, scope, …)`: the findings of one text as the user types it (the guard
  editor, the data-breakpoint dialog): character offsets into `text`, a message and the
  suggested replacement. `phase_scope` builds the scope of a phase's field; `closed_scope`
  builds one from a plain tree of names (a data breakpoint's `{phase.attempt}`, …).

Everything here is pure and never raises on user input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tftui.flow.checks_phase import field_of
from tftui.flow.diagnostics import Diagnostic, JsonPath, did_you_mean, dotted
from tftui.flow.model import Flow, PhaseBase
from tftui.lang.condition import ConditionSyntaxError, Token, tokenize
from tftui.lang.interpolate import PLACEHOLDER_RE
from tftui.lang.jsops import js_numeric, js_string
from tftui.lang.jsregex import compile_js_regex, default_budget, nested_quantifier
from tftui.lang.values import MISSING, JSONValue, js_trim

__all__ = [
    "Finding",
    "PhaseFields",
    "Shape",
    "closed_scope",
    "interpolated_fields",
    "lint_expression",
    "lint_flow",
    "phase_scope",
]

# Fields read as conditions (docs/language.md §4); every other interpolated field is a template.
CONDITION_FIELDS = ("when", "until", "eval")
EXPECT_JSON_TYPES = ("agent", "reduce", "loop", "gate")
# What JavaScript answers on any value (`{steps.a.json.items.length}`): never a typo.
_JS_PROPS = frozenset(("length", "constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"))
_BRACED = re.compile(r"\{([^}]*)\}")
_LIST_MAX = 8  # known names listed in a message when nothing is close enough to suggest


@dataclass(frozen=True, slots=True)
class Shape:
    """What a placeholder path may name below one point of a scope.

    `fields` None: anything (an open value, e.g. a map item). `leaf`: a text, nothing may
    follow. `contract`: an `expect` contract describes what lies below (owned by phase `owner`).
    `noun` is what the keys here are called in messages; `notes` explain keys known elsewhere;
    `whole` False: the container never resolves by itself (`{steps.a}`, `{previous}`); `loose`: a key
    not in `fields` is reported only when it is close to one (undeclared args pass through)."""

    fields: Mapping[str, Shape] | None = None
    noun: str = "field"
    leaf: bool = False
    contract: JSONValue = MISSING
    owner: str | None = None
    notes: Mapping[str, str] = field(default_factory=dict)
    whole: bool = True
    loose: bool = False


OPEN = Shape()
TEXT = Shape(leaf=True)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in one text: `start`/`end` index the text (the placeholder or literal)."""

    start: int
    end: int
    kind: str  # unknown-head | unknown-phase | unknown-field | contract-field | enum-value
    message: str  # e.g. "{stesp.a.output}: unknown placeholder head 'stesp' — did you mean {steps.a.output}?"
    suggestion: str | None = None  # the corrected placeholder (or literal), None without a close guess


def closed_scope(tree: Mapping[str, object], noun: str = "placeholder head") -> Shape:
    """A scope from a plain tree: `{"phase": {"attempt": None, …}, …}` (None: a value, a Mapping:
    closed fields below, anything else: open)."""
    fields: dict[str, Shape] = {}
    for key, sub in tree.items():
        if sub is None:
            fields[key] = TEXT
        elif isinstance(sub, Mapping):
            fields[key] = closed_scope(sub, "field")
        else:
            fields[key] = OPEN
    return Shape(fields, noun)


# ---------------------------------------------------------------------------
# Walking a path through a scope


@dataclass(frozen=True, slots=True)
class _Miss:
    index: int  # the segment that fails
    kind: str
    problem: str  # what is wrong, without the placeholder
    fixed: list[str] | None  # the corrected segments, None without a guess


def _known_list(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LIST_MAX])
    return shown + (", …" if len(names) > _LIST_MAX else "")


def _walk(segments: list[str], shape: Shape) -> _Miss | None:
    node = shape
    for i, seg in enumerate(segments):
        if node.contract is not MISSING:
            return _contract_node(segments, i, node.contract, node.owner or "")[1]
        if node.leaf:
            return _past_leaf(segments, i)
        fields = node.fields
        if fields is None:
            return None
        sub = fields.get(seg)
        if sub is not None:
            node = sub
            continue
        known = list(fields)
        guess = did_you_mean(seg, known)
        if node.loose and guess is None:
            return None
        fixed = [*segments[:i], guess, *segments[i + 1 :]] if guess else None
        if node.noun == "placeholder head":
            kind, problem = "unknown-head", f"unknown placeholder head '{seg}'"
        elif node.noun == "phase":
            kind, problem = "unknown-phase", f"no phase '{seg}'"
        elif node.noun == "argument":
            kind, problem = "unknown-field", f"the flow declares no argument '{seg}'"
        else:
            kind, problem = "unknown-field", f"'{'.'.join(segments[:i])}' has no field '{seg}'"
        note = node.notes.get(seg)
        if note:
            problem += f" ({note})"
        elif guess is None and known:
            problem += f" (known: {_known_list(known)})"
        return _Miss(i, kind, problem, fixed)
    if not node.whole and node.fields is not None and node.fields:
        names = list(node.fields)
        return _Miss(
            len(segments) - 1,
            "unknown-field",
            f"'{'.'.join(segments)}' needs a field ({', '.join(names)})",
            [*segments, names[0]],
        )
    return None


def _past_leaf(segments: list[str], i: int) -> _Miss:
    """A segment after a text: `{steps.a.output.x}` never resolves."""
    before = ".".join(segments[:i])
    fixed: list[str] | None = None
    if i >= 1 and segments[i - 1] in ("output", "error") and len(segments) > 2 and segments[0] == "steps":
        fixed = [*segments[: i - 1], "json", *segments[i:]]  # fields of a reply are read through .json
    return _Miss(i, "unknown-field", f"'{before}' is text: '.{segments[i]}' makes it unresolved", fixed)


def _contract_type(schema: Mapping[str, JSONValue]) -> str | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return None


def _contract_node(
    segments: list[str], start: int, schema: JSONValue, owner: str
) -> tuple[JSONValue, _Miss | None, int]:
    """Follow `segments[start:]` through a contract: (the sub-contract reached, a miss, index)."""
    node = schema
    for i in range(start, len(segments)):
        seg = segments[i]
        if not isinstance(node, Mapping) or seg in _JS_PROPS:
            return MISSING, None, i
        kind = _contract_type(node)
        if kind == "object":
            props = node.get("properties")
            props = props if isinstance(props, Mapping) else {}
            required = node.get("required")
            required = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
            if seg in props:
                node = props[seg]
                continue
            if seg in required:
                node = {}
                continue
            declared = list(dict.fromkeys([*props, *required]))
            if not declared:
                return MISSING, None, i  # an object of any keys
            guess = did_you_mean(seg, declared)
            fixed = [*segments[:i], guess, *segments[i + 1 :]] if guess else None
            listed = "" if guess else f" (it declares {_known_list(declared)})"
            return MISSING, _Miss(i, "contract-field", f"no field '{seg}' in {owner}'s expect contract{listed}", fixed), i
        if kind == "array":
            if seg.isdigit():
                node = node.get("items", {})
                continue
            return MISSING, _Miss(i, "contract-field", f"{owner}'s expect contract makes '{'.'.join(segments[:i])}' an array: '.{seg}' is not an index", None), i
        if kind in ("string", "number", "integer", "boolean", "null"):
            if kind == "string" and seg.isdigit():
                return MISSING, None, i  # a character
            what = "null" if kind == "null" else f"a {kind}"
            return MISSING, _Miss(i, "contract-field", f"{owner}'s expect contract makes '{'.'.join(segments[:i])}' {what}: it has no field '{seg}'", None), i
        return MISSING, None, i  # no type: nothing known
    return node, None, len(segments)


def _enum_of(segments: list[str], shape: Shape) -> tuple[list[JSONValue], str] | None:
    """(the enum a contract gives the value at `segments`, its owner), or None."""
    node = shape
    for i, seg in enumerate(segments):
        if node.contract is not MISSING:
            sub, miss, end = _contract_node(segments, i, node.contract, node.owner or "")
            if miss is not None or end != len(segments) or not isinstance(sub, Mapping):
                return None
            enum = sub.get("enum")
            return (list(enum), node.owner or "") if isinstance(enum, list) and enum else None
        if node.fields is None or seg not in node.fields:
            return None
        node = node.fields[seg]
    return None


def _may_equal(value: JSONValue, literal: JSONValue) -> bool:
    """Whether `{ref} == literal` can hold when the ref is `value` (docs/language.md §4.4)."""
    number = js_numeric(literal)
    if number is not None:
        mine = js_numeric(value)
        if mine is not None:
            return mine == number
    return js_string(value) == js_string(literal)


# ---------------------------------------------------------------------------
# One text


def _template_refs(text: str) -> Iterator[tuple[int, int, str]]:
    for match in PLACEHOLDER_RE.finditer(text):
        if match.start() > 0 and text[match.start() - 1] == "$":
            continue  # `${HOME}` in a script or a JS template: not meant as a placeholder
        yield match.start(), match.end(), match.group(1)


def _condition_tokens(text: str) -> list[Token] | None:
    try:
        return tokenize(text)
    except ConditionSyntaxError:
        return None


def _condition_refs(text: str, tokens: list[Token] | None) -> Iterator[tuple[int, int, str]]:
    if tokens is None:  # a syntax error (reported as such): still look at what is braced
        for match in _BRACED.finditer(text):
            yield match.start(), match.end(), js_trim(match.group(1))
        return
    for kind, value, pos in tokens:
        if kind == "ref":
            end = text.find("}", pos)
            yield pos, (end + 1 if end >= 0 else len(text)), str(value)


def _suggest(fixed: list[str] | None) -> tuple[str, str | None]:
    if not fixed:
        return "", None
    text = "{" + ".".join(fixed) + "}"
    return f" — did you mean {text}?", text


def _ref_findings(refs: Iterator[tuple[int, int, str]], scope: Shape) -> Iterator[Finding]:
    for start, end, path in refs:
        if not path:
            continue
        miss = _walk(path.split("."), scope)
        if miss is None:
            continue
        hint, fixed = _suggest(miss.fixed)
        yield Finding(start, end, miss.kind, f"{{{path}}}: {miss.problem}{hint}", fixed)


def _enum_findings(text: str, tokens: list[Token], scope: Shape) -> Iterator[Finding]:
    for i in range(len(tokens) - 2):
        (k1, v1, p1), (k2, op, _), (k3, v3, p3) = tokens[i], tokens[i + 1], tokens[i + 2]
        if k2 != "op" or op not in ("==", "!="):
            continue
        if k1 == "ref" and k3 == "lit":
            path, literal, at = str(v1), v3, p3
        elif k1 == "lit" and k3 == "ref":
            path, literal, at = str(v3), v1, p1
        else:
            continue
        found = _enum_of(path.split("."), scope)
        if found is None:
            continue
        values, owner = found
        if any(_may_equal(v, literal) for v in values):
            continue
        shown = js_string(literal)
        words = [js_string(v) for v in values]
        guess = did_you_mean(shown, words)
        hint = f" — did you mean '{guess}'?" if guess else ""
        always = "false" if op == "==" else "true"
        end = _literal_end(text, at)
        yield Finding(
            at,
            end,
            "enum-value",
            f"{{{path}}} {op} {text[at:end]}: '{shown}' is not a value {owner}'s expect contract allows "
            f"({_known_list(words)}), so this comparison is always {always}{hint}",
            guess,
        )


def _literal_end(text: str, at: int) -> int:
    quote = text[at : at + 1]
    if quote in ("'", '"'):
        close = text.find(quote, at + 1)
        return close + 1 if close >= 0 else len(text)
    match = re.compile(r"[^\s&|!=<>()\"'{}]*").match(text, at)
    return match.end() if match else at + 1


def lint_expression(text: JSONValue, scope: Shape, *, condition: bool = True) -> list[Finding]:
    """The findings of one text, in order: a condition (`when`, `until`, `eval`, a data
    breakpoint) or, with `condition=False`, a template. Never raises."""
    if not isinstance(text, str) or "{" not in text:
        return []
    if not condition or text.find(" contains ") > 0:  # `left contains right` is a template (docs/language.md §4.8)
        return list(_ref_findings(_template_refs(text), scope))
    tokens = _condition_tokens(text)
    found = list(_ref_findings(_condition_refs(text, tokens), scope))
    if tokens is not None:
        found.extend(_enum_findings(text, tokens, scope))
    return sorted(found, key=lambda f: f.start)


# ---------------------------------------------------------------------------
# A phase's scope


def interpolated_fields(phase: PhaseBase) -> list[tuple[JsonPath, JSONValue]]:
    """Every field of a phase that is interpolated (or evaluated) at run time, with its path
    (a load works them out once per phase: `PhaseFields`)."""
    texts: list[tuple[JsonPath, JSONValue]] = [
        (("task",), phase.task),
        (("over",), field_of(phase, "over")),
        (("when",), phase.when),
        (("until",), field_of(phase, "until")),
        (("cwd",), phase.cwd),
        (("input",), field_of(phase, "input")),
        (("def",), field_of(phase, "def_")),
    ]
    run = field_of(phase, "run")
    if isinstance(run, list):
        texts += [(("run", i), r) for i, r in enumerate(run)]
    for i, entry in enumerate(field_of(phase, "eval") or []):
        texts.append((("eval", i), entry))
    score = field_of(phase, "score")
    if isinstance(score, dict):
        texts.append((("score", "target"), score.get("target")))
        judge = score.get("judge")
        if isinstance(judge, dict):
            texts.append((("score", "judge", "task"), judge.get("task")))
    for i, branch in enumerate(field_of(phase, "branches") or []):
        texts.append((("branches", i, "task"), branch.task))
    for key, value in (field_of(phase, "with_") or {}).items():
        texts.append((("with", key), value))
    for i, entry in enumerate(phase.context or []):
        texts.append((("context", i), entry))
    return texts


FieldTexts = list[tuple[JsonPath, JSONValue]]


class PhaseFields:
    """`interpolated_fields` of each phase, worked out once per load: the checks read a phase's
    references from them (`checks.collect_refs`) and the linter lints them (`lint_flow`), a pass
    of its own that may come later (`load.lint_loaded`). A phase is known by identity, as in
    `checks.CheckMemo` (the loader builds a new object for a phase whose JSON changed, and
    nothing edits a built phase). The lists are shared: read them, do not change them."""

    def __init__(self) -> None:
        self._of: dict[int, tuple[PhaseBase, FieldTexts]] = {}

    def __call__(self, phase: PhaseBase) -> FieldTexts:
        hit = self._of.get(id(phase))
        if hit is not None and hit[0] is phase:
            return hit[1]
        texts = interpolated_fields(phase)
        self._of[id(phase)] = (phase, texts)
        return texts


def _contract_of(phase: PhaseBase) -> JSONValue:
    if phase.type not in EXPECT_JSON_TYPES or phase.output != "json" or not isinstance(phase.expect, dict):
        return MISSING
    if phase.type == "gate" and field_of(phase, "score") is not None:
        return MISSING  # a scoring gate's json is its score result
    return phase.expect


_PLAIN_STEP = Shape({"output": TEXT, "json": OPEN, "error": TEXT}, whole=False)


def _steps_shape(flow: Flow) -> Shape:
    phases: dict[str, Shape] = {}
    for p in flow.phases:
        if isinstance(p.id, str) and p.id not in phases:
            contract = _contract_of(p)
            if contract is MISSING:
                phases[p.id] = _PLAIN_STEP
            else:
                json = Shape(contract=contract, owner=p.id)
                phases[p.id] = Shape({"output": TEXT, "json": json, "error": TEXT}, whole=False)
    return Shape(phases, "phase")


def _args_shape(flow: Flow) -> Shape:
    """Declared args are open values; an undeclared name passes through (docs/language.md §1.3), so
    it is reported only when it is close to a declared one (`{args.topci}` for `topic`)."""
    if not flow.args:
        return OPEN
    return Shape({name: OPEN for name in flow.args}, "argument", loose=True)


_LOCAL_NOTES = {
    "item": "set only in a map phase's task",
    "loop": "set only in a loop phase's task and until",
    "reflexion": "set only in a loop with reflexion: true",
}


def phase_scope(flow: Flow, phase: PhaseBase | str, field_name: str = "when", *, steps: Shape | None = None) -> Shape:
    """What placeholders may name in `field_name` (`task`, `when`, `until`, …) of `phase`
    (docs/language.md §3.2, §3.7). `steps`: a prebuilt `{steps.…}` shape (one per flow)."""
    if isinstance(phase, str):
        found = next((p for p in flow.phases if p.id == phase), None)
        if found is None:
            return OPEN
        phase = found
    heads: dict[str, Shape] = {
        "steps": steps if steps is not None else _steps_shape(flow),
        "args": _args_shape(flow),
        "previous": Shape({"output": OPEN}, whole=False),
    }
    notes = dict(_LOCAL_NOTES)
    if phase.type == "map":
        name = field_of(phase, "as_") or "item"
        if field_name == "task":
            heads[name] = OPEN
            notes.pop(name, None)
        else:
            notes[name] = "a map's item is set only in its task"
    if phase.type == "loop" and field_name in ("task", "until"):
        heads["loop"] = Shape({"iteration": TEXT, "lastOutput": TEXT, "maxIterations": TEXT})
        if field_of(phase, "reflexion") is True:
            heads["reflexion"] = TEXT
    return Shape(heads, "placeholder head", notes=notes)


# ---------------------------------------------------------------------------
# The whole flow


def _agent_fields(phase: PhaseBase) -> Iterator[tuple[JsonPath, str]]:
    if isinstance(phase.agent, str):
        yield ("agent",), phase.agent
    for i, branch in enumerate(field_of(phase, "branches") or []):
        if isinstance(branch.agent, str):
            yield ("branches", i, "agent"), branch.agent
    judge_agent = field_of(phase, "judge_agent")
    if isinstance(judge_agent, str):
        yield ("judgeAgent",), judge_agent
    score = field_of(phase, "score")
    judge = score.get("judge") if isinstance(score, dict) else None
    if isinstance(judge, dict) and isinstance(judge.get("agent"), str):
        yield ("score", "judge", "agent"), judge["agent"]


_AGENT_NAME = re.compile(r"[a-z][a-z0-9-]*")


def _agent_diagnostics(
    phase: PhaseBase, base: JsonPath, agents: Collection[str], hints: dict[str, str]
) -> Iterator[Diagnostic]:
    """`hints`: the hint for each unknown name, worked out once per flow (2,000 phases naming
    one unknown agent asked difflib 2,000 times on every save)."""
    for path, name in _agent_fields(phase):
        if name in agents or not _AGENT_NAME.fullmatch(name):
            continue  # a bad format is reported by the checks (docs/language.md §1.4)
        hint = hints.get(name)
        if hint is None:
            known = sorted(agents)
            guess = did_you_mean(name, known)
            hint = hints[name] = f" — did you mean '{guess}'?" if guess else f" (known: {_known_list(known)})"
        yield Diagnostic(
            "warning",
            f"Phase '{phase.id}': {dotted(path)} '{name}' is not defined in agents/ beside the flow, the user's "
            f"agents folder or the built-ins; its calls go to the default agent{hint}",
            phase_id=phase.id,
            field=dotted(path),
            path=(*base, *path),
        )


_MAX_DEF_DEPTH = 5  # as deep as sub-flows may nest (docs/language.md §2.5)


def _inline_def(phase: PhaseBase, base: JsonPath, agents: Collection[str] | None, depth: int) -> list[Diagnostic]:
    """The findings of an inline `def` object (a sub-flow written in the file), at their own place."""
    from tftui.flow.load import build_flow

    raw = field_of(phase, "def_")
    if depth >= _MAX_DEF_DEPTH or not isinstance(raw, dict) or not isinstance(raw.get("phases"), list):
        return []
    sub, _, indices = build_flow(raw)
    if sub is None:
        return []
    out: list[Diagnostic] = []
    for d in lint_flow(sub, indices=indices, agents=agents, _depth=depth + 1):
        inner = f"{phase.id}/{d.phase_id}"  # the node path of the sub-flow's phase (docs/language.md §7)
        message = d.message.replace(f"Phase '{d.phase_id}'", f"Phase '{inner}'", 1)
        out.append(replace(d, message=message, phase_id=inner, path=(*base, "def", *d.path)))
    return out


def _regex_diagnostics(phase: PhaseBase, base: JsonPath) -> Iterator[Diagnostic]:
    """A regex scorer whose pattern repeats a group that itself repeats (docs/linter.md §2.4)."""
    score = getattr(phase, "score", None)
    scorers = score.get("scorers") if isinstance(score, dict) else None
    for i, scorer in enumerate(scorers if isinstance(scorers, list) else []):
        pattern = scorer.get("pattern") if isinstance(scorer, dict) and scorer.get("type") == "regex" else None
        if not isinstance(pattern, str) or compile_js_regex(pattern).error is not None:
            continue  # not a pattern, or one the checks already report
        nested = nested_quantifier(pattern)
        if nested is None:
            continue
        path = ("score", "scorers", i, "pattern")
        yield Diagnostic(
            "warning",
            f"Phase '{phase.id}': {dotted(path)}: {nested} repeats a group that itself repeats, so a "
            f"near-miss can backtrack exponentially; the match is cut after {round(default_budget() * 1000)}ms "
            "and the scorer fails — let each repetition match a distinct part (e.g. \\w+(?:\\s\\w+)* "
            "rather than (\\w+\\s?)+)",
            phase_id=phase.id,
            field=dotted(path),
            path=(*base, *path),
        )


def lint_flow(
    flow: Flow,
    *,
    indices: Sequence[int] | None = None,
    agents: Collection[str] | None = None,
    fields: Callable[[PhaseBase], FieldTexts] = interpolated_fields,
    _depth: int = 0,
) -> list[Diagnostic]:
    """Every linter finding of `flow` as a warning pinned on its character (docs/linter.md).
    `indices[k]`: the position of `flow.phases[k]` in the file's `phases` (as for check_flow);
    `agents`: every agent name a call can find (None: the agent check is skipped); `fields`: a
    phase's interpolated fields (the load's `PhaseFields`, which the checks filled). An inline
    `def` is linted as the flow it is."""
    out: list[Diagnostic] = []
    steps = _steps_shape(flow)
    scopes: dict[tuple[str, str, object, object], Shape] = {}  # phases of one kind share a scope
    hints: dict[str, str] = {}  # unknown agent name -> its hint
    for k, phase in enumerate(flow.phases):
        base: JsonPath = ("phases", indices[k] if indices and k < len(indices) else k)
        if not isinstance(phase.id, str):
            continue
        for path, text in fields(phase):
            if not isinstance(text, str) or "{" not in text:
                continue
            name = str(path[0])
            key = (phase.type, name, field_of(phase, "as_"), field_of(phase, "reflexion"))
            scope = scopes.get(key)
            if scope is None:
                scope = scopes[key] = phase_scope(flow, phase, name, steps=steps)
            for found in lint_expression(text, scope, condition=name in CONDITION_FIELDS):
                out.append(
                    Diagnostic(
                        "warning",
                        f"Phase '{phase.id}': {dotted(path)}: {found.message}",
                        phase_id=phase.id,
                        field=dotted(path),
                        path=(*base, *path),
                        char=found.start,
                    )
                )
        if agents is not None:
            out.extend(_agent_diagnostics(phase, base, agents, hints))
        if phase.type in ("flow", "expand"):
            out.extend(_inline_def(phase, base, agents, _depth))
        out.extend(_regex_diagnostics(phase, base))
    return out
