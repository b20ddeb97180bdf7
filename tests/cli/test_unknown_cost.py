"""Issue 15 item 16: an unknown cost or usage reads "unknown"/`?` in every headless front end,
never `$0.00` / `0 tok`; JSON gives null; a partly priced total says so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tftui import present

FLOW = {"name": "spend", "phases": [{"id": "a", "agent": "x", "task": "hello"},
                                    {"id": "b", "agent": "x", "task": "more {steps.a.output}", "dependsOn": ["a"]}]}


def write_flow(tmp_path: Path, replies: dict | None = None) -> Path:
    flow = tmp_path / "spend.json"
    flow.write_text(json.dumps(FLOW))
    if replies is not None:
        (tmp_path / "spend.replies.json").write_text(json.dumps(replies))
    return flow


def test_cli_agent_without_usage_reads_unknown(tmp_path: Path, tftui) -> None:
    flow = write_flow(tmp_path)
    cat = f"{sys.executable} -c \"import sys; print(sys.stdin.read()[:5])\""
    done = tftui("run", str(flow), "--agent-cmd", cat, "--json")
    assert done.code == 0, done.stderr
    out = done.json()
    assert out["totals"]["costUSD"] is None  # null, never 0.0
    assert out["totals"]["untrackedCalls"] == 2
    assert out["totals"]["tokens"] is None and out["totals"]["inputTokens"] is None  # unknown, not 0
    assert out["phases"]["a"]["usage"] == {"input": None, "output": None, "costUSD": None}
    summary = tftui("run", str(flow), "--agent-cmd", cat).stderr.strip().splitlines()[-1]
    assert "? tok" in summary and "cost unknown" in summary
    assert "$0.00" not in summary and " 0 tok" not in summary
    listing = tftui("runs", str(flow))
    row = next(line for line in listing.stdout.splitlines() if "spend" in line)
    assert "$0.00" not in row and row.split()[-2:] == ["?", "$?"]
    (listed,) = tftui("runs", str(flow), "--json").json()[-1:]
    assert listed["tokens"] is None and listed["cost_usd"] is None
    assert listed["untracked_calls"] == 2 and listed["unpriced_calls"] == 2 and listed["cost_usd_at_least"] == 0


def test_runs_json_holds_data_with_the_documented_keys(tmp_path: Path, tftui) -> None:
    """`tftui runs --json` (docs/inputs.md §6): numbers or null, no display text, the keys the doc lists."""
    import re

    replies = {"a": [{"output": "A", "usage": {"input": 10, "output": 5, "costUSD": 0.25}}],
               "b": [{"output": "B", "usage": {"input": 3, "output": 4}}]}  # tokens, no price
    flow = write_flow(tmp_path, replies)
    assert tftui("run", str(flow)).code == 0
    (listed,) = tftui("runs", str(flow), "--json").json()
    assert listed["tokens"] == 22 and listed["cost_usd"] is None
    assert listed["cost_usd_at_least"] == 0.25 and listed["unpriced_calls"] == 1 and listed["untracked_calls"] == 0
    doc = (Path(__file__).resolve().parents[2] / "docs" / "inputs.md").read_text(encoding="utf-8")
    section = doc.split("## 6. `tftui runs --json`", 1)[1].split("\n## ", 1)[0]
    assert set(listed) == set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M))
    row = next(line for line in tftui("runs", str(flow)).stdout.splitlines() if "spend" in line)
    assert row.split()[-3:] == ["22", "≥", present.format_cost(0.25)]  # the table words the same data


def test_some_calls_unpriced_total_is_a_lower_bound(tmp_path: Path, tftui) -> None:
    replies = {"a": [{"output": "A", "usage": {"input": 10, "output": 5, "costUSD": 0.25}}],
               "b": [{"output": "B", "usage": {"input": 3, "output": 4}}]}  # tokens, no price
    flow = write_flow(tmp_path, replies)
    done = tftui("run", str(flow), "--json")
    assert done.code == 0, done.stderr
    totals = done.json()["totals"]
    assert totals["costUSD"] is None and totals["costUSDAtLeast"] == 0.25 and totals["unpricedCalls"] == 1
    assert totals["tokens"] == 22  # every call reported its tokens
    summary = tftui("run", str(flow)).stderr.strip().splitlines()[-1]
    # what the user reads: the known part of the cost as a lower bound, and why (a UTF-8 stream)
    assert f" · 22 tok · ≥ {present.format_cost(0.25)} (some calls unpriced) · " in summary, summary


def test_priced_and_free_calls_keep_their_known_cost(tmp_path: Path, tftui) -> None:
    replies = {"a": [{"output": "A", "usage": {"input": 10, "output": 5, "costUSD": 0.25}}], "b": ["B"]}
    flow = write_flow(tmp_path, replies)
    done = tftui("run", str(flow), "--json")
    totals = done.json()["totals"]
    assert totals["costUSD"] == 0.25 and "unpricedCalls" not in totals
    assert present.format_cost(0.25) in tftui("run", str(flow)).stderr.strip().splitlines()[-1]


def test_formatters_never_print_zero_for_unknown() -> None:
    unknown = {"input": 0, "output": 0, "cost": 0.0, "unpriced": 2, "untracked": 2}
    partial = {"input": 40, "output": 2, "cost": 0.5, "unpriced": 1, "untracked": 0}
    known = {"input": 40, "output": 2, "cost": 0.5, "unpriced": 0, "untracked": 0}
    assert present.spend_tokens_text(unknown) == "? tok"
    assert present.spend_cost_text(unknown) == "cost unknown"
    assert present.usage_text(unknown) == "?t"
    assert present.cost_json(unknown) is None
    assert present.spend_cost_text(partial).endswith("(some calls unpriced)")
    assert present.spend_cost_text(partial).startswith("≥ ")
    assert present.cost_json(partial) is None
    assert present.usage_text(partial) == f"{present.format_tokens(42)}t ≥{present.format_cost(0.5)}"
    assert present.cost_json(known) == 0.5
    assert present.spend_cost_text(known) == present.format_cost(0.5)


def test_cassette_with_a_cli_agent_for_the_new_calls_reads_unknown(tmp_path: Path, tftui) -> None:
    """`--from` replays the recorded calls; the calls whose prompt changed go to the CLI agent,
    whose usage is unknown: the run must not count them as a known 0 tok / $0.00."""
    flow = write_flow(tmp_path, {"a": ["A"], "b": ["B"]})
    first = tftui("run", str(flow), "--json")
    assert first.code == 0, first.stderr
    recorded = Path(first.json()["run_dir"])
    changed = dict(FLOW, phases=[FLOW["phases"][0], dict(FLOW["phases"][1], task="changed {steps.a.output}")])
    flow.write_text(json.dumps(changed))
    cat = f"{sys.executable} -c \"import sys; print(sys.stdin.read()[:5])\""
    done = tftui("run", str(flow), "--from", str(recorded), "--agent-cmd", cat, "--json")
    assert done.code == 0, done.stderr
    out = done.json()
    assert out["phases"]["b"]["usage"] == {"input": None, "output": None, "costUSD": None}
    assert out["totals"]["costUSD"] is None


def test_replaying_calls_that_recorded_no_usage_does_not_claim_0_tokens_saved(tmp_path: Path, tftui) -> None:
    """`--from` a CLI agent's run (no usage recorded): the cassette line said '0 recorded tokens
    not spent again', a known zero; it says how many calls recorded none."""
    flow = write_flow(tmp_path)
    cat = f"{sys.executable} -c \"import sys; print(sys.stdin.read()[:5])\""
    first = tftui("run", str(flow), "--agent-cmd", cat, "--json")
    assert first.code == 0, first.stderr
    done = tftui("run", str(flow), "--from", first.json()["run_dir"])
    assert done.code == 0, done.stderr
    line = next(row for row in done.stderr.splitlines() if row.startswith("cassette:"))
    assert "0 recorded tokens" not in line, line
    assert line == "cassette: 2 replayed, 0 live (? recorded tokens not spent again: 2 calls recorded none)", line
