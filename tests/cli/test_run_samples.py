"""Every sample flow runs headless (`tftui run`) to its documented status and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"

SAMPLE_NAMES = [
    "transient_retry",
    "side_effect",
    "explicit_retry",
    "gate_block",
    "map_reduce",
    "loop_reflexion",
    "tournament",
]


def prompts(out: dict, node_path: str) -> list[str]:
    """The prompts sent to `node_path`, in order, from the run's journal."""
    lines = (Path(out["run_dir"]) / "events.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    return [r["prompt"] for r in rows if r["kind"] == "attempt_started" and r["node_path"] == node_path]


def backoffs(out: dict, node_path: str) -> list[int]:
    lines = (Path(out["run_dir"]) / "events.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    return [r["delay_ms"] for r in rows if r["kind"] == "backoff_started" and r["node_path"] == node_path]


def run_sample(tftui, name: str):
    done = tftui("run", str(SAMPLES / f"{name}.json"), "--json", "--no-wait")
    assert done.stdout, done.stderr
    return done, done.json()


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_flow_has_replies_and_a_description(name: str) -> None:
    flow = json.loads((SAMPLES / f"{name}.json").read_text())
    assert len(flow.get("description", "")) > 80  # says what it demonstrates
    assert (SAMPLES / f"{name}.replies.json").is_file()


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_flow_passes_check(tftui, name: str) -> None:
    done = tftui("check", str(SAMPLES / f"{name}.json"))
    assert done.code == 0, done.stdout + done.stderr


def test_transient_retry(tftui) -> None:
    done, out = run_sample(tftui, "transient_retry")
    assert (done.code, out["status"]) == (0, "completed")
    fetch = out["phases"]["fetch"]
    assert fetch["status"] == "done" and fetch["attempts"] == 3
    assert fetch["usage"]["input"] == 80  # usage of the failed 429 attempt is counted too
    # ... and its tokens came without a cost: fetch's and the run's cost are lower bounds
    assert fetch["usage"]["costUSD"] is None
    assert out["totals"]["costUSD"] is None and out["totals"]["costUSDAtLeast"] == 0.0009
    assert out["totals"]["unpricedCalls"] == 1
    assert out["phases"]["summarize"]["status"] == "done"
    assert out["totals"]["attempts"] == 4
    assert backoffs(out, "fetch") == [2000, 4000]  # transient defaults (skipped by --no-wait)


def test_side_effect_is_not_auto_retried(tftui) -> None:
    done, out = run_sample(tftui, "side_effect")
    assert (done.code, out["status"]) == (1, "failed")
    deploy = out["phases"]["deploy"]
    assert deploy["status"] == "failed" and deploy["attempts"] == 1
    assert "503" in deploy["error"]
    assert deploy.get("sideEffect") is True
    assert backoffs(out, "deploy") == []
    assert out["phases"]["announce"]["status"] == "skipped"
    assert out["phases"]["announce"]["error"] == "Upstream dependency not satisfied"
    assert out["phases"]["build"]["status"] == "done"


def test_explicit_retry(tftui) -> None:
    done, out = run_sample(tftui, "explicit_retry")
    assert (done.code, out["status"]) == (0, "completed")
    extract = out["phases"]["extract"]
    assert extract["status"] == "done" and extract["attempts"] == 3
    assert extract["json"] == {"total": 1250, "currency": "EUR"}
    assert backoffs(out, "extract") == [20, 40]
    assert out["final_output"] == "The invoice total is 1250 EUR."


def test_gate_block_cascades_skips(tftui) -> None:
    done, out = run_sample(tftui, "gate_block")
    assert (done.code, out["status"]) == (1, "blocked")
    phases = out["phases"]
    assert phases["review"]["status"] == "done" and phases["review"]["display"] == "blocked"
    assert phases["review"]["gate"]["verdict"] == "block"
    assert phases["changelog"]["status"] == "done"  # same layer as the gate: finishes normally
    for pid in ("publish", "tweet"):  # dependent and independent alike
        assert phases[pid]["status"] == "skipped"
        assert phases[pid]["error"] == "Gate blocked: the '10x faster' claim has no source"
    assert out["final_output"].startswith("Gate blocked the workflow.\nReason: the '10x faster' claim")


def test_map_reduce(tftui) -> None:
    done, out = run_sample(tftui, "map_reduce")
    assert (done.code, out["status"]) == (0, "completed")
    mapped = out["phases"]["review-each"]["output"]
    assert mapped.count("### [") == 3 and "### [3/3] reviewer" in mapped
    assert out["phases"]["merge"]["status"] == "done"
    assert out["totals"]["attempts"] == 5  # list + 3 items + merge
    assert prompts(out, "review-each#item-1") == [
        "Review the changes in module journal (180 changed lines). Answer in one sentence."
    ]


def test_loop_reflexion(tftui) -> None:
    done, out = run_sample(tftui, "loop_reflexion")
    assert (done.code, out["status"]) == (0, "completed")
    loop = out["phases"]["headline"]
    assert loop["status"] == "done"
    assert loop["loop"]["iterations"] == 3 and loop["loop"]["stop"] == "until"
    assert loop["json"]["approved"] is True
    sent = prompts(out, "headline")
    assert len(sent) == 3
    assert "## Reflexion: iteration 1 (prior)" in sent[1]
    assert "- Outcome: FAILED — output contract violated" in sent[1]
    assert "- Outcome: succeeded, but the stop condition was not met" in sent[2]


def test_tournament(tftui) -> None:
    done, out = run_sample(tftui, "tournament")
    assert (done.code, out["status"]) == (0, "completed")
    tagline = out["phases"]["tagline"]
    assert tagline["tournament"]["winner"] == 3
    assert tagline["output"] == "Step through your agent flows."
    assert out["final_output"] == "Meet tftui — step through your agent flows."
    (judge,) = prompts(out, "tagline#judge")
    assert "### Variant 2 (failed — ineligible)" in judge


def test_samples_run_without_flags(tftui, runs_dir: Path) -> None:
    """`tftui run sample_flows/NAME.json` finds its replies; text mode prints output + summary."""
    done = tftui(
        "run", str(SAMPLES / "map_reduce.json"), "--no-wait", subprocess=True
    )  # the real entry point
    assert done.code == 0, done.stderr
    assert done.stdout.strip().startswith("Weekly report:")
    # a UTF-8 stream: Unicode glyphs (the summary's `·` below says the same)
    assert "✓ review-each" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("completed · 3 done, 0 failed, 0 skipped · 5 calls")
    (run_dir,) = runs_dir.iterdir()  # TFTUI_RUNS_DIR, shown relative to the working directory
    assert last.endswith(f" · run runs/{run_dir.name}"), last


def test_run_and_runs_never_import_textual(tmp_path: Path) -> None:
    """The headless path starts fast: `tftui run` / `tftui runs` must not pull in the TUI."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tftui.cli import main\n"
        f"rc = main(['run', {str(SAMPLES / 'gate_block.json')!r}, '--quiet'])\n"
        "main(['runs'])\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "assert not bad, bad\n"
        "sys.exit(rc)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFTUI_")}
    env.update(TFTUI_RUNS_DIR=str(tmp_path / "runs"), XDG_CONFIG_HOME=str(tmp_path), HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, (
        proc.stderr
    )  # gate_block ends blocked; an import failure would be a traceback
    assert "Traceback" not in proc.stderr
