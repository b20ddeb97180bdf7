"""The Trace tab's sparklines (issue 19): the distribution of the flow's recent runs per metric,
this run's bin marked, read from the journals under the runs dir."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tftui.cli import main
from tftui.engine.journal import list_runs, load_events
from tftui.tui.trace_tab import TraceTab
from tftui.tui.trace_text import history_text

FLOW = {"name": "jitter", "phases": [{"id": "draft", "task": "Draft."},
                                     {"id": "polish", "task": "Polish {steps.draft.output}", "dependsOn": ["draft"]}]}


def test_history_text_marks_this_runs_bin() -> None:
    history = [{"wallMs": float(v), "tokens": 60.0} for v in (10, 12, 14, 30, 31, 32, 33, 80)]
    text = history_text(history, {"wallMs": 31.0, "tokens": 60.0})
    plain = text.plain
    assert "Recent runs of this flow (8): where this run falls" in plain
    line = next(ln for ln in plain.splitlines() if ln.strip().startswith("wallMs"))
    assert "10–80  this run 31" in line and any(ch in line for ch in "▁▂▃▄▅▆▇█")
    marked = [span for span in text.spans if "reverse" in str(span.style)]
    assert marked  # this run's bin stands out
    assert history_text(history[:1], {"wallMs": 31.0}).plain == ""  # one run is no distribution


def test_trace_tab_shows_recent_runs_after_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flow = tmp_path / "jitter.json"
    flow.write_text(json.dumps(FLOW))
    replies = tmp_path / "jitter.replies.json"
    replies.write_text(json.dumps({"draft": {"output": "d", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]},
                                   "polish": {"output": "p", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]}}))
    runs = tmp_path / "runs"
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(runs))
    assert main(["run", str(flow), "--replies", str(replies), "--repeat", "4", "-q"]) == 0
    last = list_runs(runs)[-1].run_dir
    events, _meta, _warnings = load_events(last)
    tab = TraceTab(flow_path=str(flow), flow_name="jitter", runs_root=runs)
    tab.feed(events)
    plain = tab.text(None, 120, running=False, paused=False, rules_path=None).plain
    assert "Recent runs of this flow (4): where this run falls" in plain
    assert "wallMs.model" in plain and "modelCalls" in plain
    assert "Trace jitter" in plain  # the steps follow
    running = tab.text(None, 120, running=True, paused=False, rules_path=None).plain
    assert "Recent runs" not in running  # journals are read once the run has ended, not while it goes

    # the debugger: the journals are read in a worker, and the run shown is not one of its own
    # recent runs (it is the fourth, so three remain)
    shown = TraceTab(flow_path=str(flow), flow_name="jitter", runs_root=runs)
    shown.feed(events)
    shown.background = True
    asked: list[int] = []
    shown.on_history_wanted = asked.append
    first = shown.text(None, 120, running=False, paused=False, rules_path=None).plain
    assert "Recent runs" not in first and "Trace jitter" in first  # the steps at once, no file read
    assert asked == [shown.history_key()]
    shown.set_history(asked[0], shown.load_history(exclude=last))
    assert "Recent runs of this flow (3): where this run falls" in shown.text(
        None, 120, running=False, paused=False, rules_path=None).plain


def test_the_trace_tab_keeps_no_copy_of_the_runs_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab folds each event into its trace and lets it go: a 10,000-item map's 20,000 events
    kept there made every full garbage collection walk them (issue 18). What it shows after the
    run, this run's place among the recent runs included, is the same."""
    import gc

    flow = tmp_path / "jitter.json"
    flow.write_text(json.dumps(FLOW))
    replies = tmp_path / "jitter.replies.json"
    replies.write_text(json.dumps({"draft": {"output": "d", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]},
                                   "polish": {"output": "p", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]}}))
    runs = tmp_path / "runs"
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(runs))
    assert main(["run", str(flow), "--replies", str(replies), "--repeat", "3", "-q"]) == 0
    last = list_runs(runs)[-1].run_dir
    events, _meta, _warnings = load_events(last)
    tab = TraceTab(flow_path=str(flow), flow_name="jitter", runs_root=runs)
    tab.exclude_run = last
    tab.feed(iter(events))
    assert [r for r in gc.get_referrers(*events[1:]) if r is not events] == []  # (the trace keeps its RunStarted)
    plain = tab.text(None, 120, running=False, paused=False, rules_path=None).plain
    assert "Recent runs of this flow (2): where this run falls" in plain and "Trace jitter" in plain
    from tftui.trace.distribution import recent_samples

    mine = recent_samples(runs, str(flow))[-1]  # this run's metrics, as read back from its journal
    assert tab.run_metrics() == mine


@pytest.mark.parametrize("before", [1, 2])
def test_the_debuggers_trace_tab_places_the_run_among_the_recent_runs(
        h, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: int) -> None:  # noqa: ANN001
    """The debugger reads the recent runs' journals in a worker; this run's metrics are worked out
    on the UI thread from its live trace, and only when there is a distribution to place it in
    (two or more recent runs besides it)."""
    flow = tmp_path / "jitter.json"
    flow.write_text(json.dumps(FLOW))
    replies = tmp_path / "jitter.replies.json"
    replies.write_text(json.dumps({"draft": {"output": "d", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]},
                                   "polish": {"output": "p", "usage": {"input": 5, "output": 5}, "delayMs": [1, 15]}}))
    runs = tmp_path / "runs"
    monkeypatch.setenv("TFTUI_RUNS_DIR", str(runs))
    assert main(["run", str(flow), "--replies", str(replies), "--repeat", str(before), "-q"]) == 0
    asyncio.run(_debug_run(h, flow, replies, runs, monkeypatch, before))


async def _debug_run(h, flow: Path, replies: Path, runs: Path,  # noqa: ANN001
                     monkeypatch: pytest.MonkeyPatch, before: int) -> None:
    app = h.make_app(flow, replies, runs_root=runs)
    worked_out: list[int] = []
    async with app.run_test(size=(120, 40)) as pilot:
        tab = app.main.trace_tab
        metrics = tab.run_metrics
        monkeypatch.setattr(tab, "run_metrics", lambda: worked_out.append(1) or metrics())
        app.main.detail.active = "trace"
        await pilot.press("c")
        await h.run_to_end(pilot, app)
        detail = app.main.detail
        if before == 1:
            await h.settle(pilot, lambda: tab._history is not None)
            assert "Recent runs" not in detail.text("trace") and worked_out == []
        else:
            await h.settle(pilot, lambda: "Recent runs of this flow (2)" in detail.text("trace"))
            assert worked_out == [1] and "Trace jitter" in detail.text("trace")
