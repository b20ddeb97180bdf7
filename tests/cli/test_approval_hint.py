"""A headless `tftui run` that auto-rejects an approval phase tells the user about `--approve`
(the phase's reason text itself is fixed by SPEC §8.6)."""

from __future__ import annotations

from pathlib import Path

FLOWS = Path(__file__).parent / "flows"
HINT = ("    hint: a headless run rejects approval phases; `tftui run --approve` approves them, "
        "or run the flow in the TUI (`tftui FLOW`) to decide")


def test_auto_reject_prints_the_approve_hint(tftui) -> None:
    done = tftui("run", str(FLOWS / "approval.json"))
    assert done.code == 1
    lines = done.stderr.splitlines()
    row = next(i for i, line in enumerate(lines) if " ok " in line and "approval" in line)
    assert lines[row].endswith("(auto-rejected: no interactive approver available)")
    assert lines[row + 1] == HINT
    assert done.stdout.startswith("Gate blocked the workflow.\nReason: (auto-rejected: no interactive approver available)")


def test_no_hint_when_approved(tftui) -> None:
    done = tftui("run", str(FLOWS / "approval.json"), "--approve")
    assert done.code == 0, done.stderr
    assert "--approve" not in done.stderr
