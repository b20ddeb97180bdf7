from tftui.engine import events as ev
from tftui.present.events import describe


def test_rerun_events_are_worded():
    line = describe(ev.PhasesReset(phase_ids=["review", "publish"]))
    assert line.text == "re-run resets review, publish"
    line = describe(ev.PhasesStale(phase_ids=[f"p{i}" for i in range(8)], removed=["old"]))
    assert line.text == "stale: p0, p1, p2, p3, p4, p5, … (+2 more) (removed: old)"
    assert "grafted x-a, x-b" in describe(ev.PhasesGrafted(phase_id="x", phase_ids=["x-a", "x-b"])).text


def test_a_scorer_combine_reads_as_the_gate_tab_rounds_it():
    """`scorers combined 0.71`, not `0.7142857142857143` (the log said the float's repr; issue 15)."""
    text = describe(ev.ScorersEvaluated(phase_id="g", combined=5 / 7, stage="early-cutoff")).text
    assert text == "g: scorers combined 0.71 (early-cutoff)"
