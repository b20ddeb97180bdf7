"""The journal's cheap secret pre-check must never let a secret through the fast path."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tftui.engine import events as ev
from tftui.engine.jsonl import encode_line
from tftui.lang.values import MISSING
from tftui.redaction import _SECRET_KEYS, _SECRET_SUFFIXES, MASK, mask, might_contain_secret, redact


def _variants(key: str) -> list[str]:
    camel = key.split("_")[0] + "".join(p.title() for p in key.split("_")[1:])
    return [key, key.upper(), key.replace("_", "-"), camel, camel[0].upper() + camel[1:]]


def test_every_secret_key_spelling_trips_the_precheck() -> None:
    keys = [k for base in _SECRET_KEYS for k in _variants(base)]
    keys += [k for suffix in _SECRET_SUFFIXES for k in _variants("my" + suffix)]
    secret = [key for key in keys if redact({key: "v"}) != {key: "v"}]
    assert len(secret) > len(_SECRET_KEYS)
    for key in secret:
        assert might_contain_secret(json.dumps({key: "v"})), key


def test_free_text_patterns_trip_the_precheck() -> None:
    for text in ("Authorization: Bearer abcdefgh12345678", "BEARER abcdefghijklmnopqrstu", "key sk-abcdefghijklmnopqrstuv"):
        assert redact(text) != text
        assert might_contain_secret(text)


@given(st.dictionaries(st.text(max_size=12), st.text(max_size=40), max_size=4))
def test_precheck_false_means_redact_is_identity(value: dict) -> None:
    if not might_contain_secret(json.dumps(value, ensure_ascii=False)):
        assert redact(value) == value


def test_fast_lines_match_the_generic_encoding_and_redact() -> None:
    started = ev.AttemptStarted(phase_id="p—\"", node_path="p#item-0", attempt=1, prompt="a\nb", agent="x", seq=2, ts=1.5)
    returned = ev.AgentReturned(phase_id="p", node_path="p", output="ok", error="boom", usage={"input": 3},
                                duration_ms=2.5, timed_out=True, exit_code=2, seq=3, ts=2.0)
    for event in (started, returned):
        assert json.loads(encode_line(event)) == json.loads(json.dumps(ev.event_to_json(event)))
    leaky = ev.AgentReturned(phase_id="p", output="use sk-abcdefghijklmnopqrstuv now", seq=4, ts=1.0)
    assert mask("sk-abcdefghijklmnopqrstuv") in encode_line(leaky) and "sk-abc" not in encode_line(leaky)


def test_missing_inside_json_is_omitted_or_null() -> None:
    event = ev.PhaseFinished(phase_id="p", json={"a": MISSING, "b": [1, MISSING]}, seq=1, ts=1.0)
    assert json.loads(encode_line(event))["json"] == {"b": [1, None]}


def test_run_args_are_always_redacted_structurally() -> None:
    event = ev.RunStarted(args={"apiKey": "t0ps3cret", "topic": "x"}, seq=1, ts=1.0)
    assert json.loads(encode_line(event))["args"] == {"apiKey": MASK, "topic": "x"}


def test_plain_dict_events_with_missing_are_encoded() -> None:
    assert json.loads(encode_line({"kind": "x", "v": [MISSING, 1], "w": MISSING})) == {"kind": "x", "v": [None, 1]}


def test_fast_lines_with_text_secrets_or_odd_usage_take_the_redacting_path() -> None:
    prompt = ev.AttemptStarted(phase_id="p", node_path="p", prompt="Authorization: Bearer abcdefgh12345678", seq=1, ts=1.0)
    assert "abcdefgh12345678" not in encode_line(prompt)
    skipped = ev.PhaseSkipped(phase_id="p", reason="Condition not met: {args.x} == 'Bearer abcdefgh12345678'", seq=3)
    assert "abcdefgh12345678" not in encode_line(skipped)
    finished = ev.PhaseFinished(phase_id="p", output="ok", extra={"api_key": "k-123"}, json={"token": "t0ps3cret"},
                                seq=4, ts=1.0)
    line = json.loads(encode_line(finished))
    assert line["extra"] == {"api_key": MASK} and line["json"] == {"token": MASK}
    odd_usage = ev.AgentReturned(phase_id="p", output="ok", usage={"input": 1, "api_key": "k-123"}, seq=2, ts=1.0)
    assert json.loads(encode_line(odd_usage))["usage"] == {"input": 1, "api_key": MASK}


def test_long_lines_are_checked_field_by_field_without_missing_a_secret() -> None:
    prose = "lorem ipsum " * 1000  # long enough for the per-field check
    leaky_text = ev.PhaseFinished(phase_id="p", output=prose + " sk-abcdefghijklmnopqrstuv", seq=1, ts=1.0)
    assert "sk-abc" not in encode_line(leaky_text)
    leaky_json = ev.PhaseFinished(phase_id="p", output=prose, json={"apiKey": "t0ps3cret"}, seq=2, ts=1.0)
    assert json.loads(encode_line(leaky_json))["json"] == {"apiKey": MASK}
    leaky_error = ev.RunFinished(final_output=prose, error="bearer abcdefghijklmnopqrstuvwxyz", seq=3, ts=1.0)
    assert "abcdefghijklmnop" not in encode_line(leaky_error)
    clean = ev.PhaseFinished(phase_id="p", output=prose + " tokens and passwords", seq=4, ts=1.0)
    assert json.loads(encode_line(clean))["output"] == clean.output
    leaky_dict = {"kind": "x", "note": prose, "password": "hunter2"}  # a plain dict: arbitrary keys
    assert json.loads(encode_line(leaky_dict))["password"] == MASK


def test_fast_lines_are_byte_identical_to_the_generic_encoding() -> None:
    from tftui.engine.jsonl import _FAST_LINES

    events = [
        ev.AttemptStarted(phase_id="p—\"", node_path="p#item-0", attempt=1, prompt="a\nb\u2028é", agent="x", seq=2, ts=1.5e9 + 0.125),
        ev.AgentReturned(phase_id="p", node_path="p#item-3", output="ok ✓", error="boom", duration_ms=2.5,
                         usage={"input": 3, "output": 4, "costUSD": 0.0125}, timed_out=True, exit_code=2, seq=3, ts=2.0),
        ev.AgentReturned(phase_id="p", node_path="p", output="", seq=4, ts=1700000000.0),
        ev.PhaseStarted(phase_id="p—\"é", phase_type="map", depth=1, round=2, seq=5, ts=1.5e9 + 0.25),
        ev.GuardEvaluated(phase_id="g", expr="{steps.a.json.n} > 2 && \"é\"", value=False, seq=6, ts=2.5),
        ev.GuardEvaluated(phase_id="g", expr="{x} ==", value=True, error="parse error", overridden=True, seq=7, ts=3.0),
        ev.PhaseSkipped(phase_id="s—", reason="Condition not met: {steps.a.output} == \"x\"", seq=8, ts=3.5),
        ev.PhaseFinished(phase_id="f", output="x", duration_ms=0.25, seq=9, ts=4.0),
        ev.PhaseFinished(phase_id="f", status="failed", output="boom", error="boom\n✗", warnings=["w1", "w—2"],
                         usage={"input": 3, "output": 4, "cost": 0.5, "turns": 1}, attempts=3, duration_ms=12.5,
                         extra={"timedOut": True, "model": "m"}, seq=10, ts=4.5),
        ev.PhaseFinished(phase_id="f", output='{"a": [1, null]}', json={"a": [1, None], "b": "é"},
                         gate={"verdict": "block", "reason": "no"}, duration_ms=1.0, seq=11, ts=5.0),
    ]
    for event in events:
        generic = json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"
        assert _FAST_LINES[type(event)](event) == generic
        assert encode_line(event) == generic


def test_long_lines_are_byte_identical_to_the_generic_encoding() -> None:
    prose = "### [1/2] a\n\n“ok” " * 600
    events = [
        ev.PhaseFinished(phase_id="m", output=prose, json=[{"id": 1, "n": None}], warnings=["w"], attempts=2,
                         usage={"input": 1, "output": 2}, duration_ms=0.5, extra={"optional": True}, seq=5, ts=1.5),
        ev.RunFinished(status="completed", final_output=prose, usage={"input": 1}, seq=6, ts=2.0),
    ]
    for event in events:
        generic = json.dumps(ev.event_to_json(event), ensure_ascii=False, separators=(",", ":")) + "\n"
        assert encode_line(event) == generic


def test_precheck_and_patterns_agree_on_unicode_case_folding() -> None:
    for text in ("Authorızation: Basic abcdefgh12345678", "AUTHORİZATION: Basic abcdefgh12345678"):
        if not might_contain_secret(text):
            assert redact(text) == text


def test_every_needle_trips_the_unrolled_prechecks() -> None:
    from tftui.redaction import _NEEDLES, _TEXT_NEEDLES, might_contain_text_secret

    for needle in _TEXT_NEEDLES:
        assert might_contain_text_secret(f"plain {needle.upper()} words"), needle
    for needle in _NEEDLES:
        assert might_contain_secret(f'{{"x":"{needle}"}}'), needle
    assert not might_contain_text_secret("plain words") and not might_contain_secret('{"x":"plain"}')


def test_a_container_met_clean_before_is_masked_once_its_value_is_a_registered_secret() -> None:
    from tftui.redaction import forget_secrets, register_secret

    def finished() -> ev.PhaseFinished:
        return ev.PhaseFinished(phase_id="p", output="ok", extra={"note": "zq81xv0mwe"}, gate={"verdict": "pass"},
                                seq=1, ts=1.0)

    assert "zq81xv0mwe" in encode_line(finished())  # no needle, nothing registered: written as is
    register_secret("zq81xv0mwe")
    try:
        line = encode_line(finished())  # the same container text again (met clean just before)
        assert "zq81xv0mwe" not in line and json.loads(line)["extra"]["note"] == mask("zq81xv0mwe")
    finally:
        forget_secrets()


# A configured secret may hold characters JSON escapes: in a serialized line `pa"ss\1` reads
# `pa\"ss\\1`, so a pre-check that looked only for the value as given let it through unmasked.
ESCAPED_SECRETS = ('Zq9"wX\\7mN2pL4vR', "tab\there-and-more", "clé-secrète-9876", "line\u2028sep-value")


def test_a_registered_secret_that_json_escapes_is_masked_on_every_path(tmp_path) -> None:
    from tftui.engine.journal import Journal
    from tftui.redaction import forget_secrets, register_secret

    for secret in ESCAPED_SECRETS:
        register_secret(secret)
        try:
            events = [
                ev.AgentReturned(seq=2, ts=1.0, phase_id="p", node_path="p", attempt=0, output="pw is " + secret,
                                 usage={"input": 1, "output": 2}, duration_ms=1.0),  # the fast line writer
                ev.AgentReturned(seq=2, ts=1.0, phase_id="p", node_path="p", attempt=0, output="pw is " + secret,
                                 usage={"input": 1, "output": 2, "reasoning": 3}, duration_ms=1.0),  # generic
                ev.PhaseFinished(phase_id="p", output="ok", extra={"answer": secret}, seq=3, ts=1.0),  # a container
            ]
            for event in events:
                line = encode_line(event)
                assert secret not in json.dumps(json.loads(line), ensure_ascii=False), (secret, line)
                assert mask(secret) in line
            # a line copied from another journal (a seeded re-run), and a copied run_started's args
            journal = Journal.create(tmp_path, flow_name="f")
            plain = encode_line(ev.AgentReturned(seq=1, ts=1.0, phase_id="a", node_path="a", attempt=0,
                                                 output="the value is " + secret, duration_ms=1.0))
            forget_secrets()
            copied = encode_line(ev.AgentReturned(seq=1, ts=1.0, phase_id="a", node_path="a", attempt=0,
                                                  output="the value is " + secret, duration_ms=1.0))
            register_secret(secret)  # registered after the first run wrote its line
            journal.copy_line(json.loads(copied), copied.rstrip("\n"))
            journal.copy_line({"kind": "run_started", "seq": 1, "ts": 1.0, "flow": "f", "args": {"api_key": "abc123def456"}},
                              '{"kind":"run_started","seq":1,"ts":1.0,"flow":"f","args":{"api_key":"abc123def456"}}')
            journal.close()
            written = journal.events_path.read_text(encoding="utf-8")
            assert secret not in json.dumps([json.loads(x) for x in written.splitlines()], ensure_ascii=False)
            assert "abc123def456" not in written
            assert mask(secret) in plain
        finally:
            forget_secrets()
