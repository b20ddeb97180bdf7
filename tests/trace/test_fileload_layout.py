"""A trace file in the layout tftui writes is read a piece at a time (tftui.trace.fileload.layout_columns):
the same columns as the whole-file decode, the same facts as computing them afterwards, and anything
laid out otherwise is read the usual way, with the same result and the same messages."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace import fileload
from tftui.trace.facts import Facts
from tftui.trace.fileload import fast_columns, layout_columns, layout_file, load_trace_file, read_trace_file
from tftui.trace.model import TraceColumns, dump_columns, load_columns

META_VALUES = st.one_of(st.none(), st.booleans(), st.integers(0, 3), st.just(1.5),
                        st.sampled_from(["a", "b", "2026-01-01T00:00", "/tmp/x", "x\ny", "é"]))
METADATA = st.one_of(st.none(), st.dictionaries(st.sampled_from(["state", "tool", "outcome", "startedAt"]),
                                                META_VALUES, max_size=3))
STEP = st.tuples(st.sampled_from(["p", "q", "item-1", "a,\nb", "\u2028"]), st.sampled_from(["model", "tool", "policy"]),
                 st.sampled_from(["ok", "error", "blocked"]), METADATA, st.one_of(st.none(), st.integers(1, 3)),
                 st.one_of(st.none(), st.integers(0, 9), st.just(2.5)), st.sampled_from(["s0", "s0", "s1", "zz", None]))
KEYS = [("state", "tool", "outcome"), ("state",), ("startedAt",), ()]


def _columns(steps: list[tuple[Any, ...]], order: list[int], id_prefix: str) -> TraceColumns:
    seqs = [order[i % len(order)] + 10 * (i // len(order)) for i in range(len(steps))] if order else []
    rows = [{"id": "s0", "parentId": None, "sequence": 0, "name": "run", "kind": "run", "status": "ok",
             "metadata": {"fakeClock": True}}]
    for i, (name, kind, status, meta, attempt, tokens, parent) in enumerate(steps):
        row: dict[str, Any] = {"id": f"{id_prefix}{seqs[i] + 1}", "parentId": parent, "sequence": seqs[i] + 1,
                               "name": name, "kind": kind, "status": status, "metadata": meta}
        if attempt is not None:
            row["attempt"] = attempt
        if tokens is not None:
            row["inputTokens"] = row["outputTokens"] = tokens
        rows.append(row)
    return TraceColumns.from_dicts(rows, fixture="f,\n", status="ok")  # type: ignore[arg-type]


def _facts(cols: TraceColumns) -> tuple[Any, ...]:
    return (cols.root_count(), cols.increasing(), cols.canonical_ids(), cols.distinct_parents(), cols.metadata_keys(),
            cols.metadata_values())


@settings(max_examples=40, deadline=None)
@given(st.lists(STEP, max_size=12), st.permutations(range(4)), st.sampled_from(["s", "x", "s0"]),
       st.sampled_from([1, 40, 1 << 17]))
def test_the_piece_reader_gives_the_whole_decodes_columns_and_facts(steps: list[Any], order: list[int],
                                                                    id_prefix: str, piece: int) -> None:
    data = dump_columns(_columns(steps, order, id_prefix)).encode()
    with patch.object(fileload, "_PIECE", piece):  # pieces of one step up to the whole trace
        cols = layout_columns(data, KEYS)
    whole = fast_columns(data)
    assert cols is not None and whole is not None
    assert repr(cols) == repr(whole)  # same values, same types
    assert _facts(cols) == _facts(whole)
    for keys in KEYS:  # the signature buckets it computed count the same as those computed later
        assert cols.known_signature_buckets(keys) is not None
        assert Facts(cols).worst_signature(keys) == Facts(whole).worst_signature(keys)


def _dumped() -> str:
    steps = [("p", "model", "ok", {"state": "a"}, 1, 3, "s0"), ("q", "tool", "error", None, None, None, "s0")]
    return dump_columns(_columns(steps, [0, 1], "s"))


def _other_layouts() -> list[str]:
    text = _dumped()
    lines = text.split("\n")
    step = next(i for i, line in enumerate(lines) if '"name": "p"' in line)
    spread = lines[:step] + [lines[step].replace(", ", ",\n      ")] + lines[step + 1:]
    return [
        "\n".join(spread),  # a step over several lines
        text.replace("},\n", "},\n,\n", 1),  # an empty element: not JSON
        text.replace("}\n  ]", "},\n  ]"),  # a trailing comma: not JSON
        text.replace("\n  ]\n}", '\n  ],\n  "extra": 1\n}'),  # a key after the steps
        text.replace('\n  "steps": [\n', '\n  "steps": [],\n  "more": {\n  "steps": [\n', 1) + "}",  # nested
        text.replace('"schemaVersion": 1', '"schemaVersion": 2'),  # a bad envelope
        text.replace('"sequence": 1,', '"sequence": -1,'),  # a number out of range
        text.replace('"kind": "tool"', '"kind": "thinking"'),  # a schema error in a step
        text.replace('{"state": "a"}', '{"state": -1}'),  # a metadata number out of range
        text.replace('{"state": "a"}', '{"state": {"nested": 1}}'),  # nested metadata
        text.replace('{"state": "a"}', '"a"'),  # metadata that is no object
        json.dumps(json.loads(text)),  # one line
        text.rstrip("\n") + "\n\n",  # another ending
        text[: text.index('"steps": [') + 11] + "\n  ]\n}\n",  # no step
        text[: text.index('"steps": [') + 11] + "\n\n  ]\n}\n",  # no step, a blank line
    ]


def test_a_file_laid_out_otherwise_is_read_as_before() -> None:
    """Whatever the piece reader returns is the whole decode's columns; what it cannot read (None)
    gets the result and the messages it got without the piece reader."""
    for text in _other_layouts():
        data = text.encode()
        whole = fast_columns(data)
        for piece in (1, 40, 1 << 17):
            with patch.object(fileload, "_PIECE", piece):
                got = layout_columns(data)
            assert (got is None) if whole is None else (got is None or repr(got) == repr(whole)), text
        with patch.object(fileload, "layout_columns", lambda *_: None):
            before = load_trace_file(data)
        after = load_trace_file(data)
        assert (repr(after.columns), after.error, after.nonconforming) == (
            repr(before.columns), before.error, before.nonconforming)


def test_the_layout_it_reads_is_the_one_a_run_writes() -> None:
    data = _dumped().encode()
    cols = layout_columns(data)
    assert cols is not None and cols == load_columns(data).columns


def test_steps_with_the_same_metadata_text_share_one_dict_and_one_parent_string() -> None:
    """Each distinct metadata text is decoded once and its dict shared (a decode per step made a
    dict per step: a third of reading a big trace, most of its memory); steps under one parent share
    its id string. The columns are still the whole decode's."""
    steps = [("p", "model", "ok", {"state": "a", "tool": 1}, 1, 3, "s0") for _ in range(5)]
    steps += [("q", "tool", "ok", {"state": "b"}, None, None, "s0"), ("q", "tool", "ok", None, None, None, "s0")]
    data = dump_columns(_columns(steps, [0, 1, 2, 3, 4, 5, 6], "s")).encode()
    cols = layout_columns(data, KEYS)
    assert cols is not None and repr(cols) == repr(fast_columns(data))
    metadata, parents = cols.metadata[1:], cols.parent_ids[1:]
    assert len({id(m) for m in metadata[:5]}) == 1 and metadata[5] == {"state": "b"} and metadata[6] is None
    assert len({id(p) for p in parents}) == 1


