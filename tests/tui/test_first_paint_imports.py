"""The debugger's first frame waits only for what it shows (issue 18, first paint): the trace
(the Trace tab's columns and models), the scoring layer and the gate history load after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter, as `tftui FLOW` starts: the modules loaded when the main screen's
# first frame is written (App._display), before the warm-up worker loads the rest.
CHILD = """
import sys
from pathlib import Path
from textual.app import App
from tftui.admit import AdmitRules, admit
from tftui.agents.scripted import MarkerRunner
from tftui.tui.app import TftuiApp

seen = []
display = App._display
def first_frame(self, screen, renderable):
    display(self, screen, renderable)
    if renderable is not None and type(screen).__name__ == "MainScreen" and not seen:
        seen.append(sorted(sys.modules))
        self.exit()
App._display = first_frame
path = sys.argv[1]
admission = admit(path, AdmitRules(), lint=False)
app = TftuiApp(admission.loaded.flow, flow_path=path, flow_text=admission.loaded.source_text,
               runner=MarkerRunner(), watch=False, animations=False, pending_lint=admission,
               config_path=Path(path + ".none.toml"))
app.run(headless=True, size=(120, 40))
print("\\n".join(seen[0]))
"""


def test_the_first_frame_does_not_wait_for_the_trace_scoring_or_gate_history(tmp_path: Path) -> None:
    flow = {"name": "f", "phases": [
        {"id": "a", "agent": "default", "task": "do a"},
        {"id": "g", "type": "gate", "task": "check {steps.a.output}", "dependsOn": ["a"]},
    ]}
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(flow))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert "tftui.tui.main_screen" in loaded  # (the frame was the debugger's)
    late = sorted(m for m in loaded if m.startswith(("tftui.trace", "tftui.scoring", "tftui.engine.gate_history")))
    assert late == []
