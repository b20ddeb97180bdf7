"""One count of a run's model calls (issue 13): after `tftui run --resume`, `tftui run` (text and
--json), `tftui runs` (table and --json), `tftui replay --print` and `present.run_calls` of the
journal all give the number of calls the two processes actually sent to the runner
(docs/inputs.md §3): a call a resume answers from the journal is counted once, as the
interrupted process made it.

The interruption is a journal cut after the k-th call started (what a kill -9 at that point
leaves: tests/cli/test_resume_kill.py kills real processes); the calls the resume sends are
counted at the runner itself.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tftui import present
from tftui.agents.scripted import ScriptedRunner
from tftui.engine.journal import load_events
from tftui.engine.state import fold

FLOW = {
    "name": "count-calls",
    "concurrency": 1,
    "phases": [
        {"id": "list", "agent": "planner", "task": "List four modules as a JSON array.", "output": "json"},
        {"id": "each", "type": "map", "agent": "reviewer", "dependsOn": ["list"], "over": "{steps.list.output}",
         "as": "module", "task": "Review module {module}.", "retry": {"max": 2, "backoffMs": 10}},
        {"id": "merge", "type": "reduce", "agent": "writer", "from": ["each"], "task": "Merge:\n{previous.output}",
         "final": True},
    ],
}
USAGE = {"input": 20, "output": 7}
REPLIES = {
    "list": {"output": '["m0", "m1", "m2", "m3"]', "usage": {"input": 10, "output": 5}},
    "each#item-0": {"output": "review of m0", "usage": USAGE},
    # a failure and its retry: both are replayed on resume, neither is sent again
    "each#item-1": [{"error": "503 service unavailable", "exitCode": 1}, {"output": "review of m1", "usage": USAGE}],
    "each#item-2": {"output": "review of m2", "usage": USAGE},
    "each#item-3": {"output": "review of m3", "usage": USAGE},
    "merge": {"output": "merged report", "usage": {"input": 30, "output": 9}},
}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The node path of every call that reaches the replies runner (in this process)."""
    calls: list[str] = []
    original = ScriptedRunner.run

    async def counting(self: ScriptedRunner, request):  # type: ignore[no-untyped-def]
        calls.append(request.node_path)
        return await original(self, request)

    monkeypatch.setattr(ScriptedRunner, "run", counting)
    return calls


def _flow(tmp_path: Path) -> Path:
    flow = tmp_path / "count.json"
    flow.write_text(json.dumps(FLOW, indent=2))
    (tmp_path / "count.replies.json").write_text(json.dumps(REPLIES, indent=2))
    return flow


def _interrupted(tmp_path: Path, tftui, sent: list[str], *, old_format: bool = False) -> tuple[Path, int]:
    """A run cut right after the start of `each#item-3`'s call (items 0-2 answered, item 1 after
    a retry, item 3 sent but not answered): its run directory and the calls it had sent."""
    done = tftui("run", str(_flow(tmp_path)), "--json", "--no-wait")
    assert done.code == 0, done.stderr
    run_dir = Path(done.json()["run_dir"])
    lines = (run_dir / "events.jsonl").read_text().splitlines(keepends=True)
    rows = [json.loads(line) for line in lines]
    cut = next(i for i, r in enumerate(rows) if r["kind"] == "attempt_started" and r["node_path"] == "each#item-3")
    kept = lines[: cut + 1]
    if old_format:  # as tftui wrote journals before AgentReturned.resumed
        kept = [json.dumps({k: v for k, v in json.loads(line).items() if k != "resumed"}) + "\n" for line in kept]
        assert all('"resumed"' not in line for line in kept)
    (run_dir / "events.jsonl").write_text("".join(kept))
    meta = json.loads((run_dir / "meta.json").read_text())
    meta.pop("pid", None)  # the cut run's process is gone (a listing says "interrupted", not "running")
    meta.pop("status", None)
    (run_dir / "meta.json").write_text(json.dumps(meta))
    made = sent.index("each#item-3") + 1  # calls the interrupted process had sent at the cut
    assert made == sum(1 for r in rows[: cut + 1] if r["kind"] == "attempt_started") == 6
    sent.clear()
    return run_dir, made


def _copy(run_dir: Path, root: Path) -> Path:
    copy = root / run_dir.name
    shutil.copytree(run_dir, copy)
    return copy


def _summary_count(stderr: str) -> int:
    last = stderr.strip().splitlines()[-1]
    found = re.search(r" (\d+) calls? ", last)
    assert found, last
    return int(found.group(1))


@pytest.mark.parametrize("old_format", [False, True], ids=["journal", "journal-without-resumed-field"])
def test_every_front_end_counts_the_calls_sent_across_both_processes(
    tmp_path: Path, tftui, sent: list[str], old_format: bool
) -> None:
    reference = tftui("run", str(_flow(tmp_path)), "--json", "--no-wait", "--no-journal").json()
    sent.clear()
    run_dir, before = _interrupted(tmp_path, tftui, sent, old_format=old_format)
    flow = tmp_path / "count.json"
    json_dir, text_dir = _copy(run_dir, tmp_path / "runs-json"), _copy(run_dir, tmp_path / "runs-text")

    resumed = tftui("run", str(flow), "--resume", run_dir.name, "--runs-dir", str(json_dir.parent), "--json",
                    "--no-wait")
    assert resumed.code == 0, resumed.stderr
    # only what had no answer went to the runner again: item 3 (cut mid-call) and merge
    assert sorted(sent) == ["each#item-3", "merge"], sent
    expected = before + len(sent)  # 6 + 2; an uninterrupted run sends 7
    out = resumed.json()
    assert out["final_output"] == reference["final_output"] == "merged report"
    assert out["phases"]["each"]["attempts"] == reference["phases"]["each"]["attempts"]
    assert out["totals"]["attempts"] == expected

    sent.clear()
    text = tftui("run", str(flow), "--resume", run_dir.name, "--runs-dir", str(text_dir.parent), "--no-wait")
    assert text.code == 0, text.stderr
    assert before + len(sent) == expected
    assert _summary_count(text.stderr) == expected

    for root, run in ((json_dir.parent, json_dir), (text_dir.parent, text_dir)):
        assert present.run_calls(fold(load_events(run)[0])) == expected
        listed = tftui("runs", "--runs-dir", str(root), "--json")
        assert listed.code == 0, listed.stderr
        (entry,) = listed.json()
        assert entry["status"] == "completed" and entry["attempts"] == expected
        table = tftui("runs", "--runs-dir", str(root)).stdout.splitlines()
        header = table[0].split()
        column = header.index("ATTEMPTS") + 1  # "STARTED (UTC)" is two words, a start time two too
        assert table[1].split()[column] == str(expected), table
        printed = tftui("replay", str(run), "--print")
        assert printed.code == 0, printed.stderr
        assert f"· {present.calls_text(expected)} ·" in printed.stdout.splitlines()[-1]


def test_a_resumed_run_already_finished_reports_the_same_count(tmp_path: Path, tftui, sent: list[str]) -> None:
    run_dir, before = _interrupted(tmp_path, tftui, sent)
    flow = tmp_path / "count.json"
    first = tftui("run", str(flow), "--resume", run_dir.name, "--json", "--no-wait")
    assert first.code == 0, first.stderr
    expected = before + len(sent)
    again = tftui("run", str(flow), "--resume", run_dir.name, "--json")
    assert "already finished" in again.stderr
    assert again.json()["totals"]["attempts"] == first.json()["totals"]["attempts"] == expected