def _from_file(data: bytes, tmp_path: Path, head: int = fileload.HEAD_BYTES) -> tuple[Any, Any]:
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    with path.open("rb") as file:
        first = file.read(head)
        cols = layout_file(file, first, KEYS)
        file.seek(0)
        loaded = read_trace_file(file, file.read(head), KEYS)
    return cols, loaded


@settings(max_examples=40, deadline=None)
@given(st.lists(STEP, max_size=12), st.permutations(range(4)), st.sampled_from([1, 40, 1 << 17]),
       st.sampled_from([1, 7, 64, 1 << 22]))
def test_a_file_read_a_block_at_a_time_gives_the_columns_of_its_bytes(steps: list[Any], order: list[int], piece: int,
                                                                      block: int) -> None:
    """`tftui gate` reads a trace file in tftui's layout a block at a time (fileload.layout_file): the
    same columns, facts and signature counts as from the file's bytes, whatever the pieces and blocks."""
    import tempfile

    data = dump_columns(_columns(steps, order, "s")).encode()
    with tempfile.TemporaryDirectory() as tmp, patch.object(fileload, "_PIECE", piece), \
            patch.object(fileload, "_BLOCK", block):
        cols, loaded = _from_file(data, Path(tmp))
        whole = layout_columns(data, KEYS)
    assert cols is not None and whole is not None and loaded.columns is not None
    assert repr(cols) == repr(whole) == repr(loaded.columns) and _facts(cols) == _facts(whole)
    for keys in KEYS:
        assert Facts(cols).worst_signature(keys) == Facts(whole).worst_signature(keys)


