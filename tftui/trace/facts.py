"""Facts about one trace that rules need, each computed once and shared between rules.

Per-step work is done by C-level primitives instead of a Python loop per step:
`list.index` scans (first step of a name, every step of a name), one byte per step for
kinds (any kind mask via `bytes.translate`, selection via `itertools.compress`), C-level
`min`/`sum`/`in` over selected columns, and a `Counter` over zipped columns for signatures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, compress, repeat
from operator import and_
from typing import Final, cast

from tftui.trace.columns import Metadata, TraceColumns

EXTERNAL_KINDS = frozenset({"model", "tool"})
ABSENT: Final = object()  # a metadata key that is not there (distinct from null)
_NO_METADATA: Final[Metadata] = {}
# Signature buckets for worst_signature: 0 counts by the hash itself; a power of two folds the hashes
# into that many buckets (tests force collisions so).
_BUCKETS: Final = 0
# Up to this many fullest buckets, their steps are found by scanning the bucket column for each
# (one C-level pass per bucket) instead of testing every step's bucket against a set.
_FEW_BUCKETS: Final = 4
# A big trace's buckets are first counted folded into `_FOLD` (a table that stays in the CPU's
# cache: counting a million distinct hashes is mostly cache misses), from `_FOLD_MIN_STEPS` steps
# on; the `_FOLD_ROUND` fullest folded buckets are counted exactly first, and the fold is given up
# (every bucket counted) when more than 1/`_FOLD_SHARE` of the steps would be counted exactly.
_FOLD: Final = 1 << 14
_FOLD_MIN_STEPS: Final = 1 << 16
_FOLD_ROUND: Final = 64
_FOLD_SHARE: Final = 4
# (name, kind, status, then each key's metadata value or ABSENT): hashable parts of mixed types
Signature = tuple[object, ...]


def clean_number(value: float | int) -> float | int:
    """Integral floats become ints, so JSON evidence reads `1500`, not `1500.0`."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


# Step kinds as one byte each: `bytes.translate` then gives any kind mask at C speed.
_KIND_CODE = {"run": 0, "model": 1, "tool": 2, "retrieval": 3, "policy": 4, "fallback": 5}


def _kind_table(*kinds: str) -> bytes:
    wanted = {_KIND_CODE[k] for k in kinds}
    return bytes(1 if i in wanted else 0 for i in range(256))


_MODEL_MASK = _kind_table("model")
_EXTERNAL_MASK = _kind_table(*EXTERNAL_KINDS)


