"""`tftui gate`'s shortcuts for big traces (docs/trace-gates.md §3.6, §4, §1.2) give exactly what
the plain definitions give: the most repeated signature, the integrity problems, the normalized trace."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.trace import integrity
from tftui.trace.facts import ABSENT, Facts
from tftui.trace.integrity import check_columns
from tftui.trace.model import TraceColumns
from tftui.trace.normalize import normalize_columns

KEYS = ("state", "tool")
META = st.one_of(st.none(), st.dictionaries(st.sampled_from(["state", "tool", "other"]),
                                            st.sampled_from(["a", "b", 1, True, None]), max_size=3))
STEP = st.tuples(st.sampled_from(["p", "q", "r", "item-1", "item-2", "item-3"]),
                 st.sampled_from(["model", "tool"]), st.sampled_from(["ok", "error"]), META)


def _columns(steps: list[tuple[str, str, str, Any]]) -> TraceColumns:
    return TraceColumns.from_dicts([
        {"id": f"s{i}", "parentId": None if i == 0 else "s0", "sequence": i, "name": name, "kind": kind,
         "status": status, "metadata": meta}
        for i, (name, kind, status, meta) in enumerate(steps)
    ])


def _plain_worst(steps: list[tuple[str, str, str, Any]], keys: tuple[str, ...]) -> tuple[Any, int]:
    """The definition: count every step's signature; the first of the most repeated ones."""
    sigs = [(n, k, s, *((m or {}).get(key, ABSENT) for key in keys)) for n, k, s, m in steps]
    if not sigs:
        return None, 0
    counts = Counter(sigs)
    top = max(counts.values())
    return next(sig for sig in sigs if counts[sig] == top), top


@settings(max_examples=120, deadline=None)
@given(st.lists(STEP, max_size=14), st.sampled_from([KEYS, ("state",), ("missing",), ()]))
def test_the_most_repeated_signature_is_the_plain_count(steps: list[Any], keys: tuple[str, ...]) -> None:
    assert Facts(_columns(steps)).worst_signature(keys) == _plain_worst(steps, keys)


@settings(max_examples=80, deadline=None)
@given(st.lists(STEP, max_size=40), st.sampled_from([KEYS, ("state",), ()]))
def test_the_evidence_steps_are_the_steps_carrying_the_worst_signature(steps: list[Any], keys: tuple[str, ...]) -> None:
    facts = Facts(_columns(steps))
    worst, count = facts.worst_signature(keys)
    plain = [(n, k, s, *((m or {}).get(key, ABSENT) for key in keys)) for n, k, s, m in steps]
    if worst is not None:
        assert facts.signature_indices(keys, worst) == [i for i, sig in enumerate(plain) if sig == worst]
        assert len(facts.signature_indices(keys, worst)) == count


def test_a_rare_triple_with_one_signature_beats_a_common_triple_split_by_its_state() -> None:
    """Many steps of one name, kind and status but all different states; a rarer triple repeats one state."""
    steps = [("loop", "tool", "ok", {"state": f"s{i}"}) for i in range(30)]
    steps += [("other", "model", "ok", {"state": "same"}) for _ in range(3)]
    steps += [(f"item-{i}", "model", "ok", None) for i in range(40)]
    assert Facts(_columns(steps)).worst_signature(KEYS) == (("other", "model", "ok", "same", ABSENT), 3)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from([None, "s0", "s1", "s2", "s3", "s4", "s9"]), min_size=1, max_size=6),
       st.booleans())
def test_parent_checks_agree_with_the_walk_over_every_step(parents: list[str | None], unique: bool) -> None:
    """The per-distinct-parent shortcut and the full walk report the same problems."""
    ids = [f"s{i}" for i in range(len(parents))] if unique else [f"s{i % 3}" for i in range(len(parents))]
    cols = TraceColumns("f", "ok", ids, parents, list(range(len(ids))), ["n"] * len(ids), ["run"] * len(ids),
                        ["ok"] * len(ids), [None] * len(ids), [None] * len(ids), [None] * len(ids),
                        [None] * len(ids), [None] * len(ids))
    fast = check_columns(cols)
    saved = integrity._FEW_PARENTS
    integrity._FEW_PARENTS = -1  # no shortcut: every step walked
    try:
        slow = check_columns(TraceColumns(**{k: getattr(cols, k) for k in (
            "fixture", "status", "ids", "parent_ids", "sequences", "names", "kinds", "statuses", "attempts",
            "input_tokens", "output_tokens", "durations", "metadata")}))
    finally:
        integrity._FEW_PARENTS = saved
    assert fast == slow


