"""One status table (issue 13): the same recorded run reads the same in every front end.

Two sample runs between them end phases in done, failed, skipped and blocked (gate_block:
a gate blocks, later phases are skipped; side_effect: a deploy fails, its dependent is
skipped). For each phase, the glyph and word each front end shows — the debugger's tree
(Unicode and --ascii) and detail panel, `tftui run`'s lines, `tftui runs`, and
`tftui replay --print` — are compared with the status table (`tftui.present`), and so are
the numbers (duration, tokens, cost). The expected values are computed from the journal
and the table, never copied from either: a front end that formats on its own fails here.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path

import pytest

from tftui import present
from tftui.engine.journal import decode_events, list_runs, read_journal
from tftui.engine.state import RunState, fold

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"
RUNS = ("gate_block", "side_effect")


class _Stream(io.StringIO):
    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def isatty(self) -> bool:
        return False


@pytest.fixture
def recorded(tftui, runs_dir: Path) -> dict[str, tuple[Path, str, RunState, list]]:
    """name -> (run dir, `tftui run`'s stderr, the journal folded, the journal's events)."""
    out = {}
    for name in RUNS:
        done = tftui("run", str(SAMPLES / f"{name}.json"), "--no-wait")
        assert done.code == 1, done.stderr
        (entry,) = [e for e in list_runs(runs_dir) if e.meta.get("flowPath", "").endswith(f"{name}.json")]
        rows, _meta, _warnings = read_journal(entry.run_dir)
        events, _more = decode_events(rows)
        out[name] = (entry.run_dir, done.stderr, fold(events), events)
    return out


def _displays(state: RunState) -> dict[str, str]:
    return {pid: present.display_status(p) for pid, p in state.phases.items()}


def test_the_runs_cover_the_statuses(recorded) -> None:
    seen = {s for _d, _e, state, _ev in recorded.values() for s in _displays(state).values()}
    assert {"done", "failed", "skipped", "blocked"} <= seen


def test_the_table_has_two_variants_of_every_status() -> None:
    for table in (present.STATUSES, present.RUN_STATUSES):
        for name, row in table.items():
            assert row.ascii.isascii() and row.ascii and row.unicode, name
            assert present.glyph(name) == row.unicode and present.glyph(name, ascii=True) == row.ascii
    for glyphs, attr in ((present.UNICODE, "unicode"), (present.ASCII, "ascii")):
        shown = {getattr(row, attr) for row in present.STATUSES.values()}
        assert len(shown) == len(present.STATUSES)  # no two statuses share a glyph
        assert glyphs.status == {n: getattr(r, attr) for n, r in present.STATUSES.items()}


def _phase_lines(stderr: str, state: RunState) -> dict[str, list[str]]:
    lines: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] in state.phases:
            lines[words[1]] = words
    return lines


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_tftui_run_lines_read_from_the_table(recorded, encoding: str) -> None:
    from tftui.commands.progress import Progress

    for _run_dir, stderr, state, events in recorded.values():
        if encoding == "utf-8":
            text = stderr
        else:  # the same journal through the progress printer on a stream that cannot show Unicode
            stream = _Stream(encoding)
            progress = Progress(stream=stream)
            for event in events:
                progress.on_event(event)
            text = stream.getvalue()
            text.encode("ascii")
        lines = _phase_lines(text, state)
        for pid, status in _displays(state).items():
            words = lines[pid]
            assert words[0] == present.glyph(status, ascii=encoding == "ascii"), (pid, words)
            assert words[3] == present.status_word(status), (pid, words)
            phase = state.phases[pid]
            if status != "skipped":
                line = " ".join(words)
                assert present.elapsed_text(phase.duration_ms) in words
                assert present.tokens_text(present.usage_tokens(phase.usage)) in line


def test_tftui_run_ascii_flag_reads_from_the_table(tftui, runs_dir: Path) -> None:
    """`tftui run --ascii` on a UTF-8 stream prints the ASCII variant of the same table."""
    done = tftui("run", str(SAMPLES / "gate_block.json"), "--no-wait", "--ascii")
    assert done.code == 1, done.stderr
    done.stderr.encode("ascii")
    (entry,) = [e for e in list_runs(runs_dir) if e.meta.get("flowPath", "").endswith("gate_block.json")]
    rows, _meta, _warnings = read_journal(entry.run_dir)
    state = fold(decode_events(rows)[0])
    for pid, status in _displays(state).items():
        (line,) = [line for line in done.stderr.splitlines() if line.split()[1:2] == [pid]]
        assert line.split()[0] == present.glyph(status, ascii=True), line


def test_tftui_run_summary_numbers(recorded) -> None:
    for _run_dir, stderr, state, _events in recorded.values():
        summary = stderr.strip().splitlines()[-1].split(" · ")
        # the counts use the table's words for the statuses the phase lines show: a blocked gate
        # is counted as blocked, not as done
        counts = dict(reversed(item.split(" ", 1)) for item in summary[1].split(", "))
        displays = list(_displays(state).values())
        for status in ("done", "failed", "skipped", "blocked"):
            if status in displays or status != "blocked":
                assert counts[present.status_word(status)] == str(displays.count(status)), (status, summary)
        assert present.tokens_text(present.usage_tokens(state.usage)) in summary
        # the cost as every front end words it (side_effect's failed deploy reported tokens, no cost)
        assert present.spend_cost_text(state.usage) in summary


@pytest.mark.parametrize("glyphs", [present.UNICODE, present.ASCII], ids=["unicode", "ascii"])
def test_debugger_tree_and_detail_read_from_the_table(recorded, glyphs: present.Glyphs) -> None:
    from tftui.flow.load import load_flow
    from tftui.tui import detail_text
    from tftui.tui.widgets.dag_tree import DagTree

    for name, (_run_dir, _stderr, state, _events) in recorded.items():
        flow = load_flow(SAMPLES / f"{name}.json").flow
        tree = DagTree(glyphs=glyphs, show_times=False)
        tree.flow, tree.state = flow, state
        tree._phase_types = {p.id: p.type for p in flow.phases}
        for pid, status in _displays(state).items():
            label = tree.label_for(pid).plain
            look = present.look(status)
            assert label.startswith(f" {present.glyph(status, ascii=glyphs.ascii)} {pid} "), label
            assert (f" {look.headline}" in label) == look.loud, label
            usage = present.usage_text(state.phases[pid].usage)
            assert label.endswith(f" {usage}" if usage else state.phases[pid].type), label
            overview = detail_text.overview(
                pid, flow.phase(pid), state.phases[pid], stale=False, breakpoint=False,
                guard_override=None, show_times=True,
            ).plain
            assert overview.splitlines()[0].endswith(look.headline), overview


def _table(stdout: str) -> list[list[str]]:
    lines = stdout.splitlines()
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"(?<=  )\S|^\S", header)]
    return [[line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)] for line in lines[1:]]


def _header_progress(state: RunState) -> str:
    """The n/m part of the debugger's header for this run (the header's own code)."""
    from types import SimpleNamespace

    from tftui.flow.load import load_flow
    from tftui.tui.widgets.run_header import header_parts

    name = {"gate-block": "gate_block", "side-effect": "side_effect"}[state.flow_name]
    flow = load_flow(SAMPLES / f"{name}.json").flow
    ctl = SimpleNamespace(runner=None, clock=None)
    app = SimpleNamespace(state=state, flow=flow, ctl=ctl, show_times=False, stale=set())
    (n_of_m,) = [p.variants[0] for p in header_parts(app) if re.fullmatch(r"\d+/\d+", p.variants[0])]
    return n_of_m


@pytest.mark.parametrize("ascii_flag", [False, True], ids=["unicode", "ascii"])
def test_tftui_runs_reads_from_the_table(tftui, recorded, ascii_flag: bool) -> None:
    done = tftui("runs", *(["--ascii"] if ascii_flag else []))
    assert done.code == 0, done.stderr
    glyph = functools.partial(present.glyph, ascii=ascii_flag)
    rows = {row[1]: row for row in _table(done.stdout)}
    listed = {e["flow"]: e for e in tftui("runs", "--json").json()}
    for _run_dir, _stderr, state, _events in recorded.values():
        row = rows[state.flow_name]
        status = listed[state.flow_name]["status"]
        assert row[3] == f"{glyph(status)} {present.status_word(status)}"
        displays = list(_displays(state).values())
        others = [f"{glyph(s)}{displays.count(s)}" for s in present.DISPLAY_STATUSES
                  if s != "done" and s in displays]
        # the n/m is the debugger header's for the same run: every phase that reached an end
        n_of_m = _header_progress(state)
        assert n_of_m == f"{sum(1 for s in displays if s != 'pending')}/{len(displays)}"
        assert row[4] == " ".join([n_of_m, *others])
        entry = listed[state.flow_name]
        assert f"{entry['phases_done']}/{entry['phases_total']}" == n_of_m
        assert row[5] == str(present.run_calls(state)) == str(listed[state.flow_name]["attempts"])
        assert row[6] == present.format_tokens(present.usage_tokens(state.usage))
        assert row[7] == present.spend_cost_variants(state.usage)[-1]  # the narrow form (`≥ $0.0002`)


DURATIONS = (0.4, 500.0, 1500.0, 61_000.0, 3_720_000.0)
TOKENS = (14, 12_345, 2_500_000)
COSTS = (0.0, 0.0008, 0.123, 12.5)


@pytest.mark.parametrize("ms", DURATIONS)
@pytest.mark.parametrize("tokens", TOKENS)
@pytest.mark.parametrize("cost", COSTS)
def test_numbers_read_the_same_everywhere(ms: float, tokens: int, cost: float) -> None:
    """Over the whole range of each number (a front end with its own format drifts somewhere)."""
    from tftui.commands.progress import Progress
    from tftui.commands.run_report import summary_line
    from tftui.commands.runs import table_rows
    from tftui.engine import events as ev
    from tftui.tui.widgets.dag_tree import DagTree

    usage = {"input": tokens - tokens // 3, "output": tokens // 3, "cost": cost}
    stream = _Stream("utf-8")
    progress = Progress(stream=stream, phase_types={"a": "agent"})
    for event in (
        ev.RunStarted(run_id="r", flow_name="f", phase_ids=["a"], phase_types={"a": "agent"}),
        ev.PhaseStarted(phase_id="a", phase_type="agent"),
        ev.AttemptStarted(phase_id="a", node_path="a", attempt=0),
        ev.AgentReturned(phase_id="a", node_path="a", attempt=0, output="x", usage=usage),
        ev.PhaseFinished(phase_id="a", status="done", output="x", attempts=1, duration_ms=ms, usage=usage),
        ev.RunFinished(status="completed"),
    ):
        progress.on_event(event)
    line = stream.getvalue().splitlines()[0]
    assert f"  {present.elapsed_text(ms)}  " in line and line.endswith(present.tokens_text(tokens))
    summary = summary_line(progress.state, status="completed", run_dir=None, duration_ms=ms).split(" · ")
    assert summary[-3:] == [present.tokens_text(tokens), present.format_cost(cost), present.elapsed_text(ms)]
    entry = {"run_id": "r", "flow": "f", "started": None, "status": "completed", "phases_done": 1,
             "phases_total": 1, "phase_statuses": {"done": 1}, "attempts": 1, "tokens": tokens, "cost_usd": cost}
    _header, row = table_rows([entry], present.UNICODE)
    assert row[5:] == ("1", present.format_tokens(tokens), present.format_cost(cost))
    tree = DagTree(glyphs=present.UNICODE, show_times=True)
    tree.state = progress.state
    label = tree.label_for("a").plain
    shown_cost = f" {present.format_cost(cost)}" if cost else ""
    duration = present.format_duration(ms)
    assert label.endswith(f"{' ' + duration if duration else ''} {present.format_tokens(tokens)}t{shown_cost}")


@pytest.mark.parametrize("ascii_flag", [False, True], ids=["unicode", "ascii"])
def test_replay_print_reads_from_the_table(tftui, recorded, ascii_flag: bool) -> None:
    from tftui.present.events import describe

    for run_dir, _stderr, state, events in recorded.values():
        done = tftui("replay", str(run_dir), "--print", *(["--ascii"] if ascii_flag else []))
        assert done.code == 0, done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == len(events)
        last: dict[str, str] = {}
        for event, line in zip(events, lines, strict=True):
            head, _sep, summary = line.partition("  | ")
            text = describe(event).text
            assert head.endswith(present.ASCII.fold(text) if ascii_flag else text), line
            if event.kind in ("phase_finished", "phase_skipped"):
                last[event.phase_id] = head
        if ascii_flag:
            done.stdout.encode("ascii")
        for pid, status in _displays(state).items():
            words = last[pid].split()
            assert words[2] == present.glyph(status, ascii=ascii_flag), last[pid]
            assert present.status_word(status) in words[4].lower(), last[pid]  # `publish: skipped —`, `review: BLOCKED`
        # the summary after the last event counts each status with the table's word
        counts = {s: list(_displays(state).values()).count(s) for s in present.DISPLAY_STATUSES}
        sep = (present.ASCII if ascii_flag else present.UNICODE).sep
        for status, n in counts.items():
            assert (f" {sep} {present.status_word(status)} {n}" in summary) == bool(n), summary
        assert present.tokens_text(present.usage_tokens(state.usage)) in summary
