"""A long output met in several events (a call's answer, its phase's output, the final output) is
encoded once; every line still says what the generic encoding says and still masks secrets, also
a secret registered after the text was first met."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tftui.engine import events as ev
from tftui.engine.jsonl import encode_line
from tftui.redaction import forget_secrets, mask, might_contain_secret, register_secret


def _events(text: str) -> list[ev.Event]:
    return [
        ev.AgentReturned(phase_id="p", node_path="p", output=text, seq=1, ts=1.0),
        ev.PhaseFinished(phase_id="p", output=text, seq=2, ts=2.0),
        ev.RunFinished(final_output=text, seq=3, ts=3.0),
    ]


def test_long_lines_equal_the_generic_encoding() -> None:
    text = "line with \"quotes\", tabs\t and é\n" * 400
    for event in _events(text) * 2:
        assert json.loads(encode_line(event)) == json.loads(json.dumps(ev.event_to_json(event), ensure_ascii=False))


def test_a_long_text_with_a_credential_is_masked_in_every_event() -> None:
    text = "plain words " * 500 + "Authorization: Bearer abcdefgh12345678"
    for event in _events(text):
        line = encode_line(event)
        assert "abcdefgh12345678" not in line


def test_a_secret_registered_after_the_text_was_met_is_masked() -> None:
    secret = "zq9w8e7r6t5y4u3i"  # holds no credential word: only the registry knows it
    text = "plain words " * 500 + secret
    forget_secrets()
    try:
        assert secret in encode_line(_events(text)[0])  # not a secret yet
        register_secret(secret)
        for event in _events(text):
            line = encode_line(event)
            assert secret not in line and mask(secret) in line
    finally:
        forget_secrets()


def test_gate_event_lines_are_byte_identical_to_the_generic_encoding() -> None:
    results = [{"name": "contains-0", "type": "contains", "passed": True, "score": 1},
               {"name": "r—\"x\"", "type": "regex", "passed": False, "score": 0, "detail": "no match"}]
    events = [
        ev.ScorersEvaluated(phase_id="q0", results=results, combined=0.5, threshold=None, stage="deterministic",
                            report="", seq=5, ts=1.5),
        ev.ScorersEvaluated(phase_id="q—1", results=[], combined=1, threshold=0.75, stage="judge-weighted",
                            report="## Scores\n- é", seq=6, ts=1700000000.25),
        ev.GateVerdict(phase_id="q0", verdict="pass", source="score", combined=1.0, output="PASS", seq=7, ts=2.0),
        ev.GateVerdict(phase_id="g", verdict="block", reason="not \"yet\"", source="task", round=2,
                       json={"verdict": "block", "n": [1, None]}, prompts=["ask é", "again"], output="VERDICT: BLOCK",
                       seq=8, ts=2.5),
    ]
    for event in events:
        generic = json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"
        assert encode_line(event) == generic


def test_gate_event_lines_with_credentials_are_masked() -> None:
    verdict = ev.GateVerdict(phase_id="g", output="token=abcdefgh12345678", prompts=["Bearer abcdefgh12345678"], seq=1)
    scores = ev.ScorersEvaluated(phase_id="q", results=[{"name": "n", "detail": "api_key=abcdefgh12345678"}],
                                 report="Authorization: Bearer abcdefgh12345678", seq=2)
    for event in (verdict, scores):
        assert "abcdefgh12345678" not in encode_line(event)


_usage_values = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.booleans(), st.text(max_size=3),
                          st.none())
_usage = st.dictionaries(st.sampled_from(["input", "output", "costUSD", "cacheRead", "cacheWrite", "cost", "turns",
                                          "unpriced", "untracked", "api_key", "x"]), _usage_values, max_size=6)


@given(_usage, _usage)
def test_usage_is_written_as_the_generic_encoding_writes_it(usage: dict, tally: dict) -> None:
    events = [
        ev.AgentReturned(phase_id="p", node_path="p", output="ok", usage=usage, duration_ms=1.5, seq=2, ts=1.25),
        ev.PhaseFinished(phase_id="p", output="ok", usage=tally, duration_ms=2.0, seq=3, ts=1.5),
    ]
    for event in events:  # (a usage that might hold a secret is redacted: tests/engine/test_redaction_fast.py)
        generic = json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"
        if not might_contain_secret(generic):
            assert encode_line(event) == generic
