"""One journal line per event: compact JSON, secrets redacted, as cheaply as possible.

A journal line is written for every event, two per model call, so this is the hot path
of a journaled run. Costs avoided on purpose:
- no per-call encoder construction (json.dumps with kwargs builds one): one prebuilt C
  encoder;
- no deep copies: `event_to_json(plain=False)` shares the event's containers, and the
  MISSING-replacing walk only runs when the encoder actually meets a MISSING;
- no full redaction walk: the serialized line is checked with a few substring tests
  (`might_contain_secret`) and only then redacted and re-serialized; run args are
  always redacted structurally;
- no second needle scan of a container text met clean a moment ago (`_CLEAN`: a gate's
  scorer results come in two events, its `{"verdict":"pass"}` in every one);
- no second needle scan of a fan-out's answers in its merged output (`join_sections`: the
  headings are checked, the answers were in their own lines);
- the per-call events (AttemptStarted, AgentReturned) are formatted by hand, with the
  same keys, order and values as the generic path. Their keys are fixed and not secret,
  so only their free-text values need the (shorter) text pre-check
  (`might_contain_text_secret`); a hit sends the event down the generic path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import islice, repeat
from json.encoder import encode_basestring as _encode_str
from math import isfinite
from typing import TYPE_CHECKING, Any

from tftui.engine.events import (
    EVENT_TYPES,
    AgentReturned,
    AttemptStarted,
    Event,
    GateVerdict,
    GuardEvaluated,
    PhaseFinished,
    PhaseSkipped,
    PhaseStarted,
    RunStarted,
    ScorersEvaluated,
    UnknownEvent,
    event_to_json,
    plain_json,
)
from tftui.lang.values import MISSING, JSONObject, JSONValue
from tftui.redaction import (
    has_secret_needle,
    has_text_needle,
    holds_registered_secret,
    is_secret_key,
    might_contain_secret,
    might_contain_text_secret,
    redact,
)

if TYPE_CHECKING:
    from _json import make_encoder


def _encode(event: Event | JSONObject, *, plain: bool = True) -> JSONObject:
    if isinstance(event, Event):
        data = event_to_json(event, plain=plain)
        if isinstance(event, RunStarted) and event.args:
            data["args"] = redact(event.args)  # args are where configured secrets arrive
        return data
    if event.get("kind") == "run_started" and event.get("args"):  # a row copied from a journal
        return {**event, "args": redact(event["args"])}
    return event


class _HasMissing(Exception):
    """Raised by the encoder's `default` when a value holds MISSING (JS undefined)."""


def _default(value: object) -> str:
    if value is MISSING:
        raise _HasMissing
    return str(value)


_C_ENCODER: make_encoder | None
try:  # the C encoder json.dumps uses, built once (json.dumps builds an encoder per call with kwargs)
    from _json import make_encoder as _c_make_encoder  # (what json.encoder.c_make_encoder is)
except ImportError:  # pragma: no cover - CPython always has _json
    _C_ENCODER = None
else:
    _C_ENCODER = _c_make_encoder(None, _default, _encode_str, None, ":", ",", False, False, True)

if _C_ENCODER is not None:
    _encoder = _C_ENCODER

    def _dumps(data: JSONValue) -> str:
        try:
            return "".join(_encoder(data, 0))
        except _HasMissing:
            raise
        except (TypeError, ValueError, RecursionError):
            return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
else:  # pragma: no cover

    def _dumps(data: JSONValue) -> str:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_default)


# The last long texts encoded (id -> (text, JSON text, has a needle)): one text is often in two
# events (a call's output in AgentReturned and PhaseFinished, a final phase's output in
# RunFinished), and encoding and scanning ~100 KB twice was most of a journaled map's cost. The
# text itself is kept, so its id is not reused while the entry lives.
_LONG_TEXT = 4096  # chars of output above which a line is built and checked field by field
_TEXTS: dict[int, tuple[str, str, bool]] = {}
_TEXTS_MAX = 8


def _long_text(value: str, known: dict[int, str] | None = None) -> tuple[str, bool]:
    """(JSON text, `has_text_needle`) of a long string, from `_TEXTS` when it was just met;
    `known`: texts of the phase's calls found without a needle (`_joined_needle`)."""
    hit = _TEXTS.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1], hit[2]
    needle = _joined_needle(value, known) if known is not None else None
    found = _encode_str(value), has_text_needle(value) if needle is None else needle
    if len(_TEXTS) >= _TEXTS_MAX:
        del _TEXTS[next(iter(_TEXTS))]
    _TEXTS[id(value)] = (value, *found)
    return found


