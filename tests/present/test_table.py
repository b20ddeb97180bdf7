"""The status table and number formats themselves (tftui.present)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tftui import present
from tftui.engine.state import PhaseState, PhaseStatus
from tftui.present.asciifold import cell_ascii, to_ascii


def _phase(status: str, gate: dict | None = None, type_: str = "gate") -> PhaseState:
    phase = PhaseState(id="g", type=type_)
    phase.status = PhaseStatus(status)
    phase.gate = gate
    return phase


def test_the_blocked_rule() -> None:
    """SPEC §3.5: a gate or approval that is done with verdict block reads blocked; nothing else does."""
    assert present.display_status(_phase("done", {"verdict": "block"})) == "blocked"
    assert present.display_status(_phase("done", {"verdict": "block"}, "approval")) == "blocked"
    assert present.display_status(_phase("done", {"verdict": "pass"})) == "done"
    assert present.display_status(_phase("failed", {"verdict": "block"})) == "failed"
    assert present.display_status(_phase("done")) == "done"
    assert present.shown_status("done", {"verdict": "block"}) == "blocked"
    assert present.display_status(None) == "pending" and present.display_status(None, stale=True) == "stale"
    assert present.display_status(_phase("running"), stale=True) == "running"
    assert present.display_status(_phase("done", {"verdict": "block"}), stale=True) == "stale"


def test_ascii_glyphs_cannot_be_taken_for_tree_guides() -> None:
    guides = set("|+`-> v") - {"-"}  # dag_tree's ASCII guides and expand icons (skipped is `-`)
    for row in present.STATUSES.values():
        assert row.ascii.isascii() and not set(row.ascii) & guides, row
        assert to_ascii(row.unicode).isascii()


def test_a_status_glyph_folded_to_ascii_is_the_tables_ascii_glyph() -> None:
    """A Unicode status glyph inside a text that --ascii folds (the detail panel's tabs, the
    line filter on every line drawn) reads as the same row's ASCII glyph, as the tree shows it:
    `■` is `!` (blocked), never `#`; `◐` is `o` (running), never `*` (done's)."""
    for table in (present.STATUSES, present.RUN_STATUSES):
        for name, row in table.items():
            assert to_ascii(row.unicode) == row.ascii, name
            assert cell_ascii(row.unicode) == row.ascii, name
            assert present.ASCII.fold(f"x {row.unicode} y") == f"x {row.ascii} y", name


def test_the_trace_tab_shows_a_step_status_with_the_trees_ascii_glyph() -> None:
    from tftui.trace.model import AgentTrace
    from tftui.tui.trace_text import steps_text

    steps = [{"id": f"s{i}", "parentId": None, "sequence": i, "kind": "model", "name": f"n{i}", "status": status}
             for i, status in enumerate(("ok", "error", "blocked", "cancelled"), start=1)]
    trace = AgentTrace.model_validate({"schemaVersion": 1, "fixture": "f", "status": "blocked", "steps": steps})
    for glyphs in (present.UNICODE, present.ASCII):
        lines = glyphs.show_text(steps_text(trace, width=40)).plain.splitlines()
        rows = {line.split()[3]: line.split()[1] for line in lines if line.split()[3:4] in (["n1"], ["n2"], ["n3"], ["n4"])}
        legend = next(line for line in lines if line.startswith("("))  # a line of its own
        for name, status in (("n1", "done"), ("n2", "failed"), ("n3", "blocked"), ("n4", "skipped")):
            assert rows[name] == glyphs.glyph(status), (glyphs.ascii, name, rows)
        for step, status in (("ok", "done"), ("error", "failed"), ("blocked", "blocked"), ("cancelled", "skipped")):
            assert f"{glyphs.glyph(status)} {step}" in legend, legend


def test_every_status_has_a_colour_role() -> None:
    for name in (*present.STATUSES, *present.RUN_STATUSES):
        role = present.colour_role(name)
        assert role.theme.startswith("$") and role.default.startswith("#") and role.ansi.isdigit()


def test_unknown_statuses_read_as_themselves() -> None:
    assert present.status_word("weird") == "weird" and present.glyph("weird") == "?"


@given(st.floats(min_value=0, max_value=1e9, allow_nan=False))
def test_durations_never_raise_and_only_hide_sub_millisecond(ms: float) -> None:
    text = present.format_duration(ms)
    assert (text == "") == (ms < 1)
    assert present.elapsed_text(ms) == (text or "0ms")


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_cost_keeps_its_significant_digits(cost: float) -> None:
    text = present.format_cost(cost)
    assert text.startswith("$")
    decimals = len(text.split(".")[1])
    assert decimals == (2 if cost == 0 or cost >= 10 else 4 if cost < 0.01 else 3)


@given(st.integers(min_value=0, max_value=10**10))
def test_tokens_are_compact(n: int) -> None:
    text = present.format_tokens(n)
    assert len(text) <= 7 or n >= 10**9
    assert present.tokens_text(n) == f"{text} tok"


def test_usage_with_bad_values_never_raises() -> None:
    assert present.usage_tokens({"input": "x", "output": None}) == 0
    assert present.usage_text({"input": 3, "output": 4, "cost": "?"}) == "7t"
    assert present.usage_text(None) == ""


def test_theme_fallbacks_follow_the_colour_roles() -> None:
    """A theme without a [status] table colours each status by its role's theme colour."""
    from tftui.tui.themes import status_colours, status_variable_defaults

    variables = {role.theme[1:]: f"#{i:06x}" for i, role in enumerate(present.ROLES.values())}
    colours = status_colours(variables)
    for name in present.DISPLAY_STATUSES:
        assert colours[name] == variables[present.colour_role(name).theme[1:]]
    assert colours["breakpoint"] == variables[present.colour_role("failed").theme[1:]]
    defaults = status_variable_defaults()
    assert all(defaults[f"status-{n}"] == present.colour_role(n).default for n in present.DISPLAY_STATUSES)
