"""An `expand` phase runs its `def`; a `use` written on it is not read (SPEC §2.3, docs/language.md
§2.3: expand takes `def`, and `use` is a `flow` phase's). `tftui check` says the `use` is ignored,
and the run ignores it too (`flow.model.saved_flow_use`): before, the engine ran the saved flow
the `use` named instead of the `def`."""

from __future__ import annotations

import json
from pathlib import Path


def _write(tmp_path: Path, phase_type: str) -> Path:
    (tmp_path / "flows").mkdir(exist_ok=True)
    saved = {"name": "child", "phases": [{"id": "c", "task": "[[c]] saved", "final": True}]}
    (tmp_path / "flows" / "child.json").write_text(json.dumps(saved))
    phase: dict = {"id": "x", "type": phase_type, "use": "child"}
    if phase_type == "expand":
        phase["def"] = {"name": "frag", "phases": [{"id": "i", "task": "[[i]] inline", "final": True}]}
    flow = tmp_path / f"{phase_type}.json"
    flow.write_text(json.dumps({"name": "p", "phases": [phase]}))
    replies = {"x/c": "FROM-SAVED", "x/i": "FROM-DEF"}
    (tmp_path / f"{phase_type}.replies.json").write_text(json.dumps(replies))
    return flow


def test_an_expand_phase_runs_its_def_and_check_says_the_use_is_ignored(tftui, tmp_path: Path) -> None:
    flow = _write(tmp_path, "expand")
    checked = tftui("check", str(flow))
    assert "'use' is not used by expand phases and is ignored" in checked.stdout
    done = tftui("run", str(flow), "--no-journal")
    assert done.code == 0, done.stderr
    assert done.stdout == "FROM-DEF\n"


def test_a_flow_phase_still_runs_the_saved_flow_its_use_names(tftui, tmp_path: Path) -> None:
    flow = _write(tmp_path, "flow")
    assert "ignored" not in tftui("check", str(flow)).stdout
    done = tftui("run", str(flow), "--no-journal")
    assert done.code == 0, done.stderr
    assert done.stdout == "FROM-SAVED\n"
