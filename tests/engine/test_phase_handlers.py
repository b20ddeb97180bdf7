"""Every phase type of the flow format has a handler: a missing one is a packaging bug that must fail
loudly (there is no 'not supported yet' fallback), so this is checked against the models."""

from __future__ import annotations

import pytest

from tftui.engine.phases import HANDLERS
from tftui.engine.phases.base import PhaseRun, phase_as
from tftui.flow.model import PHASE_CLASSES, GatePhase, LoopPhase


def test_every_phase_type_has_a_handler() -> None:
    assert sorted(HANDLERS) == sorted(PHASE_CLASSES)


def test_a_handler_refuses_a_phase_of_another_type() -> None:
    gate = GatePhase.model_validate({"id": "g", "type": "gate", "task": "check"})
    assert phase_as(PhaseRun(phase=gate), GatePhase) is gate
    with pytest.raises(TypeError, match="phase 'g': a gate phase was handed to the"):
        phase_as(PhaseRun(phase=gate), LoopPhase)
