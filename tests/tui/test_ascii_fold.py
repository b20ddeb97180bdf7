"""Pure parts of --ascii and of the run header: folding text to ASCII, fitting the header."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text

from tftui import present
from tftui.present import HeaderPart, fit_header
from tftui.present.asciifold import cell_ascii, fold_text, to_ascii

# Characters that turn up in our text, Textual's chrome and users' flows, mixed with anything.
TRICKY = list("ab ·→←…—–✓✗•○◐■↪⊘§×≥中文é\u0301\u200d\ufe0f👨👩❤─│╭━╸▌▏▂\x85\u00a0")
ANY_TEXT = st.text(alphabet=st.sampled_from(TRICKY) | st.characters())


def test_readable_folds():
    assert to_ascii("a → b") == "a -> b"
    assert to_ascii("wait…") == "wait..."
    assert to_ascii("run · 3/4 · 0.2·1") == "run | 3/4 | 0.2*1"  # separator vs product
    assert to_ascii("skipped — no") == "skipped - no"
    assert to_ascii("✓ ok ✗ bad") == "* ok x bad"
    assert to_ascii("café ≥ 2") == "cafe >= 2"
    assert to_ascii("中") == "??"  # two cells, no ASCII form
    assert to_ascii("plain") == "plain"


@settings(max_examples=400)
@given(ANY_TEXT)
def test_every_fold_is_ascii_and_the_cell_fold_keeps_the_width(text):
    assert to_ascii(text).isascii()
    folded = cell_ascii(text)
    assert folded.isascii()
    assert cell_len(folded) == cell_len(text)  # the line filter must not move anything on screen
    rich = Text(text)
    assert fold_text(rich).plain == to_ascii(rich.plain)


def test_fold_text_moves_spans_with_their_characters():
    text = Text("x → y … z")
    text.stylize("bold", 4, 5)  # y
    text.stylize("red", 8, 9)  # z
    folded = fold_text(text)
    assert folded.plain == "x -> y ... z"
    styled = {str(span.style): folded.plain[span.start : span.end] for span in folded.spans}
    assert styled == {"bold": "y", "red": "z"}


def test_glyph_sets():
    assert present.ASCII.fold("a → b") == "a -> b"
    assert present.UNICODE.fold("a → b") == "a → b"
    fields = [*present.ASCII.status.values(), present.ASCII.breakpoint, present.ASCII.here, present.ASCII.ref,
              *present.ASCII.spinner, present.ASCII.sep, present.ASCII.mark]
    assert all(g.isascii() for g in fields)


class _Paused:
    point, node_path, phase_id, attempt, round, why = "before-attempt", "review-each#item-12", "review-each", 1, None, "breakpoint"


def _parts(paused: bool = True) -> list[HeaderPart]:
    parts = [HeaderPart(("a-rather-long-flow-name", "a-rather-long-f…"), 5), HeaderPart.keep("RUNNING")]
    if paused:
        parts.append(HeaderPart(present.pause_variants(_Paused()), 6))
    parts += [HeaderPart.keep("1/3"), HeaderPart(("4.6s",), 2), HeaderPart(("489 tok $0.0018 / 10k tok", "489 tok $0.0018"), 1)]
    return parts


def test_header_fits_by_dropping_the_least_important_first():
    full = fit_header(_parts(), 200)
    assert full == ("a-rather-long-flow-name · RUNNING · paused at review-each#item-12: attempt 2 (breakpoint)"
                    " · 1/3 · 4.6s · 489 tok $0.0018 / 10k tok")
    at80 = fit_header(_parts(), 78)
    assert cell_len(at80) <= 78
    assert "RUNNING" in at80 and "1/3" in at80 and "paused at review-each#item-12: attempt 2" in at80
    assert "tok" not in at80  # spend went first, then the elapsed time, before the pause point shrank
    # Narrower: the flow name shortens and goes before the pause point does.
    at50 = fit_header(_parts(), 50)
    assert cell_len(at50) <= 50 and "a-rather" not in at50 and "review-each#item-12" in at50


def test_status_and_progress_are_never_cut():
    for width in range(0, 120, 7):
        line = fit_header(_parts(), width)
        assert "RUNNING" in line and "1/3" in line
        assert cell_len(line) <= max(width, cell_len("RUNNING · 1/3"))


def test_pause_variants_get_shorter():
    forms = present.pause_variants(_Paused())
    assert forms[0] == present.pause_text(_Paused()) == "paused at review-each#item-12: attempt 2 (breakpoint)"
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)
    assert forms[-1] == "at review-each#ite…"  # the node path cut to 16 characters


def test_header_shortens_minor_parts_before_dropping_any():
    """A finished run with a data breakpoint at 80 columns: the breakpoint's short form, not the
    loss of the tokens and cost (the QA case `3/3 · 3.5s · stop when {run.costUSD} > 0.0002`)."""
    from tftui.tui.widgets.run_header import DROP_DATA_BP, DROP_NAME, DROP_SPEND, DROP_TIME

    parts = [
        HeaderPart(("map-reduce",), DROP_NAME),
        HeaderPart.keep("COMPLETED"),
        HeaderPart.keep("3/3"),
        HeaderPart(("3.5s",), DROP_TIME),
        HeaderPart(("285 tok $0.0011",), DROP_SPEND),
        HeaderPart(("stop when {run.costUSD} > 0.0002 and {phase.attempt} >= 2", "1 data breakpoint (B)"), DROP_DATA_BP),
    ]
    line = fit_header(parts, 78, shorten_first_below=DROP_NAME)
    assert line == "map-reduce · COMPLETED · 3/3 · 3.5s · 285 tok $0.0011 · 1 data breakpoint (B)"
    assert fit_header(parts, 200, shorten_first_below=DROP_NAME).endswith("{phase.attempt} >= 2")  # room: all of it


@settings(max_examples=400)
@given(ANY_TEXT)
def test_folds_keep_every_line_break_and_tab(text):
    """Rich puts a zero-width character in the cluster before it: `—\\n` is one cluster, and its
    newline used to go with the glyph (issue 15: `-- review  attempt 1 --Review this`)."""
    for fold in (to_ascii, cell_ascii):
        folded = fold(text)
        for control in "\n\t\r":
            assert folded.count(control) == text.count(control), (fold.__name__, control)
    assert fold_text(Text(text)).plain.count("\n") == Text(text).plain.count("\n")


def test_a_line_ending_in_a_folded_glyph_keeps_its_newline():
    assert to_ascii("── review  attempt 1 ──\nReview this") == "-- review  attempt 1 --\nReview this"
    assert cell_ascii("e\u0301\n中\t✓\r\n") == "e\n??\t*\r\n"


def test_a_part_dropped_before_a_longer_one_shrank_comes_back_when_there_is_room():
    """A long flow name at 80 columns (issue 15, tmux): the spend and the stop part went one by one
    before the name was shortened, and stayed gone though the shortened line had room for them."""
    from tftui.tui.widgets.run_header import DROP_CASSETTE, DROP_NAME, DROP_SPEND, DROP_TIME

    name = "a-really-long-flow-name-for-testing-the-header-at-eighty-columns"
    parts = [
        HeaderPart((name, present.cut(name, 16), present.cut(name, 10)), DROP_NAME),
        HeaderPart.keep("COMPLETED"),
        HeaderPart.keep("2/2"),
        HeaderPart(("16ms",), DROP_TIME),
        HeaderPart(("15 tok $0.0010",), DROP_SPEND),
        HeaderPart(("stop: break at fetch, on failure, when {run.costUSD} > 0.0005", "stop b1 f B1"), DROP_CASSETTE),
    ]
    line = fit_header(parts, 78, shorten_first_below=DROP_NAME)
    assert line == "a-really-long-f… · COMPLETED · 2/2 · 16ms · 15 tok $0.0010 · stop b1 f B1", line
