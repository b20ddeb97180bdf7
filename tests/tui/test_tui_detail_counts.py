"""The Info tab's call counter: SPEC §2.2's attempts count exists once the phase has ended."""

from __future__ import annotations

from tftui.engine.state import Attempt, PhaseState, PhaseStatus
from tftui.tui import detail_text


def _info(state: PhaseState) -> str:
    return str(detail_text.overview(state.id, None, state, stale=False, breakpoint=False,
                                    guard_override=None, show_times=False))


def test_running_phase_shows_calls_without_a_zero_attempt_count():
    st = PhaseState(id="fetch", status=PhaseStatus.RUNNING)
    st.attempt_log = [Attempt("fetch", 0, status="failed"), Attempt("fetch", 1)]
    shown = _info(st)
    assert "Calls: 2" in shown
    assert "attempts: 0" not in shown  # was "Calls: 2  attempts: 0" mid-retry


def test_finished_phase_shows_the_attempt_count():
    st = PhaseState(id="fetch", status=PhaseStatus.DONE, attempts=3)
    st.attempt_log = [Attempt("fetch", i, status="ok") for i in range(3)]
    assert "Calls: 3  attempts: 3" in _info(st)