# A fan-out's merged output is its items' answers between headings (docs/language.md §6.5), and
# each answer was checked for needles a moment before, in its AgentReturned line: checking the
# ~95 KB text of a 1,000-item map again cost 0.66 ms, most of that line. So the answers each
# line found without a needle are kept by identity, per phase (`_KNOWN`, dropped when the phase
# finishes), and a text built by `join_sections` is checked from its headings alone when every
# answer in it is known. Needles hold no newline and every heading starts (but the first) and
# ends with one, so no needle can run across an answer's edge; the registered secrets, which
# may hold newlines, are still looked for in the whole text (`holds_registered_secret`).
_KNOWN: dict[str, dict[int, str]] = {}
_KNOWN_PHASES = 64  # phases whose calls are remembered at once (one that never finishes is dropped in time)
_KNOWN_MAX = 1 << 20  # texts remembered for one phase
_JOINED: dict[int, tuple[str, list[str], list[str]]] = {}  # id(text) -> (text, headings, bodies)
_JOINED_MAX = 4  # merged outputs waiting for their PhaseFinished line (a run without a journal never reads them)


def _note_known(phase_id: str, text: str) -> None:
    """Remember `text` as met without a needle in a line of `phase_id`'s calls."""
    known = _KNOWN.get(phase_id)
    if known is None:
        if len(_KNOWN) >= _KNOWN_PHASES:
            del _KNOWN[next(iter(_KNOWN))]
        known = _KNOWN[phase_id] = {}
    elif len(known) >= _KNOWN_MAX:
        known.clear()
    known[id(text)] = text  # the text is kept: its id is not reused while the entry lives


def join_sections(heads: list[str], bodies: list[str]) -> str:
    """heads[0] + bodies[0] + heads[1] + bodies[1] + ...: a fan-out's merged output, built here so
    its journal line can check it from its parts (`_joined_needle`). `bodies` are the answers as
    the calls returned them (the same objects)."""
    parts: list[str] = [""] * (2 * len(heads))
    parts[::2] = heads
    parts[1::2] = bodies
    text = "".join(parts)
    if len(text) >= _LONG_TEXT:
        if len(_JOINED) >= _JOINED_MAX:
            del _JOINED[next(iter(_JOINED))]
        _JOINED[id(text)] = (text, heads, bodies)
    return text


def _joined_needle(text: str, known: dict[int, str]) -> bool | None:
    """`has_text_needle(text)` for a text `join_sections` built whose every body is in `known`
    (ids of live objects are unique, and `known` keeps its texts alive), from its headings; None
    when that cannot be told so (then the whole text is checked)."""
    joined = _JOINED.pop(id(text), None)  # its phase has finished: not kept longer
    if joined is None or joined[0] is not text or not known:
        return None
    heads, bodies = joined[1], joined[2]
    if not known.keys() >= set(map(id, bodies)):
        return None
    newline = repeat("\n")
    if not all(map(str.endswith, heads, newline)) or not all(map(str.startswith, islice(heads, 1, None), newline)):
        return None
    return has_text_needle("\n".join(heads))


def _attempt_started_line(e: AttemptStarted) -> str | None:
    seq, ts, attempt, phase_id, node_path, prompt, agent = e.seq, e.ts, e.attempt, e.phase_id, e.node_path, e.prompt, e.agent
    if type(seq) is not int or type(ts) is not float or type(attempt) is not int or not isfinite(ts):
        return None
    if might_contain_text_secret(f"{phase_id}\n{node_path}\n{prompt}\n{agent}"):
        return None
    return (
        f'{{"kind":"attempt_started","seq":{seq},"ts":{ts!r},"phase_id":{_encode_str(phase_id)},'
        f'"node_path":{_encode_str(node_path)},"attempt":{attempt},"prompt":{_encode_str(prompt)},'
        f'"agent":{_encode_str(agent)}}}\n'
    )


def _phase_started_line(e: PhaseStarted) -> str | None:
    ts = e.ts
    if type(e.seq) is not int or type(ts) is not float or type(e.depth) is not int or type(e.round) is not int:
        return None
    if not isfinite(ts) or might_contain_text_secret(e.phase_id + "\n" + e.phase_type):
        return None
    return (
        f'{{"kind":"phase_started","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"phase_type":{_encode_str(e.phase_type)},"depth":{e.depth},"round":{e.round}}}\n'
    )


# Usage keys written by Usage.to_json; any other key (or a non-number value) takes the generic path.
_USAGE_KEYS = frozenset({"input", "output", "costUSD", "cacheRead", "cacheWrite"})


