"""edit.py: setting and clearing a phase's `when` keeps the rest of the file byte for byte."""

from __future__ import annotations

from tftui.flow.edit import set_when
from tftui.flow.load import load_flow_text

PRETTY = """{
  // reviewed weekly
  "name": "r",
  "phases": [
    {
      "id": "triage",
      "task": "Classify."
    },
    {
      "id": "deep",
      "when": "{steps.triage.json.severity} == high",
      "dependsOn": ["triage"],
      "task": "Dig."
    }
  ]
}
"""


def test_change_existing_when():
    edited = set_when(PRETTY, "deep", '{steps.triage.json.severity} == "critical"').text
    assert edited == PRETTY.replace(
        '"{steps.triage.json.severity} == high"', '"{steps.triage.json.severity} == \\"critical\\""'
    )
    assert load_flow_text(edited).flow.phase("deep").when == '{steps.triage.json.severity} == "critical"'


def test_clear_when():
    edited = set_when(PRETTY, "deep", None).text
    assert edited == PRETTY.replace('      "when": "{steps.triage.json.severity} == high",\n', "")
    assert load_flow_text(edited).flow.phase("deep").when is None


def test_clear_when_that_is_the_last_member():
    text = '{"name": "n", "phases": [{"id": "a", "task": "t", "when": "x == y"}]}'
    assert set_when(text, "a", None).text == '{"name": "n", "phases": [{"id": "a", "task": "t"}]}'


def test_insert_when_keeps_layout():
    edited = set_when(PRETTY, "triage", "{args.go}").text
    assert edited == PRETTY.replace('"id": "triage",', '"id": "triage",\n      "when": "{args.go}",')
    assert edited.startswith("{\n  // reviewed weekly")
    compact = '{"name": "n", "phases": [{"id": "a", "task": "t"}]}'
    assert (
        set_when(compact, "a", "true").text
        == '{"name": "n", "phases": [{"id": "a", "when": "true", "task": "t"}]}'
    )


def test_impossible_edits_say_why():
    assert set_when(PRETTY, "ghost", "x").error == "no phase with id 'ghost'"
    assert "does not parse" in set_when("{", "a", "x").error
    assert "full flows" in set_when('{"task": "hi"}', "main", "x").error
    assert set_when(PRETTY, "triage", None).text == PRETTY  # nothing to clear
