"""`tftui check` and `tftui schema`: output format, exit codes, import hygiene."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tftui.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = '{"name": "ok", "phases": [{"id": "a", "task": "x"}]}'
WARN = '{"name": "w", "phases": [{"id": "a", "task": "x", "until": "x"}]}'
BAD = '{"name": "b", "phases": [\n  {"id": "a", "task": "x", "dependsOn": ["zzz"]}\n]}'


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"good": GOOD, "warn": WARN, "bad": BAD}.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def test_clean_file_exits_0(files, capsys):
    assert main(["check", files["good"]]) == 0
    assert capsys.readouterr().out == "1 file checked: 0 errors, 0 warnings\n"


def test_errors_exit_1_with_compiler_style_lines(files, capsys):
    assert main(["check", files["good"], files["warn"], files["bad"]]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{files['warn']}:1:51: warning: Phase 'a' (agent): 'until' is only meaningful on loop phases and is "
        "ignored here [a]",
        f"{files['bad']}:2:42: error: Phase 'a': dependsOn unknown phase 'zzz' [a]",
        "3 files checked: 1 error, 1 warning",
    ]


def test_warnings_only_exit_0_unless_strict(files, capsys):
    assert main(["check", files["warn"]]) == 0
    assert main(["check", "--strict", files["warn"]]) == 1
    assert ": error: Phase 'a' (agent): 'until' is only meaningful" in capsys.readouterr().out


def test_unknown_field_is_an_error_with_the_fix(tmp_path, capsys):
    # taskflow's schema is closed: a typo must not silently drop the dependency
    path = tmp_path / "typo.json"
    path.write_text('{"name": "t", "phases": [{"id": "a", "task": "x"}, {"id": "b", "task": "y", "dependOn": ["a"]}]}')
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{path}:1:77: error: Phase 'b': unknown field 'dependOn' — did you mean 'dependsOn'? [b]"
    )


def test_unreadable_file_exits_2(files, tmp_path, capsys):
    assert main(["check", files["good"], str(tmp_path / "nope.json")]) == 2
    assert f"{tmp_path / 'nope.json'}: error: flow file not found" in capsys.readouterr().out
    assert main(["check", str(tmp_path)]) == 2  # there, but not a file
    assert f"{tmp_path}: error: cannot read file: Is a directory" in capsys.readouterr().out


def test_bad_arg_usage_exits_2(files, capsys):
    assert main(["check", files["good"], "--arg", "novalue"]) == 2
    assert "--arg expects NAME=VALUE" in capsys.readouterr().err  # one wording for check, open and run


def test_runtime_mode_args(tmp_path, capsys):
    path = tmp_path / "args.json"
    path.write_text('{"name": "a", "phases": [{"id": "a", "task": "{args.topic}"}]}')
    assert main(["check", str(path)]) == 0
    assert "0 warnings" in capsys.readouterr().out
    assert main(["check", str(path), "--runtime"]) == 0
    assert "did not provide 'topic'" in capsys.readouterr().out
    assert main(["check", str(path), "--arg", "topic=rust"]) == 0
    assert "0 warnings" in capsys.readouterr().out


def test_json_output(files, capsys):
    assert main(["check", "--json", files["bad"]]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["errors"] == 1 and payload["warnings"] == 0
    (diag,) = payload["files"][0]["diagnostics"]
    assert diag == {
        "severity": "error",
        "message": "Phase 'a': dependsOn unknown phase 'zzz'",
        "line": 2,
        "col": 42,
        "phase_id": "a",
        "field": "dependsOn",
        "path": "$.phases[0].dependsOn[0]",
    }


def test_sample_flows_pass(capsys):
    flows = sorted(str(p) for p in (ROOT / "sample_flows").glob("*.json"))
    assert flows
    assert main(["check", *flows]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert out.endswith("0 errors, 0 warnings\n"), out


def test_check_does_not_import_textual(files):
    code = (
        "import sys\n"
        "from tftui.cli import main\n"
        f"rc = main(['check', {files['good']!r}])\n"
        "assert rc == 0, rc\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print('TEXTUAL' if bad else 'CLEAN')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "CLEAN"


def test_python_m_tftui_check_subprocess(files):
    proc = subprocess.run(
        [sys.executable, "-m", "tftui", "check", files["bad"]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout.endswith("1 file checked: 1 error, 0 warnings\n")


def test_schema_describes_the_flow_format(tmp_path, capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert {"name", "phases", "budget", "strictInterpolation"} <= set(schema["properties"])
    assert schema["required"] == ["name", "phases"]
    gate = schema["$defs"]["GatePhase"]["properties"]
    assert "onBlock" in gate and gate["onBlock"]["description"]
    assert "dependsOn" in gate and "depends_on" not in gate
    target = tmp_path / "schema.json"
    assert main(["schema", "--output", str(target)]) == 0
    assert json.loads(target.read_text()) == schema
    assert main(["schema", "--output", str(tmp_path / "no" / "dir" / "s.json")]) == 2


def test_diagnostics_are_printed_in_file_order(tmp_path, capsys):
    """Several problems: listed top to bottom, as the reader scans the file (not in check order)."""
    path = tmp_path / "many.json"
    path.write_text(
        '{\n  "name": "many",\n  "phases": [\n'
        '    {"id": "a", "task": "x", "dependsOn": ["zz"]},\n'
        '    {"id": "c", "type": "mapp", "task": "z"},\n'
        '    {"id": "a", "task": "dup"}\n'
        "  ]\n}\n"
    )
    assert main(["check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()[:-1]
    positions = [tuple(int(n) for n in line[len(str(path)) + 1 :].split(":")[:2]) for line in lines]
    assert len(positions) == 3 and positions == sorted(positions)
    assert [p[0] for p in positions] == [4, 5, 6]


def test_schema_lists_exactly_taskflows_fields_and_marks_extensions(capsys):
    from tftui.flow.closed import PHASE_KEYS

    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["$schema"]["x-tftui-extension"] is True
    phase_defs = {n: d for n, d in schema["$defs"].items() if n.endswith("Phase")}
    assert len(phase_defs) == 12
    for definition in phase_defs.values():
        assert definition["additionalProperties"] is False
        assert set(definition["properties"]) == set(PHASE_KEYS)  # taskflow's one flat set of phase keys
    assert "name" not in phase_defs["AgentPhase"]["properties"]
    assert "expandMode" in phase_defs["ExpandPhase"]["properties"]
    for name in ("Branch", "Retry", "Budget"):
        assert schema["$defs"][name]["additionalProperties"] is False


def test_schema_accepts_every_sample_flow_and_rejects_an_unknown_field(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema"]) == 0
    validator = jsonschema.Draft202012Validator(json.loads(capsys.readouterr().out))
    samples = [p for p in sorted((ROOT / "sample_flows").glob("*.json")) if not p.name.endswith(".replies.json")]
    assert samples
    for path in samples:
        assert [e.message for e in validator.iter_errors(json.loads(path.read_text()))] == [], path.name
    typo = {"name": "x", "phases": [{"id": "a", "task": "t", "dependOn": ["b"]}]}
    assert list(validator.iter_errors(typo))


def test_schema_closes_score_args_and_thinking_and_marks_python(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator(schema)

    def errors(phase: dict, **top) -> list[str]:
        return [e.message for e in validator.iter_errors({"name": "x", "phases": [phase], **top})]

    gate = {"id": "g", "type": "gate", "score": {"scorers": [{"type": "code-compiles", "language": "python"}]}}
    assert errors(gate) == []
    language = schema["$defs"]["GatePhase"]["properties"]["score"]["properties"]["scorers"]["items"]["oneOf"][-1]
    assert language["properties"]["language"]["x-tftui-extension"] == ["python"]  # marked as tftui's
    assert errors({**gate, "score": {"scorers": [{"type": "contains", "value": "x", "pattern": "y"}]}})
    assert errors({**gate, "score": {"scorers": [{"type": "contains", "value": "x"}], "combin": "all"}})
    assert errors({"id": "a", "task": "t", "thinking": "extreme"})
    assert errors({"id": "a", "task": "t"}, args={"n": {"type": "integer"}})
    assert errors({"id": "a", "task": "t"}, args={"n": {"type": "number", "minimum": 1}}) == []
