"""`tftui run --resume` of a flow file that starts with a UTF-8 BOM: the debugger journals the
text it loaded (no BOM), `tftui run` the bytes it read (with it); neither copy may make an
unchanged file read as changed, and a real edit still refuses the resume."""

from __future__ import annotations

import json
from pathlib import Path

BOM = "\ufeff".encode()


def test_a_bom_alone_is_no_change_but_an_edit_is(tftui, runs_dir: Path, tmp_path: Path) -> None:
    flow = tmp_path / "bom.json"
    body = json.dumps({"name": "bom", "phases": [{"id": "a", "task": "A."}]}).encode()
    flow.write_bytes(BOM + body)
    flow.with_name("bom.replies.json").write_text(json.dumps({"a": "AA"}))
    assert tftui("run", str(flow), "--quiet").code == 0
    [run_dir] = list(runs_dir.iterdir())
    (run_dir / "flow.json").write_bytes(body)  # the debugger's copy: the loaded text, no BOM

    same = tftui("run", "--resume", run_dir.name)
    assert "changed since run" not in same.stderr, same.stderr

    flow.write_bytes(BOM + body.replace(b"A.", b"B."))
    edited = tftui("run", "--resume", run_dir.name)
    assert edited.code == 2 and "changed since run" in edited.stderr
