"""`tftui check`: nested shape errors point at the field their message names, and regex
scorer patterns that cannot compile are reported (as warnings, see checks_phase)."""

from __future__ import annotations

import json

import pytest

from tftui.cli import main
from tftui.flow.diagnostics import existing_prefix, named_path
from tftui.flow.load import load_flow_text
from tftui.scoring.scorers import evaluate_scorer

# Line numbers matter: the tests below assert the line:col a user sees.
BADGATE = """{
  "name": "bad",
  "phases": [
    {"id": "gen", "task": "write"},
    {"id": "g", "type": "gate", "dependsOn": ["gen"],
      "score": {
        "scorers": [{"type": "contains"}, {"type": "length-range", "min": -1}],
        "combine": "weighted",
        "weights": [1],
        "threshold": 2,
        "judge": {"task": "  "},
        "extra": 1
      }
    },
    {"id": "h", "type": "gate", "dependsOn": ["gen"], "retry": {"max": 99},
      "score": {"scorers": [
        {"type": "regex", "pattern": "(unclosed"},
        {"type": "regex", "pattern": "(?i)abc", "bogus": 1},
        {"type": "regex", "pattern": 7},
        {"type": "regex", "pattern": "\\\\d+ (?<n>x)\\\\k<n>"}
      ]}
    },
    {"id": "e", "task": "x", "output": "json",
      "expect": {"type": "object",
        "required": "a",
        "properties": {"a": {"type": "strin"}}}}
  ]
}
"""

UNCLOSED = (
    "Phase 'h': score.scorers[0].pattern: invalid pattern: Invalid regular expression: /(unclosed/: "
    "Unterminated group — this scorer fails on every run; add the missing ')' or escape a literal '(' "
    'as \\( (written "\\\\(" in JSON)'
)
INLINE_FLAG = (
    "Phase 'h': score.scorers[1].pattern: invalid pattern: Invalid regular expression: /(?i)abc/: "
    "Invalid group — this scorer fails on every run; JavaScript regexes have no inline flags such as "
    '(?i) and regex scorers have no flags field; spell the alternatives out instead, e.g. "[Aa][Bb][Cc]" '
    "for a case-insensitive abc"
)


@pytest.fixture
def badgate(tmp_path):
    path = tmp_path / "badgate.json"
    path.write_text(BADGATE)
    return str(path)


def test_check_output_points_at_the_named_field(badgate, capsys):
    assert main(["check", badgate]) == 1
    out = capsys.readouterr().out.splitlines()
    at = {line.split(": ", 2)[2]: line.split(": ", 1)[0].removeprefix(badgate) for line in out[:-1]}
    assert at == {
        # a missing `value`: its scorer object
        "Phase 'g': score.scorers[0].value: required string for 'contains' [g]": ":7:21",
        "Phase 'g': score.scorers[1].min: must be a number >= 0 [g]": ":7:75",
        "Phase 'g': score.weights: expected 3 entries (scorers + judge), got 1 [g]": ":9:20",
        "Phase 'g': score.threshold: must be a number in (0, 1] [g]": ":10:22",
        "Phase 'g': score.judge.task: required non-empty string [g]": ":11:27",
        # an unknown key: the key itself
        "Phase 'g': score.extra: unknown score keyword (supported: target, scorers, combine, weights, "
        "threshold, judge) [g]": ":12:9",
        "Phase 'h': retry.max must be <= 20 [h]": ":15:72",
        f"{UNCLOSED} [h]": ":17:38",
        f"{INLINE_FLAG} [h]": ":18:38",
        "Phase 'h': score.scorers[1].bogus: not applicable to 'regex' scorers (allowed: type, name, pattern, "
        "negate) [h]": ":18:49",
        "Phase 'h': score.scorers[2].pattern: required string for 'regex' [h]": ":19:38",
        "Phase 'e': $.required: must be an array of key names (strings) [e]": ":25:21",
        "Phase 'e': $.properties.a.type: must be one of object|array|string|number|integer|boolean|null [e]": (
            ":26:38"
        ),
    }
    assert out[-1] == "1 file checked: 11 errors, 2 warnings"
    # file order (line, col), as the check command prints them
    assert out[:-1] == sorted(
        out[:-1], key=lambda s: tuple(int(n) for n in at[s.split(": ", 2)[2]][1:].split(":"))
    )


