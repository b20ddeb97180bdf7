"""Warning ages: the baseline records when a rule's warning first fired; reports show the age and flag stale ones."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tftui.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
RULES = str(FIXTURES / "rules.toml")
WARN = str(FIXTURES / "warn_loop.json")  # passes, with a loop_signature warning


def gate(tmp: Path, day: str, monkeypatch: pytest.MonkeyPatch, *extra: str) -> dict:
    monkeypatch.setenv("TFTUI_TODAY", day)
    out = tmp / f"report-{day}.json"
    code = main(["gate", WARN, "--rules", RULES, "--baseline", str(tmp / "baseline.toml"),
                 "--json", str(out), "--md", str(tmp / f"report-{day}.md"), *extra])
    assert code == 0  # warnings never fail, stale or not
    return json.loads(out.read_text())


def test_age_advances_across_runs_and_turns_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    first = gate(tmp_path, "2026-03-01", monkeypatch, "--update-baseline")
    assert first["warningAges"] == [{"ruleId": "loop_signature@1", "firstSeen": "2026-03-01", "ageDays": 0,
                                     "stale": False, "recorded": True}]
    baseline = tomllib.loads((tmp_path / "baseline.toml").read_text())
    fixture = first["fixture"]
    assert str(baseline["warningsSince"][fixture]["loop_signature@1"]) == "2026-03-01"

    later = gate(tmp_path, "2026-03-13", monkeypatch)
    assert later["warningAges"][0]["ageDays"] == 12 and not later["warningAges"][0]["stale"]
    md = (tmp_path / "report-2026-03-13.md").read_text()
    assert "firing for 12 days (since 2026-03-01)" in md
    assert "firing for 12 days" in capsys.readouterr().out

    # updating the baseline keeps the first day of a warning that still fires
    gate(tmp_path, "2026-04-05", monkeypatch, "--update-baseline")
    stale = gate(tmp_path, "2026-04-05", monkeypatch)
    assert stale["warningAges"][0]["ageDays"] == 35 and stale["warningAges"][0]["stale"]  # default: 30 days
    assert "STALE" in (tmp_path / "report-2026-04-05.md").read_text()


def test_stale_after_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate(tmp_path, "2026-03-01", monkeypatch, "--update-baseline")
    path = tmp_path / "baseline.toml"
    path.write_text("staleAfterDays = 3\n" + path.read_text())  # a top-level key: before the tables
    assert not gate(tmp_path, "2026-03-04", monkeypatch)["warningAges"][0]["stale"]
    assert gate(tmp_path, "2026-03-05", monkeypatch)["warningAges"][0]["stale"]
    gate(tmp_path, "2026-03-05", monkeypatch, "--update-baseline")
    assert "staleAfterDays = 3" in path.read_text()  # the setting survives a rewrite


def test_a_warning_that_stops_firing_is_forgotten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate(tmp_path, "2026-03-01", monkeypatch, "--update-baseline")
    monkeypatch.setenv("TFTUI_TODAY", "2026-03-02")
    assert main(["gate", str(FIXTURES / "ok.json"), "--rules", RULES, "--baseline", str(tmp_path / "baseline.toml"),
                 "--update-baseline"]) == 0
    ok_fixture = json.loads((FIXTURES / "ok.json").read_text())["fixture"]
    data = tomllib.loads((tmp_path / "baseline.toml").read_text())
    assert ok_fixture not in data.get("warningsSince", {})
    warn_fixture = json.loads(Path(WARN).read_text())["fixture"]
    if warn_fixture != ok_fixture:
        assert warn_fixture in data["warningsSince"]  # another fixture's record is left alone


def test_unrecorded_warning_is_new_today(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "baseline.toml").write_text("")
    ages = gate(tmp_path, "2026-03-01", monkeypatch)["warningAges"]
    assert ages[0]["ageDays"] == 0 and ages[0]["recorded"] is False


def test_bad_date_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFTUI_TODAY", "March 1st")
    assert main(["gate", WARN, "--rules", RULES]) == 2