def _numbers_text(usage: dict[str, Any], keys: frozenset[str]) -> str | None:
    """A usage dict as the C encoder writes it, when every key is one of `keys` (plain ASCII
    names: nothing to escape or redact) and every value a finite int or float (`repr`, as the
    encoder writes numbers); else None (the generic path)."""
    parts = []
    for k, v in usage.items():
        kind = type(v)
        if k not in keys or not (kind is int or (kind is float and isfinite(v))):
            return None
        parts.append(f'"{k}":{v!r}')
    return "{" + ",".join(parts) + "}"


def _agent_returned_line(e: AgentReturned) -> str | None:
    ts, duration, usage = e.ts, e.duration_ms, e.usage
    if (
        type(e.seq) is not int
        or type(ts) is not float
        or type(e.attempt) is not int
        or type(duration) is not float
        or type(e.exit_code) is not int
        or not isfinite(ts)
        or not isfinite(duration)
    ):
        return None
    usage_text = "null" if usage is None else _numbers_text(usage, _USAGE_KEYS)
    if usage_text is None:
        return None
    output = e.output
    if len(output) >= _LONG_TEXT:  # a long answer is often met again (PhaseFinished): `_long_text`
        output_text, needle = _long_text(output)
        texts: tuple[str, ...] = (e.phase_id, e.node_path) if e.error is None else (e.phase_id, e.node_path, e.error)
        if needle or holds_registered_secret(output) or might_contain_text_secret("\n".join(texts)):
            return None
    else:
        texts = (e.phase_id, e.node_path, output) if e.error is None else (e.phase_id, e.node_path, output, e.error)
        if might_contain_text_secret("\n".join(texts)):
            return None
        output_text = _encode_str(output)
    _note_known(e.phase_id, output)  # met without a needle: the phase's merged output holds it (`_KNOWN`)
    error = "null" if e.error is None else _encode_str(e.error)
    return (
        f'{{"kind":"agent_returned","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"node_path":{_encode_str(e.node_path)},"attempt":{e.attempt},"output":{output_text},'
        f'"error":{error},"usage":{usage_text},"duration_ms":{duration!r},'
        f'"timed_out":{"true" if e.timed_out else "false"},"exit_code":{e.exit_code},'
        f'"resumed":{"true" if e.resumed else "false"}}}\n'
    )


def _guard_evaluated_line(e: GuardEvaluated) -> str | None:
    ts, value, overridden, error = e.ts, e.value, e.overridden, e.error
    if type(e.seq) is not int or type(ts) is not float or type(value) is not bool or type(overridden) is not bool:
        return None
    texts = (e.phase_id, e.expr) if error is None else (e.phase_id, e.expr, error)
    if not isfinite(ts) or might_contain_text_secret("\n".join(texts)):
        return None
    return (
        f'{{"kind":"guard_evaluated","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"expr":{_encode_str(e.expr)},"value":{"true" if value else "false"},'
        f'"error":{"null" if error is None else _encode_str(error)},'
        f'"overridden":{"true" if overridden else "false"}}}\n'
    )


def _phase_skipped_line(e: PhaseSkipped) -> str | None:
    ts = e.ts
    if type(e.seq) is not int or type(ts) is not float or not isfinite(ts):
        return None
    if might_contain_text_secret(e.phase_id + "\n" + e.reason):
        return None
    return (
        f'{{"kind":"phase_skipped","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"reason":{_encode_str(e.reason)}}}\n'
    )


# A phase's usage tally as PhaseFinished carries it (tftui.engine.state.empty_usage's keys).
_TALLY_KEYS = frozenset({"input", "output", "cost", "cacheRead", "cacheWrite", "turns", "unpriced", "untracked"})


# JSON texts of containers recently found without a needle (`has_secret_needle`), oldest first:
# the same small containers come again and again (a gate's `{"verdict":"pass"}`, its scorer
# results in ScorersEvaluated and again in PhaseFinished.json), and the needle scan of a few
# hundred characters cost more than encoding them. Keyed by the text itself, so a hit is the
# same text; the registered secrets are still checked every time.
_CLEAN: dict[str, None] = {}
_CLEAN_MAX = 512