def test_located_text_is_the_named_value(badgate):
    result = load_flow_text(BADGATE)
    lines = BADGATE.splitlines()
    start = {d.message.split(": ", 2)[1]: lines[d.line - 1][d.col - 1 :] for d in result.diagnostics}
    assert start["score.weights"].startswith("[1],")
    assert start["score.threshold"].startswith("2,")
    assert start["score.scorers[1].min"].startswith("-1}")
    assert start["score.judge.task"].startswith('"  "}')
    assert start["$.properties.a.type"].startswith('"strin"')


def write(tmp_path, pattern) -> str:
    gate = {"id": "g", "type": "gate", "score": {"scorers": [{"type": "regex", "pattern": pattern}]}}
    path = tmp_path / "flow.json"
    path.write_text(json.dumps({"name": "t", "phases": [gate]}, indent=2))
    return str(path)


def test_invalid_pattern_is_a_warning_unless_strict(tmp_path, capsys):
    path = write(tmp_path, "(unclosed")
    assert main(["check", path]) == 0  # the reference accepts this flow (conformance sh033)
    out = capsys.readouterr().out.splitlines()
    message = UNCLOSED.replace("Phase 'h'", "Phase 'g'")
    assert out == [
        f"{path}:11:24: warning: {message} [g]",
        "1 file checked: 0 errors, 1 warning",
    ]
    assert main(["check", "--strict", path]) == 1
    assert ": error: Phase 'g': score.scorers[0].pattern: invalid pattern:" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        ("(?P<year>\\d+)", "named groups are (?<name>…) and back-references \\k<name> in JavaScript"),
        ("a++", "JavaScript has no possessive quantifiers (a++, a*+); drop the second '+'"),
        ("[abc", "add the missing ']' or escape a literal '[' as \\[ (written \"\\\\[\" in JSON)"),
        ("x)", "remove it or escape a literal ')' as \\) (written \"\\\\)\" in JSON)"),
        ("(?<=a+)b", "tftui runs patterns on Python's re, which needs a fixed-width look-behind"),
        ("(?s)a.b", "([\\s\\S] matches any character including line breaks)"),
    ],
)
def test_invalid_pattern_hints(pattern, hint):
    flow = {
        "name": "t",
        "phases": [
            {"id": "g", "type": "gate", "score": {"scorers": [{"type": "regex", "pattern": pattern}]}}
        ],
    }
    (warning,) = load_flow_text(json.dumps(flow)).warnings
    why = "look-behind requires fixed-width pattern" if pattern == "(?<=a+)b" else "Invalid regular expression: "
    assert warning.message.startswith(f"Phase 'g': score.scorers[0].pattern: invalid pattern: {why}"), warning.message
    assert hint in warning.message
    assert warning.json_path == "$.phases[0].score.scorers[0].pattern"


@pytest.mark.parametrize(
    "pattern",
    ["(unclosed", "(?i)abc", "\\d+", "(?<n>a)\\k<n>", "a{,5}", "[^]", "(?<=ab)c", "(?<=a+)b", "*", "\\", ""],
)
def test_check_and_run_agree(pattern):
    """A warning exactly when the scorer fails at run time with `invalid pattern: …`, quoting it."""
    detail = evaluate_scorer({"type": "regex", "pattern": pattern}, 0, "target").detail or ""
    flow = {
        "name": "t",
        "phases": [
            {
                "id": "g",
                "type": "gate",
                "score": {"scorers": [{"type": "regex", "pattern": pattern, "negate": True}]},
            }
        ],
    }
    warnings = [d.message for d in load_flow_text(json.dumps(flow)).warnings]
    if detail.startswith("invalid pattern: "):
        assert len(warnings) == 1 and f"score.scorers[0].pattern: {detail} — " in warnings[0]
    else:
        assert warnings == []


def test_named_path_and_existing_prefix():
    assert named_path("score.scorers[12].schema.properties.a-b.type: x", "score") == (
        "scorers",
        12,
        "schema",
        "properties",
        "a-b",
        "type",
    )
    assert named_path("score: must be an object", "score") == ()
    assert named_path("$.required: y", "$") == ("required",)
    assert named_path("scorex.y: z", "score") is None
    assert named_path("score.a[x]: z", "score") is None
    value = {"scorers": [{"type": "contains"}], "weights": []}
    assert existing_prefix(value, ("scorers", 0, "value")) == ("scorers", 0)
    assert existing_prefix(value, ("scorers", 3, "min")) == ("scorers",)
    assert existing_prefix(value, ("weights", 0)) == ("weights",)
    assert existing_prefix(5, ("weights",)) == ()