def test_a_file_laid_out_otherwise_read_from_disk_gets_the_result_of_its_bytes(tmp_path: Path) -> None:
    """Whatever the block reader cannot read is read whole: the result and messages of the bytes."""
    for text in [*_other_layouts(), _dumped()]:
        data = text.encode()
        for block in (1, 1 << 22):
            with patch.object(fileload, "_BLOCK", block):
                cols, loaded = _from_file(data, tmp_path)
            expected = load_trace_file(data, KEYS)
            assert (cols is None) if layout_columns(data) is None else repr(cols) == repr(layout_columns(data))
            assert (repr(loaded.columns), loaded.error, loaded.nonconforming) == (
                repr(expected.columns), expected.error, expected.nonconforming), text


def test_an_envelope_longer_than_the_head_or_a_file_that_shrinks_is_read_whole(tmp_path: Path) -> None:
    data = _dumped().encode()
    cols, loaded = _from_file(data, tmp_path, head=20)  # the steps' opening line is not in the head
    assert cols is None and repr(loaded.columns) == repr(fast_columns(data))

    class Shrinking(io.BytesIO):
        """Truncated to half while its steps are read (after its size and its ending were)."""

        def read(self, size: int | None = -1) -> bytes:
            if len(data) // 2 < self.tell() < len(data) - 8:
                return b""
            return super().read(size)

        def fileno(self) -> int:
            return 0

    stat = type("Stat", (), {"st_size": len(data), "st_mtime_ns": 1, "st_ctime_ns": 1})()
    with patch.object(fileload, "_BLOCK", 16), patch.object(fileload.os, "fstat", lambda _fd: stat):
        shrinking = Shrinking(data)
        assert layout_file(shrinking, shrinking.read(fileload.HEAD_BYTES)) is None  # EOFError: read whole
        shrinking.seek(0)
        loaded = read_trace_file(shrinking, shrinking.read(fileload.HEAD_BYTES))
    assert repr(loaded.columns) == repr(fast_columns(data))  # what reading it whole gave (all of it, here)


def test_a_file_rewritten_in_place_while_its_blocks_are_read_is_read_whole(tmp_path: Path) -> None:
    """Another program rewrites trace.json in place (same layout, same size, other values) after the
    first block was read: the block reader must not give columns mixing the two versions; the
    file is read again whole, which gives one version."""
    first, second = (dump_columns(TraceColumns.from_dicts([
        {"id": f"s{i}", "parentId": None if i == 0 else "s0", "sequence": i, "name": name, "kind": "model",
         "status": "ok", "metadata": None} for i in range(2000)])) for name in ("a", "b"))  # type: ignore[arg-type]
    assert len(first) == len(second) and first != second
    path = tmp_path / "trace.json"
    path.write_text(first)
    os.utime(path, ns=(10**18, 10**18))  # an old stamp: the rewrite below gets a later one

    class RewrittenOnce(io.FileIO):
        rewritten = False

        def read(self, size: int | None = -1) -> bytes:
            block = super().read(size)
            if self.tell() > fileload.HEAD_BYTES and not RewrittenOnce.rewritten:
                RewrittenOnce.rewritten = True
                with open(path, "r+b") as other:  # in place: the same file, not a rename
                    other.write(second.encode())
            return block

    with patch.object(fileload, "_BLOCK", 512), patch.object(fileload, "_PIECE", 256), \
            RewrittenOnce(path, "rb") as file:
        head = file.read(fileload.HEAD_BYTES)
        assert layout_file(file, head) is None
        file.seek(0)
        loaded = read_trace_file(file, file.read(fileload.HEAD_BYTES))
    assert RewrittenOnce.rewritten
    assert repr(loaded.columns) == repr(fast_columns(second.encode()))
