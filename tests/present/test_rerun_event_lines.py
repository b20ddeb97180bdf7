from tftui.engine import events as ev
from tftui.present.events import describe


def test_rerun_events_are_worded():
    line = describe(ev.PhasesReset(phase_ids=["review", "publish"]))
    assert line.text == "re-run resets review, publish"
    line = describe(ev.PhasesStale(phase_ids=[f"p{i}" for i in range(8)], removed=["old"]))
    assert line.text == "stale: p0, p1, p2, p3, p4, p5, … (+2 more) (removed: old)"
    assert "grafted x-a, x-b" in describe(ev.PhasesGrafted(phase_id="x", phase_ids=["x-a", "x-b"])).text