def _container(value: JSONValue, met: str | None = None) -> str | None:
    """A container field serialized, or None when it might need redaction (or holds MISSING).
    `met`: a text of the same line already found without a free-text needle (a json phase's
    output); a container that serializes to exactly that text (a compact JSON answer: bench
    flow c's 25 KB list, whose 12 scans cost 0.16 ms) is only searched for the one needle
    `has_secret_needle` adds."""
    try:
        text = _dumps(value)
    except _HasMissing:
        return None
    if text not in _CLEAN:
        if (text != met or "private" in text.lower()) and has_secret_needle(text):
            return None
        if len(text) < _LONG_TEXT:
            if len(_CLEAN) >= _CLEAN_MAX:
                del _CLEAN[next(iter(_CLEAN))]
            _CLEAN[text] = None
    return None if holds_registered_secret(text) else text


def _json_part(value: JSONValue, met: str | None = None) -> str | None:
    """`"json":<value>,` of an event's optional `json` ("" when MISSING: omitted), or None when it
    might need redaction or holds a MISSING (`met`: see `_container`)."""
    if value is MISSING:
        return ""
    text = _container(value, met)
    return None if text is None else f'"json":{text},'


def _phase_finished_line(e: PhaseFinished) -> str | None:
    ts, duration, usage, output, error, warnings = e.ts, e.duration_ms, e.usage, e.output, e.error, e.warnings
    if (
        type(e.seq) is not int
        or type(ts) is not float
        or type(duration) is not float
        or type(e.attempts) is not int
        or type(warnings) is not list
        or not isfinite(ts)
        or not isfinite(duration)
    ):
        return None
    usage_text = "null" if usage is None else _numbers_text(usage, _TALLY_KEYS)
    if usage_text is None:
        return None
    known = _KNOWN.pop(e.phase_id, None) or {}  # the phase's calls are over
    if output is not None and len(output) >= _LONG_TEXT:  # often the call's answer again: `_long_text`
        output_text, needle = _long_text(output, known)
        if needle or holds_registered_secret(output):
            return None
        texts = [e.phase_id, e.status, error or "", *warnings]
    else:
        texts = [e.phase_id, e.status, output or "", error or "", *warnings]
        output_text = "null" if output is None else _encode_str(output)
    if might_contain_text_secret("\n".join(texts)):
        return None
    json_part = _json_part(e.json, output)  # the output has no free-text needle (both checks above)
    if json_part is None:
        return None
    gate = "null" if e.gate is None else _container(e.gate)
    extra = "{}" if not e.extra else _container(e.extra)
    if gate is None or extra is None:
        return None
    return (
        f'{{"kind":"phase_finished","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"status":{_encode_str(e.status)},"output":{output_text},'
        f'{json_part}"error":{"null" if error is None else _encode_str(error)},'
        f'"warnings":{_dumps(warnings) if warnings else "[]"},"usage":{usage_text},'
        f'"attempts":{e.attempts},"gate":{gate},"duration_ms":{duration!r},"extra":{extra}}}\n'
    )


def _number(value: object) -> str | None:
    """A finite int or float as the C encoder writes it (repr), else None (the generic path)."""
    kind = type(value)
    if kind is int or (kind is float and isfinite(value)):  # type: ignore[arg-type]
        return repr(value)
    return None


def _scorers_evaluated_line(e: ScorersEvaluated) -> str | None:
    """A score gate's ScorersEvaluated (one per gate evaluation)."""
    ts, combined = e.ts, _number(e.combined)
    threshold = "null" if e.threshold is None else _number(e.threshold)
    if type(e.seq) is not int or type(ts) is not float or not isfinite(ts) or combined is None or threshold is None:
        return None
    if type(e.stage) is not str or type(e.report) is not str:
        return None
    if might_contain_text_secret("\n".join((e.phase_id, e.stage, e.report))):
        return None
    results = _container(e.results)
    if results is None:
        return None
    return (
        f'{{"kind":"scorers_evaluated","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"results":{results},"combined":{combined},"threshold":{threshold},"stage":{_encode_str(e.stage)},'
        f'"report":{_encode_str(e.report)}}}\n'
    )


def _gate_verdict_line(e: GateVerdict) -> str | None:
    """A gate's or approval's GateVerdict (one per evaluation)."""
    ts, reason = e.ts, e.reason
    combined = "null" if e.combined is None else _number(e.combined)
    if type(e.seq) is not int or type(ts) is not float or not isfinite(ts) or type(e.round) is not int:
        return None
    if combined is None or type(e.prompts) is not list or type(e.output) is not str:
        return None
    if might_contain_text_secret("\n".join((e.phase_id, e.verdict, reason or "", e.source, e.output))):
        return None
    json_part = _json_part(e.json)
    if json_part is None:
        return None
    prompts = "[]" if not e.prompts else _container(e.prompts)
    if prompts is None:
        return None
    return (
        f'{{"kind":"gate_verdict","seq":{e.seq},"ts":{ts!r},"phase_id":{_encode_str(e.phase_id)},'
        f'"verdict":{_encode_str(e.verdict)},"reason":{"null" if reason is None else _encode_str(reason)},'
        f'"source":{_encode_str(e.source)},"round":{e.round},{json_part}"prompts":{prompts},'
        f'"combined":{combined},"output":{_encode_str(e.output)}}}\n'
    )