NUMBERS = st.one_of(st.integers(-2, 3), st.just(2**53 + 1), st.just(math.inf), st.just(math.nan), st.just(-0.0),
                    st.booleans(), st.sampled_from(["x", None]))


@settings(max_examples=120, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b"]), NUMBERS, max_size=2), min_size=1, max_size=5))
def test_bad_metadata_numbers_are_found_whatever_else_is_there(metas: list[dict[str, Any]]) -> None:
    cols = _columns([("n", "model", "ok", m) for m in metas])
    bad = [(i, k) for i, m in enumerate(metas) for k, v in m.items()
           if type(v) in (int, float) and not (0 <= v <= 2**53)]
    problems = [p for p in check_columns(cols) if "metadata." in p]
    assert [re.search(r"on step (s\d+)", p).group(1) for p in problems] == [f"s{i}" for i, _ in bad]  # type: ignore[union-attr]


def _plain_normalize(cols: TraceColumns) -> tuple[list[Any], ...]:
    order = sorted(range(len(cols)), key=cols.sequences.__getitem__)
    rename = {cols.ids[i]: f"s{cols.sequences[i]}" for i in order}
    parents = [None if cols.parent_ids[i] is None else rename.get(cols.parent_ids[i], cols.parent_ids[i])
               for i in order]
    return [f"s{cols.sequences[i]}" for i in order], parents, [cols.names[i] for i in order]


@settings(max_examples=150, deadline=None)
@given(st.permutations(range(5)), st.sampled_from(["s", "x"]), st.sampled_from([None, "s0", "x0", "gone"]))
def test_normalized_ids_and_parents_are_the_plain_renaming(order: list[int], prefix: str, extra: Any) -> None:
    steps = [{"id": f"{prefix}{q}", "parentId": None if q == 0 else (extra if q == 4 else f"{prefix}0"),
              "sequence": q, "name": f"n{q}", "kind": "model", "status": "ok"} for q in order]
    cols = TraceColumns.from_dicts(steps)
    got = normalize_columns(cols)
    assert (got.ids, got.parent_ids, got.names) == _plain_normalize(cols)


@settings(max_examples=120, deadline=None)
@given(st.lists(STEP, max_size=30), st.sampled_from([KEYS, ("state",), ()]), st.sampled_from([1, 2, 4]))
def test_names_sharing_a_count_bucket_still_give_the_plain_count(steps: list[Any], keys: tuple[str, ...],
                                                                  buckets: int) -> None:
    """With one to four buckets every name shares one with others: the bucket counts only bound the
    name counts, and the answer is still exactly the plain count's."""
    from unittest.mock import patch

    from tftui.trace import facts as facts_module

    with patch.object(facts_module, "_BUCKETS", buckets):
        assert Facts(_columns(steps)).worst_signature(keys) == _plain_worst(steps, keys)


@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, max_size=40), st.sampled_from([KEYS, ("state",), ()]), st.sampled_from([1, 2, 4, 8]),
       st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 4]))
def test_folded_bucket_counts_still_give_the_plain_count(steps: list[Any], keys: tuple[str, ...], fold: int,
                                                         first_round: int, share: int) -> None:
    """A big trace's buckets are counted folded first (facts._folded_worst): whatever the fold, the
    buckets counted exactly first and the share it gives up at, the answer is the plain count's."""
    from unittest.mock import patch

    from tftui.trace import facts as facts_module

    with patch.multiple(facts_module, _FOLD=fold, _FOLD_MIN_STEPS=0, _FOLD_ROUND=first_round, _FOLD_SHARE=share):
        assert Facts(_columns(steps)).worst_signature(keys) == _plain_worst(steps, keys)


def test_the_fold_settles_a_loop_among_many_unique_steps() -> None:
    """The case the fold is for: a few signatures repeat, most steps are unique; it answers (it does
    not give up to the plain count) and agrees with it."""
    from unittest.mock import patch

    from tftui.trace import facts as facts_module

    steps = [(f"item-{i}", "model", "ok", None) for i in range(400)]
    steps[::10] = [("loop", "tool", "ok", {"state": f"s{i % 3}"}) for i in range(40)]
    with patch.multiple(facts_module, _FOLD=256, _FOLD_MIN_STEPS=0, _FOLD_ROUND=2):
        facts = Facts(_columns(steps))
        buckets = facts_module.signature_buckets(facts.cols.names, facts.cols.kinds, facts.cols.statuses,
                                                 facts.cols.metadata, KEYS)
        assert facts._folded_worst(KEYS, buckets) == _plain_worst(steps, KEYS) == (
            ("loop", "tool", "ok", "s0", ABSENT), 14)
