"""The flow linter (docs/linter.md): typos taskflow's validator lets through, each reported once
as a warning at the placeholder's own line:col with a did-you-mean; `--strict` makes them errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tftui.agents.definitions import known_agent_names
from tftui.cli import main
from tftui.flow.lint import closed_scope, lint_expression, phase_scope
from tftui.flow.load import load_flow, load_flow_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "conformance" / "corpus"

# One typo of each kind, one per phase: the README's `tftui check` walkthrough uses this file;
# the comment-free layout keeps every placeholder findable.
TYPOS_FILE = ROOT / "sample_flows" / "lint" / "typos.json"
TYPOS = TYPOS_FILE.read_text(encoding="utf-8")

# (phase, the text the diagnostic points at, what the message names, the suggestion)
EXPECTED = [
    ("a", "{steps.draf.output}", "no phase 'draf'", "did you mean {steps.draft.output}?"),
    ("b", "{stesp.draft.output}", "unknown placeholder head 'stesp'", "did you mean {steps.draft.output}?"),
    ("c", "{steps.draft.outptu}", "has no field 'outptu'", "did you mean {steps.draft.output}?"),
    ("d", "{steps.triage.json.sevrity}", "no field 'sevrity' in triage's expect contract",
     "did you mean {steps.triage.json.severity}?"),
    ("e", '"reveiwer"', "agent 'reveiwer' is not defined", "did you mean 'reviewer'?"),
    ("f", "hgh\"", "'hgh' is not a value triage's expect contract allows (low, medium, high)",
     "did you mean 'high'?"),
]


def _where(text: str, needle: str) -> tuple[int, int]:
    """1-based line:col of the first `needle` in `text` (the expectation, read off the file)."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.fixture
def typos(tmp_path: Path) -> Path:
    path = tmp_path / "typos.json"
    path.write_text(TYPOS, encoding="utf-8")
    return path


def test_each_typo_gets_one_warning_at_its_placeholder(typos: Path):
    result = load_flow(typos, lint=True, agents=known_agent_names(typos))
    assert result.ok  # warnings only: the flow still loads and runs
    assert len(result.diagnostics) == len(EXPECTED)
    for diag, (phase, needle, names, hint) in zip(result.diagnostics, EXPECTED, strict=True):
        assert diag.severity == "warning"
        assert diag.phase_id == phase
        assert names in diag.message and diag.message.endswith(hint)
        assert (diag.line, diag.col) == _where(TYPOS, needle), diag.format()


