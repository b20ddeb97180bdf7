"""Hand-written checks of the verdict, judge and winner grammars (JS regex dialect, fail-open)."""

from __future__ import annotations

from tftui.lang.verdict import parse_gate_verdict, parse_judge_output, parse_tournament_winner


def test_gate_markers_use_js_whitespace_and_ascii_case() -> None:
    assert parse_gate_verdict("VERDICT\u00a0:\u3000BLOCK").verdict == "block"
    assert parse_gate_verdict("verdict: **block**").verdict == "block"
    dotted = parse_gate_verdict("VERD\u0130CT: BLOCK")  # U+0130 is not an ASCII I
    assert (dotted.verdict, dotted.parsed, dotted.reason) == (
        "pass",
        False,
        "unparseable gate verdict (fail-open)",
    )
    assert (
        parse_gate_verdict("VERDICT: \u017fTOP").verdict == "pass"
    )  # long s is not S in ASCII-only matching
    assert parse_gate_verdict("VERDICT: PASS\nlater VERDICT: HALT").verdict == "block"


def test_gate_json_reason_and_whole_word_verdicts() -> None:
    result = parse_gate_verdict('```json\n{"verdict": "Fail", "reason": "  tests red "}\n```')
    assert (result.verdict, result.reason, result.parsed) == ("block", "tests red", True)
    assert parse_gate_verdict('{"verdict": "unstoppable"}').verdict == "pass"
    assert parse_gate_verdict('{"pass": true, "verdict": "block"}').verdict == "pass"


def test_judge_grammar() -> None:
    assert parse_judge_output('{"verdict": "pass", "score": "0.3"}').score == 0.3
    assert parse_judge_output('{"verdict": "block"}').score == 0
    assert parse_judge_output('{"score": 2}').score == 1
    marker = parse_judge_output("SCORE = `0.4`\nVERDICT: ok")
    assert (marker.score, marker.verdict) == (0.4, "pass")
    unparseable = parse_judge_output("looks fine to me")
    assert (unparseable.score, unparseable.verdict, unparseable.parsed) == (1, "pass", False)
    assert unparseable.reason == "unparseable judge output (fail-open)"


def test_winner_grammar() -> None:
    assert parse_tournament_winner('{"winner": "0x2"}', 3).index == 2
    assert parse_tournament_winner('{"best": ""}', 3).index == 1  # Number("") is 0, clamped to 1
    assert parse_tournament_winner('{"winner": true}\nWINNER: 3', 3).index == 3  # boolean: no JSON winner
    assert parse_tournament_winner("WINNER: **#2**", 3).index == 2
    assert (
        parse_tournament_winner("WINNER: \u0662", 3).reason == "no parseable winner; defaulted to variant 1"
    )
    assert parse_tournament_winner("WINNER: " + "9" * 400, 4).index == 4
    assert parse_tournament_winner('{"winner": 5}', 0).index == 1
