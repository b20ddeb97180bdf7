"""Facts about one trace that rules need, each computed once and shared between rules.

Per-step work is done by C-level primitives instead of a Python loop per step:
`list.index` scans (first step of a name, every step of a name), one byte per step for
kinds (any kind mask via `bytes.translate`, selection via `itertools.compress`), C-level
`min`/`sum`/`in` over selected columns, and a `Counter` over zipped columns for signatures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import and_, eq, itemgetter
from typing import Final, cast

from tftui.trace.columns import Metadata, TraceColumns

EXTERNAL_KINDS = frozenset({"model", "tool"})
ABSENT: Final = object()  # a metadata key that is not there (distinct from null)
_NO_METADATA: Final[Metadata] = {}
_BUCKETS: Final = 1 << 16  # name-count buckets for worst_signature (a power of two)
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
            self._sorted = seqs == sorted(seqs)
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
            if None in ins or None in outs:
                missing = sum(1 for a, b in zip(ins, outs, strict=True) if a is None or b is None)
                self._tokens = (missing, 0)
            else:
                # no None left (checked above): the columns are all numbers here
                self._tokens = (0, clean_number(sum(cast(list[float], ins)) + sum(cast(list[float], outs))))
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

        A signature repeats no more often than its name, so only the steps whose name is common
        enough can hold the answer. Names are counted by hash bucket (`_BUCKETS` counters, not one
        per distinct name: a big map has a name per item): a bucket holds every step of each name
        in it, so its count bounds theirs. The exact count over the fullest bucket gives a floor,
        and the full count then reads only the steps of buckets that reach that floor (all the
        steps of every signature that can be the answer, in array order)."""
        if keys not in self._signatures:
            names = self.cols.names
            if not names:
                self._signatures[keys] = (None, 0)
                return self._signatures[keys]
            buckets = list(map(and_, map(hash, names), repeat(_BUCKETS - 1)))
            bucket_counts = Counter(buckets)
            fullest, most = max(bucket_counts.items(), key=itemgetter(1))
            top_sig: Signature | None = None
            top = 0
            if most >= 2:
                floor = max(2, self._top_count(keys, list(map(eq, buckets, repeat(fullest))))[1])
                wanted = {b for b, c in bucket_counts.items() if c >= floor}
                mask = None if len(wanted) == len(bucket_counts) else list(map(wanted.__contains__, buckets))
                top_sig, top = self._top_count(keys, mask)
            if top_sig is None or top < 2:  # nothing repeats: each signature counts 1, the first step's comes first
                meta = self.cols.metadata[0]
                values = tuple((meta.get(k, ABSENT) if meta else ABSENT) for k in keys)
                top_sig, top = (names[0], self.cols.kinds[0], self.cols.statuses[0], *values), 1
            self._signatures[keys] = (top_sig, top)
        return self._signatures[keys]

    def _top_count(self, keys: tuple[str, ...], mask: list[bool] | None) -> tuple[Signature | None, int]:
        """The most repeated signature among the steps `mask` selects (None: every step; the first
        in array order on ties) and its count; (None, 0) when no step is selected."""
        cols = self.cols
        metas = cols.metadata if mask is None else list(compress(cols.metadata, mask))
        # A key no selected step carries adds the same ABSENT to every signature: leave it out of
        # the count and put it back for the result.
        all_keys = cols.metadata_keys()
        present = [k in all_keys and (mask is None or any(map(dict.__contains__, filter(None, metas), repeat(k))))
                   for k in keys]
        # one column per metadata key: C-level `dict.get` over the steps (no metadata reads as {})
        dicts: list[Metadata] = [m or _NO_METADATA for m in metas] if any(present) else []
        get = cast("Callable[[Metadata, str, object], object]", dict.get)
        key_cols = [list(map(get, dicts, repeat(k), repeat(ABSENT))) for k, p in zip(keys, present, strict=True) if p]
        base: list[Sequence[object]] = [cols.names, cols.kinds, cols.statuses]
        if mask is not None:
            base = [list(compress(column, mask)) for column in base]
        counts = Counter(zip(*base, *key_cols, strict=True))
        if not counts:
            return None, 0
        top = max(counts.values())
        sig = next(s for s, n in counts.items() if n == top)  # insertion order = array order
        values = iter(sig[3:])
        return sig[:3] + tuple(next(values) if p else ABSENT for p in present), top