class Facts:
    """What the rules need from one trace, each computed at most once (lazily, on first use).

    Per-step work is done by C-level primitives: `list.index` scans (first step of a name, all
    steps of a name), one byte per step for kinds (masks via `bytes.translate`, selection via
    `itertools.compress`), and a `Counter` over zipped columns for signatures.
    """

    def __init__(self, cols: TraceColumns) -> None:
        self.cols = cols
        self._first: dict[str, int | None] = {}
        self._indices: dict[str, list[int]] = {}
        self._kind_codes: bytes | None = None
        self._sorted: bool | None = None
        self._tokens: tuple[int, float | int] | None = None
        self._block: tuple[int | None] | None = None
        self._signatures: dict[tuple[str, ...], tuple[Signature | None, int]] = {}

    def kind_codes(self) -> bytes:
        if self._kind_codes is None:
            self._kind_codes = bytes(map(_KIND_CODE.__getitem__, self.cols.kinds))
        return self._kind_codes

    def is_sorted(self) -> bool:
        """Sequences ascending in array order (always true for a normalized trace)."""
        if self._sorted is None:
            seqs = self.cols.sequences
            # strictly ascending (a fact a reader may already know) is sorted, without a sorted copy
            self._sorted = self.cols.increasing() or seqs == sorted(seqs)
        return self._sorted

    def first_index(self, name: str) -> int | None:
        """Index of the first step named `name` in array order (sequence order once normalized)."""
        if name not in self._first:
            try:
                self._first[name] = self.cols.names.index(name)
            except ValueError:
                self._first[name] = None
        return self._first[name]

    def indices(self, name: str) -> list[int]:
        """Every index of a step named `name` (C-level scans between matches)."""
        if name not in self._indices:
            names = self.cols.names
            found: list[int] = []
            i = self.first_index(name)
            while i is not None:
                found.append(i)
                try:
                    i = names.index(name, i + 1)
                except ValueError:
                    i = None
            self._indices[name] = found
        return self._indices[name]

    def max_attempt(self, name: str) -> int:
        """max(attempt ?? 1) over steps named `name`; 0 when there is none."""
        attempts = self.cols.attempts
        return max((1 if (a := attempts[i]) is None else a for i in self.indices(name)), default=0)

    def token_usage(self) -> tuple[int, float | int]:
        """(model steps missing input or output tokens, Σ input+output over model steps)."""
        if self._tokens is None:
            mask = self.kind_codes().translate(_MODEL_MASK)
            ins = list(compress(self.cols.input_tokens, mask))
            outs = list(compress(self.cols.output_tokens, mask))
            try:  # a None among the numbers stops the sum (no pass of its own looks for one first)
                total = sum(cast(list[float], ins)) + sum(cast(list[float], outs))
            except TypeError:
                missing = sum(1 for a, b in zip(ins, outs, strict=True) if a is None or b is None)
                if not missing:  # not a None: a value that is no number, raised as before
                    raise
                self._tokens = (missing, 0)
            else:
                self._tokens = (0, clean_number(total))
        return self._tokens

    def first_blocked(self) -> int | None:
        """Index of the first blocked step that is not a `run` step (see NoExternalWorkAfterBlock)."""
        if self._block is None:
            statuses, kinds = self.cols.statuses, self.cols.kinds
            found: int | None = None
            start = 0
            while True:
                try:
                    i = statuses.index("blocked", start)
                except ValueError:
                    break
                if kinds[i] != "run":
                    found = i
                    break
                start = i + 1
            self._block = (found,)
        return self._block[0]

    def external_after(self, block: int) -> list[str]:
        """Names of model/tool steps whose sequence is greater than the step at `block`."""
        cols = self.cols
        mask = self.kind_codes().translate(_EXTERNAL_MASK)
        if self.is_sorted():  # sequence order = array order: only the tail can follow the block
            tail = range(block + 1, len(cols.names))
            return [cols.names[j] for j in compress(tail, mask[block + 1 :])]
        block_seq = cols.sequences[block]
        return [
            name
            for name, seq in zip(compress(cols.names, mask), compress(cols.sequences, mask), strict=True)
            if seq > block_seq
        ]

    def external_indices_after(self, block: int) -> list[int]:
        """Indices of the model/tool steps whose sequence is greater than the step at `block`."""
        cols = self.cols
        block_seq = cols.sequences[block]
        return [i for i, (k, q) in enumerate(zip(cols.kinds, cols.sequences, strict=True))
                if k in EXTERNAL_KINDS and q > block_seq]

    def signature_indices(self, keys: tuple[str, ...], signature: Signature) -> list[int]:
        """Indices of the steps whose signature (as `worst_signature` builds it) is `signature`."""
        cols = self.cols
        name, kind, status = signature[:3]
        out: list[int] = []
        for i in self.indices(cast(str, name)):  # a signature's steps all carry its name
            if cols.kinds[i] != kind or cols.statuses[i] != status:
                continue
            meta = cols.metadata[i]
            values = tuple((meta.get(k, ABSENT) if meta else ABSENT) for k in keys)
            if values == signature[3:]:
                out.append(i)
        return out

    def worst_signature(self, keys: tuple[str, ...]) -> tuple[Signature | None, int]:
        """The most repeated signature `(name, kind, status, value of each key…)` and its count;
        the first one in sequence order on ties; (None, 0) for an empty trace. Absent key: ABSENT.

        Signatures are counted by bucket first (`signature_buckets`: one int per step, no tuple
        kept): a bucket's count bounds the count of each signature in it, so the answer lies in
        the fullest buckets. Their steps are then counted exactly; when the top of that count
        reaches the fullest bucket's count it is the answer (no other signature can count more, and
        every one that counts as much is in those buckets), otherwise the fullest buckets held
        different signatures sharing a hash, and every step is counted. A big trace's buckets are
        counted folded first (`_folded_worst`)."""
        if keys not in self._signatures:
            cols = self.cols
            if not cols.names:
                self._signatures[keys] = (None, 0)
                return self._signatures[keys]
            buckets = cols.known_signature_buckets(keys)
            if buckets is None:
                buckets = signature_buckets(cols.names, cols.kinds, cols.statuses, cols.metadata, keys)
            folded = self._folded_worst(keys, buckets) if len(buckets) >= _FOLD_MIN_STEPS else None
            if folded is not None:
                self._signatures[keys] = folded
                return folded
            top_sig, top = self._worst_among(keys, buckets)
            if top_sig is None or top < 2:  # nothing repeats: each signature counts 1, the first step's comes first
                meta = cols.metadata[0]
                values = tuple((meta.get(k, ABSENT) if meta else ABSENT) for k in keys)
                top_sig, top = (cols.names[0], cols.kinds[0], cols.statuses[0], *values), 1
            self._signatures[keys] = (top_sig, top)
        return self._signatures[keys]

    def _worst_among(self, keys: tuple[str, ...], buckets: list[int],
                     mask: list[bool] | None = None) -> tuple[Signature | None, int]:
        """The most repeated signature among the steps `mask` marks (None: every step), the first
        in array order on ties, and its count, when it repeats; else (None, 0) or a count below 2.
        `mask` marks all the steps of a bucket or none (see `worst_signature`)."""
        bucket_counts = Counter(buckets if mask is None else compress(buckets, mask))
        most = max(bucket_counts.values(), default=0)
        if most < 2:
            return None, most
        # C-level: a comprehension over a million counted buckets costs more than the rest here
        fullest = list(compress(bucket_counts, map(most.__eq__, bucket_counts.values())))
        if len(fullest) <= _FEW_BUCKETS:  # their steps found by C-level scans, not a mask over every step
            top_sig, top = self._top_count(keys, at=sorted(chain.from_iterable(
                _positions(buckets, b, most) for b in fullest)))
        else:
            wanted = set(fullest)
            top_sig, top = self._top_count(keys, list(map(wanted.__contains__, buckets)))
        if top < most:  # different signatures share the fullest buckets: every marked step counted
            top_sig, top = self._top_count(keys, mask)
        return top_sig, top

    def _folded_worst(self, keys: tuple[str, ...], buckets: list[int]) -> tuple[Signature, int] | None:
        """`worst_signature` from the buckets folded into `_FOLD`, or None when that would not
        save counting every bucket. A folded bucket's count bounds the count of every signature in
        it. The steps of the fullest folded buckets are counted exactly, giving `top`; any
        signature counting `top` or more lies in a folded bucket counting `top` or more, so once
        those are all counted, the top of the exact count is the answer, ties included (all the
        steps of a counted signature are counted, in array order). Adding them can only raise `top`,
        so a second round always settles it."""
        folded = list(map(and_, buckets, repeat(_FOLD - 1)))
        counts = Counter(folded)
        ranked = sorted(counts.values(), reverse=True)
        floor = ranked[min(_FOLD_ROUND, len(ranked)) - 1]
        chosen = {b for b, n in counts.items() if n >= floor}
        while True:
            if sum(map(counts.__getitem__, chosen)) * _FOLD_SHARE > len(folded):
                return None
            top_sig, top = self._worst_among(keys, buckets, list(map(chosen.__contains__, folded)))
            if top_sig is None or top < 2:  # nothing repeats among the fullest: the plain count says so
                return None
            reach = {b for b, n in counts.items() if n >= top}
            if reach <= chosen:
                return top_sig, top
            chosen |= reach

    def _top_count(self, keys: tuple[str, ...], mask: list[bool] | None = None,
                   at: list[int] | None = None) -> tuple[Signature | None, int]:
        """The most repeated signature among the steps `mask` marks, or the steps at the ascending
        indices `at` (neither: every step), the first in array order on ties, and its count; (None, 0)
        when no step is selected."""
        cols = self.cols
        chosen: list[Sequence[object]] = [cols.names, cols.kinds, cols.statuses]
        metas: Sequence[Metadata | None] = cols.metadata
        if at is not None:
            chosen = [list(map(column.__getitem__, at)) for column in chosen]
            metas = list(map(metas.__getitem__, at))
        elif mask is not None:
            chosen = [list(compress(column, mask)) for column in chosen]
            metas = list(compress(metas, mask))
        counts = Counter(zip(*chosen, *_key_values(metas, keys), strict=True))
        if not counts:
            return None, 0
        top = max(counts.values())
        return next(s for s, n in counts.items() if n == top), top  # insertion order = array order


