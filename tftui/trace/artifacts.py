"""CI artifacts for failed fixtures (`tftui gate --artifacts DIR --keep-days N`).

For each fixture that did not pass, DIR/<fixture>/ holds a reduced trace (the failing rules'
evidence steps, their ancestors and the run root, from the normalized trace, so payloads are
already gone), its report.json and report.md. DIR/manifest.json lists every entry with the
day it was written and the day it expires; entries whose expiry day has come are removed (with
their folder) on the next run. Passing fixtures write nothing. A failure of the same fixture
replaces its earlier entry.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, cast

from tftui.trace.dates import parse_date
from tftui.trace.facts import Facts
from tftui.trace.model import TraceColumns, dump_columns
from tftui.trace.report import GateReport, report_markdown
from tftui.trace.rules import Rule

MANIFEST = "manifest.json"
MANIFEST_SCHEMA_VERSION = 1


class ManifestEntry(TypedDict):
    fixture: str
    path: str  # the entry's folder, relative to DIR
    created: str  # YYYY-MM-DD
    expires: str  # YYYY-MM-DD: removed by the first run on or after this day
    status: str  # FAIL | ERROR
    failedRules: list[str]
    steps: int  # steps in the reduced trace (0: no trace, an instrumentation error)
    originalSteps: int


class Manifest(TypedDict):
    schemaVersion: int
    keepDays: int
    entries: list[ManifestEntry]


@dataclass
class ArtifactsResult:
    written: list[str]  # fixtures written this run
    removed: list[str]  # expired fixtures removed
    error: str | None = None


def reduce_trace(cols: TraceColumns, rules: list[Rule], failed_ids: set[str]) -> TraceColumns:
    """The failing rules' evidence steps, every ancestor of them and the root, in sequence order."""
    facts = Facts(cols)
    keep: set[int] = set()
    for rule in rules:
        if rule.rule_id in failed_ids:
            try:
                keep.update(rule.evidence_steps(facts))
            except Exception:  # noqa: BLE001 - a rule bug must not lose the artifact: keep the root only
                pass
    index = {step_id: i for i, step_id in enumerate(cols.ids)}
    for i in list(keep):
        parent = cols.parent_ids[i]
        while parent is not None and (j := index.get(parent)) is not None and j not in keep:
            keep.add(j)
            parent = cols.parent_ids[j]
    keep.update(i for i, p in enumerate(cols.parent_ids) if p is None)
    order = sorted(keep)
    return TraceColumns(
        cols.fixture, cols.status,
        [cols.ids[i] for i in order], [cols.parent_ids[i] for i in order], [cols.sequences[i] for i in order],
        [cols.names[i] for i in order], [cols.kinds[i] for i in order], [cols.statuses[i] for i in order],
        [cols.attempts[i] for i in order], [cols.input_tokens[i] for i in order],
        [cols.output_tokens[i] for i in order], [cols.durations[i] for i in order],
        [cols.metadata[i] for i in order],
    )


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".") or "trace"


def _load_manifest(path: Path) -> list[ManifestEntry]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    # entries are only read for fixture, path and expires (checked here and where they are used)
    return [cast(ManifestEntry, e) for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)
            and isinstance(e.get("fixture"), str)]


def _remove(root: Path, entry: ManifestEntry) -> None:
    target = (root / entry["path"]).resolve()
    if target.parent == root.resolve() and target.is_dir():  # never outside DIR, whatever the manifest says
        shutil.rmtree(target, ignore_errors=True)


def write_artifacts(directory: str | Path, reports: list[GateReport], rules: list[Rule], *, keep_days: int,
                    today: dt.date) -> ArtifactsResult:
    """Write the failed fixtures' artifacts and prune expired ones. Never raises (OSError → error)."""
    root = Path(directory)
    try:
        root.mkdir(parents=True, exist_ok=True)
        manifest_path = root / MANIFEST
        entries = _load_manifest(manifest_path)
        removed: list[str] = []
        kept: list[ManifestEntry] = []
        for entry in entries:
            expires = parse_date(entry.get("expires"))
            if expires is None or expires <= today:
                _remove(root, entry)
                removed.append(entry["fixture"])
            else:
                kept.append(entry)
        written: list[str] = []
        used = {e["path"] for e in kept}
        for report in reports:
            if report.gate_passed:
                continue
            folder = _safe(report.fixture or "trace")
            for entry in [e for e in kept if e["fixture"] == report.fixture]:
                kept.remove(entry)  # this run's failure replaces the earlier one
                used.discard(entry["path"])
                if entry["path"] != folder:
                    _remove(root, entry)
            stem, n = folder, 2
            while folder in used:
                folder, n = f"{stem}-{n}", n + 1
            used.add(folder)
            target = root / folder
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            failed = [r.rule_id for r in report.failures]
            steps = 0
            original = 0
            shown = report.trace_path
            if report.normalized is not None:
                reduced = reduce_trace(report.normalized, rules, set(failed))
                steps, original = len(reduced), len(report.normalized)
                (target / "trace.json").write_text(dump_columns(reduced), encoding="utf-8", errors="backslashreplace")
                report.trace_path = str(target / "trace.json")
            (target / "report.json").write_text(
                json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8", errors="backslashreplace")
            (target / "report.md").write_text(report_markdown(report), encoding="utf-8", errors="backslashreplace")
            report.trace_path = shown
            kept.append({
                "fixture": report.fixture,
                "path": folder,
                "created": today.isoformat(),
                "expires": (today + dt.timedelta(days=keep_days)).isoformat(),
                "status": "ERROR" if report.error is not None else "FAIL",
                "failedRules": failed + [f"baseline:{e['metric']}" for e in report.regressions],
                "steps": steps,
                "originalSteps": original,
            })
            written.append(report.fixture)
        manifest: Manifest = {"schemaVersion": MANIFEST_SCHEMA_VERSION, "keepDays": keep_days, "entries": kept}
        manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        return ArtifactsResult([], [], f"cannot write artifacts in {directory}: {exc.strerror or exc}")
    return ArtifactsResult(written, removed)
