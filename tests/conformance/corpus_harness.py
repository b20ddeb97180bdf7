"""The corpus runner (tests/conformance/corpus/README.md): one vector, one verdict.

Used by `tests/conformance/test_corpus.py` and `tools/corpus_report.py`, loaded by path
(the suite runs with `--import-mode=importlib`, so test helpers are not importable by name).

- `CorpusRunner` is the README's replies contract (§4) on top of tftui's own runner shapes:
  the key is the first `[[KEY]]` in the final task text (`?` when none); each key has its own
  cursor into `replies[key]` (or `default_replies`); the last reply repeats. The replies are
  tftui's replies-file shapes, so each key's list is answered by a `ScriptedRunner`.
- `static_differences(vector)`: tftui's checker on `static.flow` against `static.taskflow_ok`,
  and where both reject, the meaning of the first error (`error_meaning`).
- `run_differences(vector, scenario, workdir)`: the flow run as the README's "Run environment"
  says (a fresh folder holding only `flow.json`, no approver, backoffs skipped, an instant
  runner), compared with `expect` as the README's §5 does.

Each returns a list of differences; an empty list is a pass.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tftui.agents import AgentRequest, AgentResult
from tftui.agents.scripted import ScriptedRunner, marker_key
from tftui.engine.clock import Clock
from tftui.engine.run import RunResult, run_flow
from tftui.flow.load import load_flow, load_flow_text

CORPUS = Path(__file__).resolve().with_name("corpus")
SCENARIOS = ("pass", "block", "ambiguous", "flaky", "fail")


def vectors() -> list[dict[str, Any]]:
    """Every vector of the corpus, in file-name order (index.json is not a vector)."""
    out = []
    for path in sorted(CORPUS.glob("*.json")):
        if path.name == "index.json":
            continue
        out.append(json.loads(path.read_text(encoding="utf-8")))
    return out


# ---------------------------------------------------------------------------
# The replies contract (README §4)


class CorpusRunner:
    """Replies per marker key, one cursor per key, `default_replies` for any other key."""

    def __init__(self, replies: Mapping[str, list[Any]], default_replies: list[Any]) -> None:
        self._replies = {str(k): list(v) for k, v in replies.items()}
        self._default = list(default_replies)
        self._per_key: dict[str, ScriptedRunner] = {}
        self.call_log: list[tuple[str, str]] = []
        self.tasks_sent: dict[str, list[str]] = {}

    def _runner_for(self, key: str) -> ScriptedRunner:
        runner = self._per_key.get(key)
        if runner is None:
            replies = self._replies.get(key, self._default)
            runner = self._per_key[key] = ScriptedRunner({key: replies})
            if runner.errors:  # a vector this runner cannot answer is a broken vector, not a divergence
                raise ValueError(f"replies for key {key!r}: " + "; ".join(runner.errors))
        return runner

    async def run(self, request: AgentRequest) -> AgentResult:
        key = marker_key(request.task)
        self.call_log.append((key, request.agent))
        self.tasks_sent.setdefault(key, []).append(request.task)
        return await self._runner_for(key).run(dataclasses.replace(request, node_path=key))


# ---------------------------------------------------------------------------
# Static verdict (README §7) and the meaning of the first error

# What a validator's message means: the first pattern that matches names the kind of problem,
# and its named groups (the phase, the field, the referenced phase) are part of the meaning.
# Both validators' wordings go through the same patterns. A taskflow message that no pattern
# knows still has a meaning: the phase and the field it is about (`Phase 'x': 'field' ...` or
# a schema pointer `/phases/N/field`), compared with the phase and field tftui's diagnostic
# carries.
MEANINGS: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in [
        ("no-phases", r"must not have fewer than 1 items|at least one phase"),
        ("unreachable-step-ref", r"^Phase '(?P<phase>[^']+)'.*references \{steps\.(?P<ref>[^.}]+)\.\*\} but"),
        ("self-reference", r"^Phase '(?P<phase>[^']+)'.*references its own output"),
        ("unknown-dependency", r"^Phase '(?P<phase>[^']+)'.*(?:dependsOn|from) unknown phase '(?P<ref>[^']+)'"),
        ("dependency-cycle", r"dependency cycle"),
        ("duplicate-id", r"duplicate phase id"),
        ("missing-name", r"missing or invalid 'name'"),
        ("unknown-type", r"^Phase '(?P<phase>[^']+)'.*unknown type"),
        ("missing-field", r"^Phase '(?P<phase>[^']+)'.* requires '(?P<field>[^']+)'"),
        ("score-shape", r"^Phase '(?P<phase>[^']+)'.*score\.(?P<field>[a-zA-Z]+)"),
        ("unknown-field", r"unknown (?:top-level )?field '(?P<field>[^']+)'"),
        ("unknown-field", r"must not have additional properties"),
    ]
]
_PHASE_NAMED = re.compile(r"^Phase '(?P<phase>[^']+)'")
_FIELD_NAMED = re.compile(r"'(?P<field>[a-zA-Z][a-zA-Z0-9]*)'")
_POINTER = re.compile(r"^/phases/(?P<index>\d+)(?:/(?P<field>[^/:\s]+))?")


def error_meaning(message: str) -> tuple[str, dict[str, str]] | None:
    """The kind of problem a message names (and the groups that go with it), else None."""
    for name, pattern in MEANINGS:
        match = pattern.search(message)
        if match:
            return name, {k: v for k, v in match.groupdict().items() if v is not None}
    return None


def _subject(message: str, flow: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(phase id, field) a taskflow message is about, as far as it says."""
    pointer = _POINTER.match(message)
    if pointer:
        phases = flow.get("phases") if isinstance(flow, Mapping) else None
        index = int(pointer.group("index"))
        phase = phases[index] if isinstance(phases, list) and index < len(phases) else None
        pid = phase.get("id") if isinstance(phase, Mapping) else None
        return (pid if isinstance(pid, str) else None), pointer.group("field")
    named = _PHASE_NAMED.match(message)
    rest = message[named.end():] if named else message
    field = _FIELD_NAMED.search(rest)
    return (named.group("phase") if named else None), (field.group("field") if field else None)