def _positions(values: list[int], value: int, count: int) -> list[int]:
    """The indices of the `count` entries of `values` equal to `value` (C-level `list.index` scans)."""
    found: list[int] = []
    at = -1
    index = values.index
    for _ in range(count):
        at = index(value, at + 1)
        found.append(at)
    return found


def _key_values(metadata: Sequence[Metadata | None], keys: tuple[str, ...]) -> list[list[object]]:
    """One column per key: each step's value of it, ABSENT when its metadata has no such key
    (C-level `dict.get` over the steps; no metadata reads as {})."""
    dicts: list[Metadata] = [m or _NO_METADATA for m in metadata]
    get = cast("Callable[[Metadata, str, object], object]", dict.get)
    return [list(map(get, dicts, repeat(k), repeat(ABSENT))) for k in keys]


def signature_buckets(names: Sequence[str], kinds: Sequence[str], statuses: Sequence[str],
                      metadata: Sequence[Metadata | None], keys: tuple[str, ...]) -> list[int]:
    """Each step's signature bucket for `Facts.worst_signature`: the hash of its signature (name,
    kind, status, each key's value or ABSENT; folded into `_BUCKETS` when set), so steps with equal signatures
    share a bucket. Computed over columns or over any slice of them (a reader computes it a piece
    of the file at a time: `TraceColumns.known_signature_buckets`)."""
    hashes = map(hash, zip(names, kinds, statuses, *_key_values(metadata, keys), strict=True))
    return list(map(and_, hashes, repeat(_BUCKETS - 1)) if _BUCKETS else hashes)


def class_buckets(names: Sequence[str], kinds: Sequence[str], statuses: Sequence[str],
                  classes: Sequence[int]) -> list[int]:
    """`signature_buckets` for a reader that numbered the metadata values of the keys already
    (`classes`: equal values, one number; tftui.trace.fileload): the hash of (name, kind, status,
    class), so steps with equal signatures share a bucket, as there."""
    hashes = map(hash, zip(names, kinds, statuses, classes, strict=True))
    return list(map(and_, hashes, repeat(_BUCKETS - 1)) if _BUCKETS else hashes)
