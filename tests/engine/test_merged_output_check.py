"""A fan-out's merged output (docs/language.md §6.5) is checked for credentials from its headings
when every answer in it was met without one in its own AgentReturned line (tftui.engine.jsonl,
`join_sections`): the answers are not scanned a second time, and nothing that could hold a
secret is skipped (a text not built from known answers, a heading that does not fence them off,
a registered secret across an answer's edge)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tftui.agents.scripted import MarkerRunner
from tftui.engine import events as ev
from tftui.engine import jsonl
from tftui.engine.clock import InstantClock
from tftui.engine.journal import Journal, read_journal
from tftui.engine.jsonl import encode_line, join_sections
from tftui.engine.run import run_flow
from tftui.flow.model import Flow
from tftui.redaction import forget_secrets, register_secret

CREDENTIAL = "abcdefgh12345678"


def _answer(i: int) -> str:
    return f'{{"n":{i},"text":"{"plain words " * 40}"}}'  # ~500 chars, no needle


def _returned(phase: str, i: int, output: str) -> ev.AgentReturned:
    return ev.AgentReturned(phase_id=phase, node_path=f"{phase}#item-{i}", output=output, seq=i, ts=1.0)


def _merged(phase: str, answers: list[str]) -> str:
    heads = [f"{'' if i == 0 else chr(10) * 2 + '---' + chr(10) * 2}### [{i + 1}/{len(answers)}] a\n\n"
             for i in range(len(answers))]
    for i, answer in enumerate(answers):
        encode_line(_returned(phase, i, answer))  # each answer's own line, checked there
    return join_sections(heads, answers)


def _scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = jsonl.has_text_needle

    def spy(text: str) -> bool:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(jsonl, "has_text_needle", spy)
    return seen


def test_a_map_run_checks_its_merged_output_from_the_headings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {f"m#item-{i}": [_answer(i)] for i in range(20)}
    flow = Flow.model_validate({"name": "m", "phases": [
        {"id": "m", "type": "map", "over": list(range(20)), "task": "[[m#item-{item}]] do {item}", "final": True}]})
    runner = MarkerRunner(answers, "x")
    journal = Journal.create(tmp_path, flow_name="m")
    seen = _scanned(monkeypatch)
    result = asyncio.run(run_flow(flow, runner=runner, clock=InstantClock(), journal=journal))
    journal.close()
    merged = result.final_output
    assert merged is not None and len(merged) > 4096 and _answer(3) in merged
    assert not any(_answer(3) in text for text in seen)  # no answer was scanned again
    rows, _meta, _warnings = read_journal(journal.run_dir)
    finished = next(row for row in rows if row["kind"] == "phase_finished")
    assert finished["output"] == merged == "\n\n---\n\n".join(
        f"### [{i + 1}/20] default\n\n{_answer(i)}" for i in range(20))


def test_the_line_equals_the_generic_encoding() -> None:
    text = _merged("p1", [_answer(i) for i in range(12)])
    event = ev.PhaseFinished(phase_id="p1", output=text, seq=99, ts=2.0)
    assert encode_line(event) == json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"


def test_an_answer_not_met_in_a_line_is_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [_answer(i) for i in range(12)]
    text = _merged("p2", answers[:-1] + [f"token={CREDENTIAL} " * 400])  # its line was generic: not known
    seen = _scanned(monkeypatch)
    line = encode_line(ev.PhaseFinished(phase_id="p2", output=text, seq=99, ts=2.0))
    assert CREDENTIAL not in line and any(len(s) >= len(text) for s in seen)


def test_a_credential_in_a_heading_is_masked() -> None:
    answers = [_answer(i) for i in range(12)]
    heads = [f"{'' if i == 0 else chr(10)}### token={CREDENTIAL}\n" for i in range(12)]
    for i, answer in enumerate(answers):
        encode_line(_returned("p3", i, answer))
    line = encode_line(ev.PhaseFinished(phase_id="p3", output=join_sections(heads, answers), seq=99, ts=2.0))
    assert CREDENTIAL not in line


def test_answers_not_fenced_off_by_newlines_are_scanned_together() -> None:
    # "to" + "ken=…": two clean answers that make a credential where they meet
    bodies = ["plain " * 700 + "to", f"ken={CREDENTIAL}"]
    for i, body in enumerate(bodies):
        encode_line(_returned("p4", i, body))
    line = encode_line(ev.PhaseFinished(phase_id="p4", output=join_sections(["", ""], bodies), seq=99, ts=2.0))
    assert CREDENTIAL not in line


def test_a_registered_secret_across_an_answer_edge_is_masked() -> None:
    answers = [_answer(i) for i in range(12)]
    secret = answers[0][-9:] + "\n\n---\n\n### [2"  # holds newlines: only the whole text shows it
    forget_secrets()
    try:
        text = _merged("p5", answers)
        register_secret(secret)
        line = encode_line(ev.PhaseFinished(phase_id="p5", output=text, seq=99, ts=2.0))
        assert json.dumps(secret)[1:-1] not in line
    finally:
        forget_secrets()


def test_a_merged_output_is_not_kept_once_its_phase_finished_line_is_written() -> None:
    text = join_sections(["### [1/1] a\n\n"], ["plain " * 1000])  # its answer was never in a line
    assert id(text) in jsonl._JOINED
    encode_line(ev.PhaseFinished(phase_id="p6", output=text, seq=99, ts=2.0))
    assert id(text) not in jsonl._JOINED


def test_a_json_equal_to_its_checked_output_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    value = [{"id": i, "name": f"n{i}"} for i in range(400)]
    output = json.dumps(value, separators=(",", ":"))  # a compact answer: the json serializes to it
    seen: list[str] = []
    real = jsonl.has_secret_needle
    monkeypatch.setattr(jsonl, "has_secret_needle", lambda text: seen.append(text) or real(text))
    event = ev.PhaseFinished(phase_id="j", output=output, json=value, seq=1, ts=1.0)
    line = encode_line(event)
    assert line == json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"
    assert seen == []
    private = [{"private": i} for i in range(400)]  # the one needle the output's check does not look for
    text = json.dumps(private, separators=(",", ":"))
    encode_line(ev.PhaseFinished(phase_id="j", output=text, json=private, seq=2, ts=1.0))
    assert seen == [text]


def test_a_json_that_differs_from_its_output_is_scanned_and_masked() -> None:
    value = {"items": [1, 2], "api_key": CREDENTIAL}
    event = ev.PhaseFinished(phase_id="j", output="plain " * 1000, json=value, seq=1, ts=1.0)
    assert CREDENTIAL not in encode_line(event)
