"""The headless progress printer: phase lines, tty status line, plain output elsewhere."""

from __future__ import annotations

import contextlib
import io
import re

from tftui import present
from tftui.commands.progress import Progress
from tftui.commands.run_report import exit_code_for, summary_line
from tftui.engine import events as ev


class Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty = tty
        self._encoding = encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def feed(progress: Progress) -> None:
    events = [
        ev.RunStarted(
            run_id="r",
            flow_name="f",
            phase_ids=["fetch", "review", "publish"],
            phase_types={"fetch": "agent", "review": "gate", "publish": "agent"},
        ),
        ev.PhaseStarted(phase_id="fetch"),
        ev.AttemptStarted(phase_id="fetch", node_path="fetch", attempt=0),
        ev.AgentReturned(
            phase_id="fetch", node_path="fetch", attempt=0, error="429", usage={"input": 5, "output": 0}
        ),
        ev.AttemptFailed(
            phase_id="fetch", node_path="fetch", attempt=0, error="429", transient=True, will_retry=True
        ),
        ev.BackoffStarted(phase_id="fetch", node_path="fetch", attempt=0, delay_ms=2000),
    ]
    for event in events:
        progress.on_event(event)


def finish(progress: Progress) -> None:
    for event in [
        ev.AttemptStarted(phase_id="fetch", node_path="fetch", attempt=1),
        ev.AgentReturned(
            phase_id="fetch", node_path="fetch", attempt=1, output="x", usage={"input": 5, "output": 4}
        ),
        ev.PhaseFinished(
            phase_id="fetch",
            status="done",
            output="x",
            attempts=2,
            duration_ms=1500,
            usage={"input": 10, "output": 4},
        ),
        ev.PhaseStarted(phase_id="review", phase_type="gate"),
        ev.PhaseFinished(
            phase_id="review", status="done", output="no", gate={"verdict": "block", "reason": "unsourced"}
        ),
        ev.PhaseSkipped(phase_id="publish", reason="Gate blocked: unsourced"),
        ev.RunFinished(status="blocked", final_output="Gate blocked the workflow."),
    ]:
        progress.on_event(event)


def test_plain_lines_when_not_a_tty() -> None:
    stream = Stream(tty=False)
    progress = Progress(stream=stream)
    feed(progress)
    progress.draw_status()  # no-op off a terminal
    finish(progress)
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert len(lines) == 3
    assert lines[0].split()[:6] == ["✓", "fetch", "agent", "done", "2", "attempts"]
    assert "1.5s" in lines[0] and "14 tok" in lines[0]
    # the debugger's glyphs (one table): ⊘ is skipped and blocked has its own glyph
    assert lines[1].split()[:4] == [present.glyph("blocked"), "review", "gate", "blocked"] and lines[1].endswith("unsourced")
    assert lines[2].split()[:4] == [present.glyph("skipped"), "publish", "agent", "skipped"]
    assert lines[2].endswith("Gate blocked: unsourced")
    assert present.run_calls(progress.state) == 2  # the fold's count, the one `tftui run` prints


def test_status_line_on_a_tty_is_redrawn_in_place() -> None:
    stream = Stream(tty=True)
    progress = Progress(stream=stream, color=False)
    feed(progress)
    status = progress.status_text()
    assert "0/3 phases" in status and "fetch (backoff" in status
    progress.draw_status()
    assert stream.getvalue().startswith("\r\x1b[K")
    finish(progress)
    text = stream.getvalue()
    # The status line is cleared before each phase line, so lines never mix with it.
    assert "\r\x1b[K✓ fetch" in text


def test_colour_only_on_a_tty_and_ascii_fallback() -> None:
    stream = Stream(tty=True)
    progress = Progress(stream=stream)
    if progress.color:  # NO_COLOR in the environment turns it off
        feed(progress)
        finish(progress)
        assert "\x1b[32m✓\x1b[0m" in stream.getvalue()
    ascii_stream = Stream(tty=False, encoding="ascii")
    plain = Progress(stream=ascii_stream)
    feed(plain)
    finish(plain)
    assert ascii_stream.getvalue().splitlines()[0].startswith("* fetch")
    ascii_stream.getvalue().encode("ascii")


def test_quiet_prints_nothing() -> None:
    stream = Stream(tty=True)
    progress = Progress(stream=stream, quiet=True)
    feed(progress)
    progress.draw_status()
    finish(progress)
    assert stream.getvalue() == ""


def test_summary_and_exit_codes() -> None:
    progress = Progress(stream=Stream(tty=False))
    feed(progress)
    finish(progress)
    line = summary_line(progress.state, status="blocked", run_dir=None, duration_ms=61000)
    assert line == "blocked · 1 done, 1 blocked, 0 failed, 1 skipped · 2 calls · 14 tok · cost unknown · 1m01s"  # issue 15 item 16: no prices, not $0.00
    assert [exit_code_for(s) for s in ("completed", "failed", "blocked", "paused")] == [0, 1, 1, 130]


def test_onblock_rerun_is_marked() -> None:
    stream = Stream(tty=False)
    progress = Progress(stream=stream, phase_types={"impl": "agent"})
    progress.on_event(ev.PhaseStarted(phase_id="impl", depth=1, round=1))
    progress.on_event(ev.PhaseFinished(phase_id="impl", status="done", output="v2"))
    assert stream.getvalue().rstrip().endswith("(re-run for onBlock round 1; tokens: all its rounds)")


def test_onblock_rerun_row_says_its_tokens_are_the_phases_so_far(tmp_path, monkeypatch) -> None:
    """onblock_rework: implement's first row has its first round's tokens, its re-run row the
    phase's tokens so far (what the tree row shows); the rows are not to be added up, and the
    summary counts each call once."""
    from pathlib import Path

    from tftui.cli import main

    samples = Path(__file__).resolve().parents[2] / "sample_flows"
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()  # the rows are progress: stderr (stdout has the final output)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["run", str(samples / "onblock_rework.json"), "--replies", str(samples / "onblock_rework.replies.json"),
                     "--no-journal", "--no-wait"])
    assert code == 0
    rows = [line for line in err.getvalue().splitlines() if " implement " in line]
    assert len(rows) == 2 and rows[1].endswith("(re-run for onBlock round 1; tokens: all its rounds)"), rows
    first, again = (int(re.search(r"(\d+) tok", row).group(1)) for row in rows)
    assert again > first


def test_status_line_counts_a_running_maps_items() -> None:
    """A long map on a terminal: the status line says how far through its items it is."""
    progress = Progress(stream=Stream(tty=True), color=False)
    events: list[ev.Event] = [
        ev.RunStarted(run_id="r", flow_name="f", phase_ids=["each"], phase_types={"each": "map"}),
        ev.PhaseStarted(phase_id="each", phase_type="map"),
        ev.ItemsResolved(phase_id="each", total=1000),
    ]
    for i in range(3):
        events.append(ev.AttemptStarted(phase_id="each", node_path=f"each#item-{i}", attempt=0))
    for i in range(2):
        events.append(ev.AgentReturned(phase_id="each", node_path=f"each#item-{i}", attempt=0, output="ok"))
    for event in events:
        progress.on_event(event)
    assert "each 2/1000 items" in progress.status_text()  # two answered, a third still out
