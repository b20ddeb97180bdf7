"""JSON syntax errors say what is wrong and how to fix it, where the fix goes (issue 15 item 17):
an empty file, a YAML file, a missing comma, single quotes, text after the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tftui.cli import main
from tftui.flow.load import load_flow_text
from tftui.flow.parse_errors import json_error


def _only(text: str):
    result = load_flow_text(text, "f.json")
    assert result.flow is None and len(result.diagnostics) == 1, [d.format() for d in result.diagnostics]
    return result.diagnostics[0]


@pytest.mark.parametrize("text", ["", "\n\n", "// nothing yet\n"])
def test_an_empty_file_says_so(text: str):
    d = _only(text)
    assert (d.line, d.col) == (1, 1)
    assert ("the file is empty" if not text else "the file has no JSON in it") in d.message
    assert '{"name": "my-flow", "phases": [' in d.message  # what to write instead


def test_a_yaml_file_is_named_as_yaml():
    d = _only("name: review\nphases:\n  - id: a\n    task: hi\n")
    assert d.message.startswith("Invalid JSON: this looks like YAML; tftui reads JSON flows")
    assert '`name: x` becomes `"name": "x"`' in d.message


def test_plain_text_is_not_called_yaml():
    assert "YAML" not in _only("hello world\n").message


@pytest.mark.parametrize(
    ("text", "line", "col", "before"),
    [
        ('{\n  "name": "x",\n  "phases": [\n    {"id": "a", "task": "hi"}\n    {"id": "b", "task": "t"}\n  ]\n}\n',
         4, 30, "{ on line 5"),
        ('{\n  "name": "x" // the flow\'s name\n  "phases": []\n}\n', 2, 14, '"phases" on line 3'),
        ('{"name": "x", "phases": ["a" "b"]}', 1, 29, '"b"'),
    ],
)
def test_a_missing_comma_is_reported_where_it_goes(text: str, line: int, col: int, before: str):
    d = _only(text)
    assert d.message == f"Invalid JSON: missing comma after line {line}? (expected ',' before {before})"
    assert (d.line, d.col) == (line, col)


def test_single_quotes_and_trailing_text_get_their_fix():
    d = _only("{'name': 'x'}")
    assert "JSON strings use double quotes" in d.message and (d.line, d.col) == (1, 2)
    d = _only('{"name": "x", "phases": [{"id": "a", "task": "t"}]}\n}')
    assert "more text after the flow's closing brace (line 1)" in d.message and (d.line, d.col) == (2, 1)


@pytest.mark.parametrize("entry", ["check", "run", "open"])
def test_every_entry_prints_the_clear_message_and_runs_nothing(entry: str, tmp_path: Path, capsys):
    flow = tmp_path / "flow.json"
    flow.write_text("name: review\nphases:\n  - id: a\n", encoding="utf-8")
    code = main([entry, str(flow)] + (["--no-journal"] if entry == "run" else []))
    captured = capsys.readouterr()
    assert code == (1 if entry == "check" else 2)
    assert f"{flow}:1:1: error: Invalid JSON: this looks like YAML; tftui reads JSON flows" in captured.out + captured.err
    assert not (tmp_path / ".tftui").exists()


@pytest.mark.parametrize("text", ['{"name": "x",', '{"name": "x",\n  \n'])
def test_a_file_cut_short_after_a_comma_says_it_ends_early(text: str):
    d = _only(text)
    assert d.message == "Invalid JSON: unexpected end of file: '{' opened at 1:1 is not closed (add '}')"
    assert (d.line, d.col) == (1, 14)  # after the comma, where the '}' goes


# QA: a flow missing its closing `]}` was "missing comma after line 1? (expected ',' before )".
@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ('{"name":"x","phases":[{"id":"a","task":"hi"}',
         "unexpected end of file: '[' opened at 1:22 is not closed (add ']'); 1 more around it: "
         "the file should end with ']}'", (1, 45)),
        ('{"name":"x","phases":[{"id":"a","task":"hi"}]\n\n', "unexpected end of file: '{' opened at 1:1 is not closed (add '}')",
         (1, 46)),
        ('{"name":"x","phases":[', "unexpected end of file: '[' opened at 1:22 is not closed (add ']'); 1 more around it: "
         "the file should end with ']}'", (1, 23)),
        ('{"name":', "unexpected end of file: a value is missing after ':', and '{' opened at 1:1 is not closed (add '}')",
         (1, 9)),
        ('{"name"', "unexpected end of file: the last key has no ':' and value, and '{' opened at 1:1 is not closed "
         "(add '}')", (1, 8)),
        ('{"a": "[{", "b": [1, {"c": "}"}', "unexpected end of file: '[' opened at 1:18 is not closed (add ']'); "
         "1 more around it: the file should end with ']}'", (1, 32)),  # brackets inside strings do not count
    ],
)
def test_a_file_cut_short_names_the_bracket_left_open(text: str, message: str, where: tuple[int, int]):
    d = _only(text)
    assert d.message == f"Invalid JSON: {message}"
    assert (d.line, d.col) == where


def test_a_closer_that_does_not_match_names_the_open_bracket():
    d = _only('{"phases": [{"id": "a"}}')
    assert d.message == "Invalid JSON: '}' here does not close '[' opened at 1:12 (add ']' before it)"
    assert (d.line, d.col) == (1, 24)


# QA: these ended mid-sentence ("unterminated string starting at", "invalid control character at").
@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ('{"name":"x",\n"phases":[\n{"id":"a","task":"hi',
         "unterminated string: the file ends inside the string that starts here (add the closing quote)", (3, 18)),
        ('{"name":"x","phases":[{"id":"a","task":"hi\nthere"}]}',
         "a line break inside a string: close the string with '\"' before the end of the line, or write the break as \\n",
         (1, 43)),
        ('{"name": "a\tb"}', "a raw tab inside a string: write it as \\t", (1, 12)),
        ('{"name": "a\x01b"}', "a raw control character (U+0001) inside a string: write it as \\u0001", (1, 12)),
        ('{"name": "C:\\dir"}', "invalid escape '\\d' in a string: a backslash starts \\n, \\t, \\\", \\\\, \\/, \\b, "
         "\\f, \\r or \\uXXXX; write a literal backslash as \\\\ (a Windows path as C:/dir or C:\\\\dir)", (1, 13)),
        ('{"name": "\\u12zz"}', "invalid escape '\\u12zz' in a string: \\u takes four hex digits (\\u00e9); "
         "write a literal backslash as \\\\", (1, 11)),
        ('{"name": }', "expecting a value, found } — write a string in double quotes, a number, true, false, null, "
         "an object {…} or an array […]", (1, 10)),
    ],
)
def test_string_errors_say_what_to_write(text: str, message: str, where: tuple[int, int]):
    d = _only(text)
    assert d.message == f"Invalid JSON: {message}"
    assert (d.line, d.col) == where


# Each message json/decoder.py and _json.c can raise (the pure-Python decoder's own wording too),
# at a place in the middle of a file and at its end: a whole sentence with a fix, never one cut
# before its position ("... starting at").
_DECODER_MESSAGES = [
    ("Expecting value", '{"a": }', 6),
    ("Expecting ',' delimiter", '{"a": 1 "b": 2}', 8),
    ("Expecting ':' delimiter", '{"a" 1}', 5),
    ("Expecting property name enclosed in double quotes", "{a: 1}", 1),
    ("Extra data", '{"a": 1} 2', 9),
    ("Invalid \\escape", '{"a": "\\q"}', 7),
    ("Invalid \\escape: 'q'", '{"a": "\\q"}', 7),
    ("Invalid \\uXXXX escape", '{"a": "\\u12"}', 8),
    ("Unterminated string starting at", '{"a": "x', 6),
    ("Invalid control character at", '{"a": "x\ny"}', 8),
    ("Invalid control character '\\n' at", '{"a": "x\ny"}', 8),
] + [(msg, text[:pos], pos) for msg, text, pos in [
    ("Expecting value", '{"a": ', 6),
    ("Expecting ',' delimiter", '{"a": 1', 7),
    ("Expecting ':' delimiter", '{"a"', 4),
    ("Expecting property name enclosed in double quotes", "{", 1),
]]


@pytest.mark.parametrize(("msg", "text", "pos"), _DECODER_MESSAGES)
def test_every_decoder_message_reads_as_a_whole_sentence_with_a_fix(msg: str, text: str, pos: int):
    d = json_error(text, json.JSONDecodeError(msg, text, pos))
    assert d.message.startswith("Invalid JSON: ")
    assert not d.message.endswith((" at", " before )", "found ;")), d.message
    assert any(word in d.message for word in ("add ", "write ", "remove ", "close ", "expected ','")), d.message
    assert 1 <= d.col <= len(text) + 1


def test_check_prints_the_whole_sentence(tmp_path: Path, capsys):
    flow = tmp_path / "syntax3.json"
    flow.write_text('{"name":"x",\n"phases":[\n{"id":"a","task":"hi', encoding="utf-8")
    assert main(["check", str(flow)]) == 1
    out = capsys.readouterr()
    assert f"{flow}:3:18: error: Invalid JSON: unterminated string: the file ends inside the string that starts here " \
        "(add the closing quote)" in out.out + out.err