# Hand-written lines (with their newline) for the per-call events (two per model call, i.e.
# most of a journal) and the per-phase ones (guard, start, skip, finish): same keys, order and values as event_to_json + the C encoder, about
# three times cheaper. Only for plain field types and text without credential-like
# fragments; anything else returns None and takes the generic path.
# (each maker takes the event class it is keyed by, hence `Any`)
_FAST_LINES: dict[type[object], Callable[[Any], str | None]] = (
    {AttemptStarted: _attempt_started_line, AgentReturned: _agent_returned_line, PhaseStarted: _phase_started_line,
     GuardEvaluated: _guard_evaluated_line, PhaseSkipped: _phase_skipped_line, PhaseFinished: _phase_finished_line,
     ScorersEvaluated: _scorers_evaluated_line, GateVerdict: _gate_verdict_line}
    if _C_ENCODER is not None
    else {}
)


# Top-level keys of a known event's JSON (its field names): fixed and, checked here, not
# secret-named, so a plain string under one of them only needs the free-text pre-check.
_FIELD_KEYS = frozenset(
    name
    for cls in EVENT_TYPES.values()
    if cls is not UnknownEvent
    for name in ("kind", *(f for f in cls.__dataclass_fields__))
    if not is_secret_key(name)
)




def _long_line(event: Event | JSONObject, data: JSONObject) -> tuple[str, bool] | None:
    """A known event carrying long text (a merged fan-out output, a final output): its line
    built field by field, each value serialized once, and whether it might need redaction.
    Top-level strings only need the three free-text needles (their keys are field names,
    never secret); containers get the full check (they may hold secret-named keys).
    None: not such an event, take the whole-line path."""
    text = data.get("output") or data.get("final_output")  # where long text lives (checked first: cheap)
    if type(text) is not str or len(text) < _LONG_TEXT:
        return None
    if not isinstance(event, Event) or isinstance(event, UnknownEvent):
        return None
    parts: list[str] = []
    suspect = False
    for key, value in data.items():
        if key not in _FIELD_KEYS:
            return None
        if type(value) is str:
            if len(value) >= _LONG_TEXT:
                text, needle = _long_text(value)
                suspect = suspect or needle or holds_registered_secret(value)
            else:
                text = _encode_str(value)
                suspect = suspect or might_contain_text_secret(value)
        else:
            text = _dumps(value)
            if not suspect and value is not None and type(value) not in (bool, int, float):
                suspect = might_contain_secret(text)
        parts.append(f"{_encode_str(key)}:{text}")
    return "{" + ",".join(parts) + "}", suspect


def encode_line(event: Event | JSONObject) -> str:
    """One journal line (with its newline) for an engine Event or a plain dict, secrets redacted."""
    return encode_event(event)[0]


def encode_event(event: Event | JSONObject) -> tuple[str, JSONObject | None]:
    """The journal line of `event` (with its newline) and, when redaction changed it, the
    redacted JSON object the line holds (else None: the line says what the event says, apart
    from a RunStarted's args, which are always masked structurally).

    The one encoding of an event: the journal writes the line, and a reader that must see
    what the journal holds (the trace written beside it) takes the event as it is, or this
    object when it was redacted, instead of reading the file back (docs/trace-gates.md §8)."""
    make = _FAST_LINES.get(type(event))
    if make is not None:
        try:
            line = make(event)
        except (TypeError, AttributeError):  # a non-str text field: the generic encoder (default=str) handles it
            line = None
        if line is not None:
            return line, None
    try:
        data = _encode(event, plain=False)
        built = _long_line(event, data)
        line, suspect = (_dumps(data), None) if built is None else built
    except _HasMissing:  # rare: a parsed value holding MISSING; walk it (MISSING -> omitted / null)
        data = plain_json(_encode(event))
        line, suspect = _dumps(data), None
    if suspect is None:
        suspect = might_contain_secret(line)
    if suspect:
        redacted = redact(data)
        masked = _dumps(redacted)
        if masked != line:
            return masked + "\n", redacted
    return line + "\n", None
