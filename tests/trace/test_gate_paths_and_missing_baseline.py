"""`tftui gate` prints trace paths as the user gave them (never a `../..` walk out of cwd), and
says when the baseline has no entry for a trace's fixture instead of a silent "0 regressions"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tftui.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
RULES = str(FIXTURES / "rules.toml")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Traces under tmp_path/qa-runs, cwd in an unrelated tmp_path/work/deep directory."""
    runs = tmp_path / "qa-runs"
    shutil.copytree(FIXTURES / "run_dir", runs / "run1")
    shutil.copy(FIXTURES / "ok.json", runs / "ok.json")
    cwd = tmp_path / "work" / "deep"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    return runs


def summary_line(capsys) -> str:  # noqa: ANN001
    return capsys.readouterr().out.splitlines()[0]


def test_absolute_trace_path_is_printed_absolute(elsewhere: Path, capsys) -> None:  # noqa: ANN001
    assert main(["gate", str(elsewhere / "ok.json"), "--rules", RULES]) == 0
    line = summary_line(capsys)
    assert line.endswith(f"({elsewhere / 'ok.json'})") and ".." not in line


def test_absolute_run_directory_names_its_trace_file(elsewhere: Path, capsys) -> None:  # noqa: ANN001
    assert main(["gate", str(elsewhere / "run1"), "--rules", RULES]) == 0
    assert summary_line(capsys).endswith(f"({elsewhere / 'run1' / 'trace.json'})")


def test_relative_path_is_printed_as_given(elsewhere: Path, capsys) -> None:  # noqa: ANN001
    assert main(["gate", "../../qa-runs/run1/", "--rules", RULES]) == 0
    assert summary_line(capsys).endswith("(../../qa-runs/run1/trace.json)")
    assert main(["gate", "../../qa-runs/ok.json", "--rules", RULES]) == 0
    assert summary_line(capsys).endswith("(../../qa-runs/ok.json)")


def test_fixture_missing_from_the_baseline_is_a_warning(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    base = tmp_path / "baseline.toml"
    ok, other = str(FIXTURES / "ok.json"), str(FIXTURES / "warn_loop.json")
    assert main(["gate", ok, "--rules", RULES, "--baseline", str(base), "--update-baseline"]) == 0
    capsys.readouterr()

    assert main(["gate", ok, "--rules", RULES, "--baseline", str(base)]) == 0  # has an entry: no warning
    assert "no entry for fixture" not in capsys.readouterr().out

    assert main(["gate", other, "--rules", RULES, "--baseline", str(base)]) == 0  # exit code unchanged
    lines = capsys.readouterr().out.splitlines()
    fixture = lines[0].split()[1].rstrip(":")
    assert lines[0].startswith(f"PASS {fixture}: ") and "0 baseline regressions" in lines[0]
    assert (f"  warning baseline: no entry for fixture '{fixture}' in {base} — nothing compared "
            "(record one with --update-baseline)") in lines


def test_update_baseline_records_the_missing_fixture_without_warning(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    base = tmp_path / "baseline.toml"
    assert main(["gate", str(FIXTURES / "ok.json"), "--rules", RULES, "--baseline", str(base),
                 "--update-baseline"]) == 0
    assert "no entry for fixture" not in capsys.readouterr().out
