"""`benchmarks/*.py --help` says what the script measures and prints, and measures nothing
(issue 18's Build list: median and max of 5 runs, peak RSS, fsyncs, the ratio to taskflow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _help(name: str) -> str:
    done = subprocess.run([sys.executable, str(BENCHMARKS / name), "--help"], capture_output=True, text=True,
                          timeout=120)  # a safety net against a hung benchmark, not a timing assertion
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_engine_benchmark_help_names_every_column_it_prints() -> None:
    text = _help("engine.py")
    for words in ("median and max", "peak RSS", "fsyncs", "ratio of taskflow", "100k items", "--sizes"):
        assert words in text, words


@pytest.mark.parametrize("name", ["scoring.py", "lang.py"])
def test_a_benchmark_without_options_prints_its_help_instead_of_running(name: str) -> None:
    text = _help(name)
    assert text.startswith("usage:") and "/s" not in text.split("\n\n", 1)[0]
    assert "best" not in text.splitlines()[-1]  # no figure line: nothing ran
