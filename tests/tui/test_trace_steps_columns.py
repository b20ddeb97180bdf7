"""The Trace tab's steps table: the header stands over its values (QA: at 80 columns the
header read `seq   kind     name  attempt tokens` over rows `  1 ✓ model      draft  a1 30+20`),
in the narrow layout (the detail panel at 80 and 120 columns) and the wide one, under --ascii
too, and no row is wider than the panel (a wider one wraps out of its columns)."""

from __future__ import annotations

import pytest

from tftui import present
from tftui.trace.model import AgentTrace
from tftui.tui.trace_text import NARROW, steps_text

STEPS = [
    {"id": "s0", "parentId": None, "sequence": 0, "kind": "run", "name": "gate-block", "status": "blocked"},
    {"id": "s1", "parentId": "s0", "sequence": 1, "kind": "model", "name": "draft", "status": "ok", "attempt": 1,
     "inputTokens": 30, "outputTokens": 20},
    {"id": "s2", "parentId": "s0", "sequence": 2, "kind": "model", "name": "review", "status": "ok", "attempt": 1,
     "inputTokens": 60, "outputTokens": 18},
    {"id": "s3", "parentId": "s0", "sequence": 3, "kind": "model", "name": "changelog-of-the-whole-release",
     "status": "ok", "attempt": 12, "inputTokens": 12345, "outputTokens": 789},
    {"id": "s4", "parentId": "s0", "sequence": 4, "kind": "fallback", "name": "docs", "status": "blocked"},
]
TRACE = AgentTrace.model_validate({"schemaVersion": 1, "fixture": "gate_block", "status": "blocked", "steps": STEPS})


def _table(width: int, glyphs: present.Glyphs) -> tuple[str, list[str]]:
    lines = glyphs.show_text(steps_text(TRACE, width=width)).plain.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("seq"))
    if width < NARROW:  # the status legend: on its own line, which fits the panel
        assert lines[at - 1].startswith("(") and len(lines[at - 1]) <= width, lines[at - 1]
    return lines[at], lines[at + 1:]


def _end(line: str, word: str) -> int:
    return line.index(word) + len(word)


# 38 and 58: the detail panel's text at 80 and 120 columns (narrow layout); 100: the wide one
@pytest.mark.parametrize("width", [38, 58, 100])
@pytest.mark.parametrize("glyphs", [present.UNICODE, present.ASCII], ids=["unicode", "ascii"])
def test_the_header_stands_over_its_values(width: int, glyphs: present.Glyphs):
    header, rows = _table(width, glyphs)
    assert len(rows) == len(STEPS)
    assert all(len(line) <= width for line in [header, *rows]), [header, *rows]
    by_seq = {int(line.split()[0]): line for line in rows}
    for step in STEPS:
        row = by_seq[step["sequence"]]
        assert row[: _end(header, "seq")].strip() == str(step["sequence"])  # right-aligned under seq
        assert row[header.index("kind"):].startswith(step["kind"])
        if "inputTokens" in step:
            tokens = (f"{step['inputTokens']}+{step['outputTokens']}" if width >= NARROW
                      else f"{present.format_tokens(step['inputTokens'])}+{present.format_tokens(step['outputTokens'])}")
            assert row[: _end(header, "tokens")].endswith(tokens), (header, row)
            attempt = str(step["attempt"]) if width >= NARROW else f"a{step['attempt']}"
            assert row[: _end(header, "att")].endswith(attempt), (header, row)
        depth = 0 if step["parentId"] is None else 1
        name_at = header.index("name") + 2 * depth  # children indented under their parent
        assert row[name_at:].startswith(step["name"][:3]), (header, row)  # (a long one is cut with "...")
        if width >= NARROW:
            assert row[header.index("status"):].startswith(step["status"])


@pytest.mark.parametrize("width", [38, 100])
def test_a_long_run_s_sequences_stand_under_seq(width: int):
    """A long run's last steps have four- and five-digit sequences: the seq column widens with them."""
    steps = [STEPS[0], *({**step, "id": f"s{99995 + i}", "sequence": 99995 + i} for i, step in enumerate(STEPS[1:]))]
    trace = AgentTrace.model_validate({"schemaVersion": 1, "fixture": "long", "status": "blocked", "steps": steps})
    lines = steps_text(trace, width=width).plain.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("seq"))
    header, rows = lines[at], lines[at + 1:]
    assert len(rows) == len(steps)
    for step, row in zip(sorted(steps, key=lambda s: s["sequence"]), rows, strict=True):
        assert row[: _end(header, "seq")].strip() == str(step["sequence"]), (header, row)
        assert row[header.index("kind"):].startswith(step["kind"]), (header, row)
