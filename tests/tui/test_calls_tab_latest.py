"""The Calls tab of a map shows its latest attempts: building it reads only those (a 10,000-item
map's tab went over every attempt each redraw), and the diff view (`D`) still diffs a shown
attempt against its node's previous attempt when that one is not shown."""

from __future__ import annotations

from tftui.engine import events as ev
from tftui.engine.timeline import PhaseTimeline, TimelineBuilder
from tftui.tui import timeline_text


def _map_timeline(items: int) -> PhaseTimeline:
    events: list[ev.Event] = [ev.PhaseStarted(phase_id="m")]
    # item 0 fails first, then every item returns, then item 0 is called again (the last attempt)
    calls = [(0, 0, "first answer", "boom"), *[(i, 0, f"answer {i}", None) for i in range(1, items)],
             (0, 1, "second answer", None)]
    for item, attempt, output, error in calls:
        path = f"m#item-{item}"
        events += [ev.AttemptStarted(phase_id="m", node_path=path, attempt=attempt, prompt=f"do {item}"),
                   ev.AgentReturned(phase_id="m", node_path=path, attempt=attempt, output=output, error=error)]
    timeline = TimelineBuilder().feed_all(events).get("m")
    assert timeline is not None
    return timeline


class _Watched(list):
    """The attempts, saying whether something walked all of them."""

    walked = False

    def __iter__(self):
        self.walked = True
        return super().__iter__()


def test_the_calls_tab_reads_only_the_attempts_it_shows():
    timeline = _map_timeline(200)
    expected = timeline_text.calls(timeline).plain
    timeline.attempts = _Watched(timeline.attempts)
    text = timeline_text.calls(timeline).plain
    assert text == expected
    assert "… 161 earlier attempts not shown" in text and "m#item-199" in text and "m#item-5 " not in text
    assert not timeline.attempts.walked


def test_the_diff_view_diffs_against_an_attempt_not_shown():
    text = timeline_text.calls(_map_timeline(200), diff=True).plain
    assert "-first answer" in text and "+second answer" in text
