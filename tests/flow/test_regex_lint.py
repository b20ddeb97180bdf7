"""`tftui check` warns about regex scorer patterns with nested quantifiers (docs/linter.md §2.4, issue 17 fault 2)."""

from __future__ import annotations

import json
from pathlib import Path

from tftui.cli import main

FLOW = {
    "name": "patterns",
    "phases": [
        {"id": "gen", "task": "write"},
        {"id": "g", "type": "gate", "dependsOn": ["gen"], "score": {"target": "{steps.gen.output}", "scorers": [
            {"type": "regex", "pattern": "^(\\w+\\s?)+$"},
            {"type": "regex", "pattern": "^(yes|no)+$"},
            {"type": "contains", "value": "(a+)+"},
        ]}},
    ],
}


def test_check_warns_at_the_pattern_and_strict_refuses_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "patterns.json"
    text = json.dumps(FLOW, indent=2)
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 file checked: 0 errors, 1 warning"
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "(\\\\w+\\\\s?)+" in row)
    warning = next(row for row in out if "warning:" in row)
    assert warning.startswith(f"{path}:{line}:")
    assert "Phase 'g': score.scorers[0].pattern: (\\w+\\s?)+ repeats a group that itself repeats" in warning
    assert "the match is cut after 1000ms and the scorer fails" in warning
    assert main(["check", str(path), "--strict"]) == 1
