"""`tftui run`'s progress lines read the run's own fold (issue 18: one fold, one author): the
printer folds no event a second time, and its lines and summary are those of the run's state."""

from __future__ import annotations

import pytest

from tftui.commands import progress as progress_module

from .conftest import SAMPLES


def test_the_printer_folds_no_event_of_its_own(tftui, monkeypatch: pytest.MonkeyPatch) -> None:
    folded: list[str] = []
    original = progress_module.apply

    def counting(state, event):  # type: ignore[no-untyped-def]
        folded.append(event.kind)
        return original(state, event)

    monkeypatch.setattr(progress_module, "apply", counting)
    flow = str(SAMPLES / "map_reduce.json")
    done = tftui("run", flow)
    assert done.code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert any(" merge " in line for line in lines), done.stderr
    assert lines[-1].startswith("completed · ")
    assert folded == []