def same_meaning(theirs: str, flow: Mapping[str, Any], ours: Any) -> str | None:
    """None when tftui's diagnostic `ours` means what taskflow's message `theirs` means, else why not."""
    want = error_meaning(theirs)
    if want is not None:
        got = error_meaning(ours.message)
        return None if got == want else f"means {want}, tftui's {ours.message!r} means {got}"
    phase, field = _subject(theirs, flow)
    if phase is None and field is None:
        return f"says nothing tftui can be compared on (add a pattern to MEANINGS): {theirs!r}"
    ours_field = ours.field or (str(ours.path[2]) if len(ours.path) > 2 else None)
    if phase is not None and ours.phase_id != phase:
        return f"is about phase {phase!r}, tftui's {ours.message!r} is about {ours.phase_id!r}"
    if field is not None and ours_field != field:
        return f"is about field {field!r}, tftui's {ours.message!r} is about {ours_field!r}"
    return None


def static_text(vector: Mapping[str, Any]) -> str:
    """`static.flow` as the checker wrote it (README §3: indent 2 plus a trailing newline)."""
    return json.dumps(vector["static"]["flow"], indent=2, ensure_ascii=False) + "\n"


def static_differences(vector: Mapping[str, Any]) -> list[str]:
    static = vector["static"]
    loaded = load_flow_text(static_text(vector), "flow.json")
    errors = loaded.errors
    ours_ok = not errors
    if ours_ok != static["taskflow_ok"]:
        if ours_ok:
            return [f"static: taskflow rejects ({static['taskflow_errors'][:1]}), tftui accepts"]
        return [f"static: taskflow accepts, tftui rejects: {errors[0].format('flow.json')}"]
    if ours_ok:
        return []
    problem = same_meaning(static["taskflow_errors"][0], static["flow"], errors[0])
    return [] if problem is None else [f"static: taskflow's first error {problem}"]


# ---------------------------------------------------------------------------
# A scenario's run (README §4 "Run environment", §5 comparison)


def flow_text(vector: Mapping[str, Any]) -> str:
    """The marked flow exactly as the reference run wrote it (README §3: indent 1)."""
    return json.dumps(vector["flow"], indent=1, ensure_ascii=False)


