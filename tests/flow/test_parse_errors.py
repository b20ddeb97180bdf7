"""JSON syntax errors say what is wrong and how to fix it, where the fix goes (issue 15 item 17):
an empty file, a YAML file, a missing comma, single quotes, text after the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.cli import main
from tftui.flow.load import load_flow_text


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
    assert "the file ends here" in d.message and "remove the comma" not in d.message