def test_check_prints_them_and_strict_exits_1(typos: Path, capsys):
    assert main(["check", str(typos)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 file checked: 0 errors, 6 warnings"
    line, col = _where(TYPOS, "{stesp.draft.output}")
    assert f"{typos}:{line}:{col}: warning: Phase 'b': task: {{stesp.draft.output}}: unknown placeholder head" in out[1]
    assert main(["check", str(typos), "--strict"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "1 file checked: 6 errors, 0 warnings"


def test_run_prints_the_warnings_and_runs_as_before(typos: Path, capsys):
    replies = TYPOS_FILE.with_name("typos.replies.json").read_text(encoding="utf-8")  # shipped beside it
    typos.with_name("typos.replies.json").write_text(replies, encoding="utf-8")
    code = main(["run", str(typos), "--no-journal", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0
    assert "unknown placeholder head 'stesp'" not in captured.err  # --quiet prints errors only
    code = main(["run", str(typos), "--no-journal", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert "unknown placeholder head 'stesp'" in captured.err
    report = json.loads(captured.out)
    assert report["status"] == "completed"
    assert report["phases"]["f"]["status"] == "skipped"  # the typo'd guard is false


def test_strict_interpolation_does_not_promote_the_linter(typos: Path):
    data = json.loads(TYPOS)
    data["strictInterpolation"] = True
    result = load_flow_text(json.dumps(data, indent=2), "typos.json", lint=True, agents=known_agent_names(typos))
    assert result.ok
    assert len(result.warnings) == len(EXPECTED)


def test_a_lone_placeholder_position_survives_escapes_and_astral_characters():
    text = '{"name": "n", "phases": [{"id": "a", "task": "\\u00e9\\ud83d\\ude00 \\"q\\" {stesp.x}"}]}'
    [diag] = load_flow_text(text, "f.json", lint=True).diagnostics
    assert (diag.line, diag.col) == _where(text, "{stesp.x}")


@pytest.mark.parametrize(
    "template",
    [
        "{steps.draft.output} {steps.triage.json.severity} {steps.triage.json.summary.length}",
        "{args} {args.topic} {previous.output} {previous.output.ignored} {steps.draft.error}",
        "echo ${HOME} and ${PATH}",  # shell variables, not placeholders
        "{ not a placeholder } and {}",
    ],
)
def test_what_resolves_is_not_flagged(template: str):
    flow = load_flow_text(TYPOS).flow
    assert flow is not None
    assert lint_expression(template, phase_scope(flow, "f", "task"), condition=False) == []


def test_locals_are_known_only_where_they_are_set():
    text = json.dumps(
        {
            "name": "locals",
            "phases": [
                {"id": "scan", "task": "list files", "output": "json"},
                {"id": "each", "type": "map", "over": "{steps.scan.json}", "as": "file",
                 "dependsOn": ["scan"], "task": "read {file.path}", "context": ["{file.path}"]},
                {"id": "polish", "type": "loop", "until": "{loop.iteration} >= 2", "reflexion": True,
                 "task": "improve {loop.lastOutput} {reflexion}"},
            ],
        }
    )
    diags = load_flow_text(text, "f.json", lint=True).diagnostics
    assert [d.field for d in diags] == ["context[0]"]
    assert "a map's item is set only in its task" in diags[0].message


def test_contract_shapes_and_a_text_that_is_walked_into():
    flow = load_flow_text(TYPOS).flow
    assert flow is not None
    scope = phase_scope(flow, "f", "task")
    [found] = lint_expression("{steps.triage.json.summary.text}", scope, condition=False)
    assert "makes 'steps.triage.json.summary' a string" in found.message
    [found] = lint_expression("x {steps.draft.output.title}", scope, condition=False)
    assert found.start == 2 and found.suggestion == "{steps.draft.json.title}"
    [found] = lint_expression("{steps.draft}", scope, condition=False)
    assert found.suggestion == "{steps.draft.output}"


def test_enum_values_that_can_match_are_not_flagged():
    flow = load_flow_text(TYPOS).flow
    assert flow is not None
    scope = phase_scope(flow, "f", "when")
    for expr in ('{steps.triage.json.severity} == "high"', "low != {steps.triage.json.severity}",
                 "{steps.triage.json.severity} > hgh"):
        assert lint_expression(expr, scope) == []
    [found] = lint_expression("medium == {steps.triage.json.severity} || 'lwo' == {steps.triage.json.severity}", scope)
    assert found.kind == "enum-value" and found.suggestion == "low" and "always false" in found.message


def test_a_data_breakpoint_scope_catches_a_field_typo():
    scope = closed_scope({"phase": {"id": None, "attempt": None}, "run": {"costUSD": None}})
    [found] = lint_expression("{phase.atempt} >= 2", scope)
    assert found.start == 0 and found.end == len("{phase.atempt}")
    assert found.suggestion == "{phase.attempt}"
    assert lint_expression("{phase.attempt} >= 2 && {run.costUSD} > 0.2", scope) == []
    assert lint_expression("{phase.attempt} >= = 2", scope) == []  # a syntax error is the parser's to report


def test_lint_never_raises_on_odd_input():
    flow = load_flow_text(TYPOS).flow
    assert flow is not None
    for text in ["{", "}", "{{}}", "{steps..x}", "{steps.a.json.0.1.2}", "{.}", "{a}" * 1000, "\ud800{x}"]:
        for condition in (True, False):
            lint_expression(text, phase_scope(flow, "f", "when"), condition=condition)


def _sample_flows() -> list[Path]:
    samples = ROOT / "sample_flows"
    return sorted(p for p in [*samples.glob("*.json"), *samples.glob("flows/*.json")] if not p.name.endswith(".replies.json"))


@pytest.mark.parametrize("path", _sample_flows(), ids=lambda p: p.name)
def test_sample_flows_are_lint_clean(path: Path):
    result = load_flow(path, lint=True, agents=known_agent_names(path))
    assert result.ok and result.diagnostics == load_flow(path).diagnostics


def test_corpus_flows_taskflow_accepts_get_no_new_error():
    agents = known_agent_names(None)
    checked = 0
    for path in sorted(CORPUS.glob("*.json")):
        vector = json.loads(path.read_text(encoding="utf-8"))
        if "static" not in vector or not vector["static"]["taskflow_ok"]:
            continue
        text = json.dumps(vector["static"]["flow"], indent=2)
        plain = load_flow_text(text, "flow.json")
        linted = load_flow_text(text, "flow.json", lint=True, agents=agents)
        assert linted.ok == plain.ok, path.name
        assert linted.errors == plain.errors, path.name
        checked += 1
    assert checked > 100


def test_an_args_typo_is_flagged_only_near_a_declared_name():
    text = json.dumps(
        {
            "name": "args",
            "args": {"topic": {"type": "string", "default": "x"}},
            "phases": [{"id": "a", "task": "{args.topci} {args.topic} {args.extra} {args}"}],
        }
    )
    [diag] = load_flow_text(text, "f.json", lint=True).diagnostics
    assert diag.message == (
        "Phase 'a': task: {args.topci}: the flow declares no argument 'topci' — did you mean {args.topic}?"
    )
    assert (diag.line, diag.col) == _where(text, "{args.topci}")


def test_an_inline_def_is_linted_as_the_flow_it_is():
    text = json.dumps(
        {
            "name": "outer",
            "phases": [
                {"id": "a", "task": "x"},
                {"id": "sub", "type": "flow", "dependsOn": ["a"], "with": {"t": "{steps.a.output}"},
                 "def": {"name": "inner", "args": {"t": {}},
                         "phases": [{"id": "p", "task": "use {args.t}"},
                                    {"id": "q", "task": "{stesp.p.output}", "dependsOn": ["p"]}]}},
            ],
        },
        indent=2,
    )
    [diag] = load_flow_text(text, "f.json", lint=True).diagnostics
    assert diag.phase_id == "sub/q"
    assert diag.message.startswith("Phase 'sub/q': task: {stesp.p.output}: unknown placeholder head 'stesp'")
    assert (diag.line, diag.col) == _where(text, "{stesp.p.output}")


def test_an_agent_file_fixed_in_place_is_known_at_once(tmp_path: Path) -> None:
    """The debugger asks for the agent names on every save; a definition that did not parse and is
    then fixed in place (its folder's time unchanged) must count as defined on the next ask."""
    agents = tmp_path / "agents"
    agents.mkdir()
    flow = tmp_path / "flow.json"
    flow.write_text('{"name": "f", "phases": []}')
    bad = agents / "bad.md"
    bad.write_bytes(b"\xff\xfe not utf8")
    past = 1_000_000_000
    os.utime(bad, (past, past))
    os.utime(agents, (past, past))
    assert "bad" not in known_agent_names(flow, env={})
    bad.write_text("---\nname: bad\n---\nhello\n")
    os.utime(bad, (past + 10, past + 10))
    os.utime(agents, (past, past))  # an in-place edit leaves the folder's time as it was
    assert "bad" in known_agent_names(flow, env={})


def test_the_readme_check_walkthrough_runs_on_a_fresh_clone(monkeypatch, capsys):
    """README "tftui check": the command it shows, run from the repository's root, prints its block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### `tftui check`"):]
    block = section[section.index("```\n$ tftui check ") + 4:]
    block = block[:block.index("```")].splitlines()
    command = block[0].removeprefix("$ tftui ").split()
    monkeypatch.chdir(ROOT)
    assert all(Path(arg).is_file() for arg in command[1:]), f"the README checks {command[1:]}, not in the repo"
    assert main(command) == 0
    assert capsys.readouterr().out.splitlines() == block[1:]