async def run_scenario(
    vector: Mapping[str, Any], scenario: str, workdir: Path
) -> tuple[RunResult | None, CorpusRunner, str | None]:
    """Run one scenario in `workdir` (fresh, empty). Returns (result, runner, load error)."""
    sc = vector["scenarios"][scenario]
    path = workdir / "flow.json"
    path.write_text(flow_text(vector), encoding="utf-8")
    runner = CorpusRunner(sc.get("replies") or {}, sc.get("default_replies") or [])
    loaded = load_flow(path, args=vector.get("args") or {})
    if loaded.flow is None:
        first = loaded.errors[0].format("flow.json") if loaded.errors else "(no diagnostic)"
        return None, runner, first
    clock = Clock()
    clock.skip_all = True  # retry and backoff sleeps skipped, as in the reference run
    result = await run_flow(
        loaded.flow, args=dict(vector.get("args") or {}), runner=runner, clock=clock, flow_path=str(path)
    )
    return result, runner, None


def _text(value: Any) -> str:
    return "" if value is None else value


def compare(expect: Mapping[str, Any], result: RunResult, runner: CorpusRunner) -> list[str]:
    """README §5: `expect` (taskflow) against tftui's run."""
    diffs: list[str] = []
    if result.status != expect["run_status"]:
        diffs.append(f"run status: taskflow {expect['run_status']!r}, tftui {result.status!r}")
    want_phases: Mapping[str, Any] = expect["phases"]
    got_phases = result.phases
    missing = [p for p in want_phases if p not in got_phases]
    extra = [p for p in got_phases if p not in want_phases]
    if missing or extra:
        diffs.append(f"phase set: only in taskflow {missing}, only in tftui {extra}")
    for pid, want in want_phases.items():
        got = got_phases.get(pid)
        if got is None:
            continue
        if str(got.status) != want["status"]:
            diffs.append(f"{pid}: status taskflow {want['status']!r}, tftui {str(got.status)!r}")
            continue
        if _text(got.output) != _text(want.get("output")):
            diffs.append(f"{pid}: output taskflow {_text(want.get('output'))[:200]!r}, tftui {_text(got.output)[:200]!r}")
        got_verdict = (got.gate or {}).get("verdict")
        if got_verdict != want.get("gate_verdict"):
            diffs.append(f"{pid}: gate verdict taskflow {want.get('gate_verdict')!r}, tftui {got_verdict!r}")
        if "loop" in want or got.loop:
            w = want.get("loop") or {}
            g = got.loop or {}
            for key in ("iterations", "stop"):
                if w.get(key) != g.get(key):
                    diffs.append(f"{pid}: loop {key} taskflow {w.get(key)!r}, tftui {g.get(key)!r}")
        if "tournament" in want or got.tournament:
            w = want.get("tournament") or {}
            g = got.tournament or {}
            for key in ("winner", "variants"):
                if w.get(key) != g.get(key):
                    diffs.append(f"{pid}: tournament {key} taskflow {w.get(key)!r}, tftui {g.get(key)!r}")
    if _text(result.final_output) != _text(expect.get("final_output")):
        diffs.append(
            f"final output: taskflow {_text(expect.get('final_output'))[:200]!r}, tftui {_text(result.final_output)[:200]!r}"
        )
    want_calls = [tuple(c) for c in expect["call_log"]]
    got_calls = list(runner.call_log)
    if Counter(want_calls) != Counter(got_calls):
        only_theirs = list((Counter(want_calls) - Counter(got_calls)).elements())
        only_ours = list((Counter(got_calls) - Counter(want_calls)).elements())
        diffs.append(f"calls: only in taskflow {only_theirs}, only in tftui {only_ours}")
    elif want_calls != got_calls:
        diffs.append(f"call order: taskflow {want_calls}, tftui {got_calls}")
    return diffs


async def run_differences(vector: Mapping[str, Any], scenario: str, workdir: Path) -> list[str]:
    result, runner, refused = await run_scenario(vector, scenario, workdir)
    if result is None:
        return [f"tftui refuses to run the flow: {refused}"]
    return compare(vector["scenarios"][scenario]["expect"], result, runner)


def counted_cases() -> list[tuple[str, str]]:
    """(vector id, scenario) of every counted scenario, plus (vector id, "static") for each vector."""
    out: list[tuple[str, str]] = []
    for vector in vectors():
        out.append((vector["id"], "static"))
        for name in SCENARIOS:
            sc = (vector.get("scenarios") or {}).get(name)
            if sc is not None and sc.get("counted"):
                out.append((vector["id"], name))
    return out
