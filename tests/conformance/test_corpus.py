"""Corpus vectors (tests/conformance/corpus/): flows taskflow's own authors wrote, as taskflow 0.2.4
checked and ran them. For every vector: the static verdict (and, where both validators reject,
the first error's meaning); for every counted scenario: run status, every phase's status and
output (gate verdict, loop and tournament records where given), final output, calls in order.
Uncounted scenarios (the project follows its requirement documents there) are not asserted.

`KNOWN_FAILURES` is the one list of cases tftui does not pass yet, each with the divergence
class (the corpus README's catalogue id) that explains it. They are strict xfails: this is the
honest interim state while issue 14 is being worked on, and a listed case that starts passing
turns the suite red until it is removed from the list. `tools/corpus_report.py` prints the
counts per scenario and per class.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("corpus_harness", Path(__file__).with_name("corpus_harness.py"))
assert _spec is not None and _spec.loader is not None
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

# (vector id, scenario) -> divergence class. Remove an entry as soon as its case passes.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}  # empty: every counted case passes

_VECTORS = {v["id"]: v for v in harness.vectors()}


def _params(kind: str) -> list[object]:
    out: list[object] = []
    for vid, scenario in harness.counted_cases():
        if (scenario == "static") != (kind == "static"):
            continue
        marks = []
        reason = KNOWN_FAILURES.get((vid, scenario))
        if reason is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        out.append(pytest.param(vid, scenario, marks=marks, id=f"{vid}-{scenario}"))
    return out


def test_known_failures_name_real_cases():
    cases = set(harness.counted_cases())
    assert [case for case in KNOWN_FAILURES if case not in cases] == []


def test_every_vector_is_checked():
    # the corpus index lists each vector; none may be silently skipped by the runner
    index = harness.CORPUS / "index.json"
    import json

    listed = {row["id"] for row in json.loads(index.read_text(encoding="utf-8"))["flows"]}
    assert listed == set(_VECTORS)


@pytest.mark.parametrize(("vid", "scenario"), _params("static"))
def test_static_verdict(vid, scenario):
    assert harness.static_differences(_VECTORS[vid]) == []


@pytest.mark.parametrize(("vid", "scenario"), _params("run"))
async def test_scenario_run(vid, scenario, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.chdir(work)
    assert await harness.run_differences(_VECTORS[vid], scenario, work) == []


async def test_runner_follows_the_replies_contract():
    # README §4: key from the first marker ('?' without one), a cursor per key (also for keys
    # answered from default_replies), the last reply repeats, tftui's reply shapes.
    from tftui.agents import AgentRequest

    runner = harness.CorpusRunner(
        {"a": ["a1", {"error": "boom", "exitCode": 1}]},
        ["d1", {"output": "d2", "usage": {"input": 100, "output": 50, "costUSD": 0.001}}],
    )

    async def ask(task, agent="default"):
        return await runner.run(AgentRequest(node_path="x", phase_id="x", agent=agent, task=task))

    assert (await ask("[[a]] go [[b]]")).output == "a1"
    failed = await ask("[[a]] again")
    assert failed.failed and failed.error == "boom" and failed.output == ""
    assert (await ask("[[a]] third")).error == "boom"
    assert (await ask("[[b]] one")).output == "d1"
    assert (await ask("no marker", agent="judge")).output == "d1"
    second = await ask("[[b]] two")
    assert second.output == "d2" and second.usage is not None and second.usage.cost_usd == 0.001
    assert runner.call_log == [("a", "default")] * 3 + [("b", "default"), ("?", "judge"), ("b", "default")]


def test_first_error_meaning_tells_rules_apart():
    from tftui.flow.diagnostics import Diagnostic

    flow = {"name": "f", "phases": [{"id": "a", "task": "x", "dependsOn": ["b"]}]}
    theirs = "Phase 'a': dependsOn unknown phase 'b'"
    same = Diagnostic("error", "Phase 'a': dependsOn unknown phase 'b'", phase_id="a", field="dependsOn")
    other_ref = Diagnostic("error", "Phase 'a': dependsOn unknown phase 'c'", phase_id="a", field="dependsOn")
    cycle = Diagnostic("error", "Dependency cycle detected: a -> a", phase_id="a", field="dependsOn")
    assert harness.same_meaning(theirs, flow, same) is None
    assert harness.same_meaning(theirs, flow, other_ref) is not None
    assert harness.same_meaning(theirs, flow, cycle) is not None
    # a message no pattern knows is compared on the phase and field it names (here a schema pointer)
    pointer = "/phases/0/retry: must be object"
    assert harness.same_meaning(pointer, flow, Diagnostic("error", "x", phase_id="a", field="retry")) is None
    assert harness.same_meaning(pointer, flow, Diagnostic("error", "x", phase_id="a", field="task")) is not None


def test_unknown_field_meaning_compares_the_field():
    from tftui.flow.diagnostics import Diagnostic

    flow = {"name": "f", "phases": [{"id": "a", "task": "x", "dependOn": []}]}
    ours = Diagnostic("error", "Phase 'a': unknown field 'dependOn' — did you mean 'dependsOn'?", phase_id="a")
    assert harness.same_meaning("/phases/0: unknown field 'dependOn'", flow, ours) is None
    assert harness.same_meaning("/phases/0: unknown field 'name'", flow, ours) is not None
    top = Diagnostic("error", "Unknown top-level field 'budegt' — did you mean 'budget'?")
    assert harness.same_meaning("/: unknown field 'budegt'", flow, top) is None
