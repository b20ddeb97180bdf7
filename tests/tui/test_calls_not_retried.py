"""The Calls tab says why a failed attempt was the last one (SPEC §7.3), not only that it failed."""

from __future__ import annotations

from pathlib import Path

from tftui.engine import events as ev
from tftui.engine.timeline import TimelineBuilder
from tftui.tui import timeline_text


def calls_text(*failures: tuple[int, str, bool, str, bool]) -> str:
    """Calls tab text of phase `p` whose attempts fail as (attempt, error, transient, why, will_retry)."""
    events: list[ev.Event] = [ev.PhaseStarted(phase_id="p")]
    for attempt, error, transient, why, again in failures:
        events += [
            ev.AttemptStarted(phase_id="p", node_path="p", attempt=attempt, prompt="do it"),
            ev.AgentReturned(phase_id="p", node_path="p", attempt=attempt, error=error),
            ev.AttemptFailed(phase_id="p", node_path="p", attempt=attempt, error=error, transient=transient,
                             why=why, will_retry=again),
        ]
        if again:
            events.append(ev.BackoffStarted(phase_id="p", node_path="p", attempt=attempt, delay_ms=2000))
    return timeline_text.calls(TimelineBuilder().feed_all(events).get("p")).plain


def test_transient_failure_of_a_side_effect_says_idempotent_false():
    text = calls_text((0, "503 service unavailable", True, "error", False))
    assert 'transient: matched "503"\n   → not retried: idempotent: false (a side effect is never repeated' in text


def test_retried_then_exhausted_transient_failures():
    text = calls_text(*[(k, "503 busy", True, "error", k < 3) for k in range(4)])
    assert text.count("→ retried after a 2000 ms backoff") == 3
    assert "→ not retried: the 3 automatic retries and retry.max are used up" in text
    assert "idempotent" not in text


def test_other_last_attempts_say_why():
    assert "→ not retried: not transient, and retry.max (if any) allows no more attempts" in calls_text(
        (0, "bad request", False, "error", False))
    assert "→ not retried: retry.max (if any) allows no more attempts" in calls_text(
        (0, "Output contract violated", False, "contract", False))
    assert "→ not retried: the run is over its budget" in calls_text((0, "429", True, "budget", False))
    timeout = calls_text((0, "timed out", False, "timeout", False))
    assert "phase timeouts are never retried" in timeout and "→ not retried" not in timeout  # said once


async def test_the_side_effect_sample_in_the_calls_tab(h):
    """The same line in the TUI, on sample_flows/side_effect.json's deploy phase."""
    app = h.make_app(Path(__file__).parents[2] / "sample_flows" / "side_effect.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        assert "→ not retried: idempotent: false" in app.main.calls_tab_text("deploy").plain
