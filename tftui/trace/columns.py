"""The column view of a trace (docs/trace-gates.md §1): one plain list per step field, what
integrity, normalization and the rules read. No pydantic here: `tftui gate` on a trace file
reads, checks and judges it without importing the validation models (`tftui.trace.model`,
which re-exports everything below), which the slow path of a damaged file loads on demand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from operator import lt
from typing import TYPE_CHECKING, Final, Literal, Protocol, cast

if TYPE_CHECKING:
    from tftui.trace.model import AgentTrace, StepJSON

SCHEMA_VERSION: Final = 1
StepKind = Literal["run", "model", "tool", "retrieval", "policy", "fallback"]
StepStatus = Literal["ok", "error", "blocked", "cancelled"]
STEP_KINDS: tuple[str, ...] = ("run", "model", "tool", "retrieval", "policy", "fallback")
STEP_STATUSES: tuple[str, ...] = ("ok", "error", "blocked", "cancelled")

MetaValue = str | bool | int | float | None
Metadata = dict[str, MetaValue]  # a step's flat metadata object

_SCALARS = frozenset({str, int, float, bool, type(None)})
# Root-step metadata flag saying the run used a fake clock, so `durationMs` is deterministic and kept.
FAKE_CLOCK_KEY = "fakeClock"


@dataclass
class ColumnsLoad:
    columns: TraceColumns | None
    error: str | None = None


def _keys_of(metadata: Sequence[Metadata | None]) -> set[str]:
    return set(chain.from_iterable(filter(None, metadata)))


def _values_of(metadata: Sequence[Metadata | None]) -> set[MetaValue]:
    present = list(filter(None, metadata))
    try:
        return set(chain.from_iterable(map(dict.values, present)))
    except TypeError:  # a value outside the schema (a list from an in-memory recorder): not a scalar fact
        return {v for v in chain.from_iterable(map(dict.values, present)) if type(v) in _SCALARS}


# --- the column view (what rules read) --------------------------------------------------------------


class StepLike(Protocol):
    """What `TraceColumns.from_steps` reads: TraceStep's attribute names (model steps, recorder steps)."""

    @property
    def id(self) -> str: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def sequence(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> StepKind: ...
    @property
    def status(self) -> StepStatus: ...
    @property
    def attempt(self) -> int | None: ...
    @property
    def input_tokens(self) -> float | int | None: ...
    @property
    def output_tokens(self) -> float | int | None: ...
    @property
    def duration_ms(self) -> float | int | None: ...
    @property
    def metadata(self) -> Metadata | None: ...


@dataclass
class TraceColumns:
    """One list per step field, index-aligned, in sequence order once normalized.

    Absent optional values are None. Build it once per trace; every rule reads it.
    """

    fixture: str
    status: StepStatus | None
    ids: list[str]
    parent_ids: list[str | None]
    sequences: list[int]
    names: list[str]
    kinds: list[StepKind]
    statuses: list[StepStatus]
    attempts: list[int | None]
    input_tokens: list[float | int | None]
    output_tokens: list[float | int | None]
    durations: list[float | int | None]
    metadata: list[Metadata | None]
    # Facts derived from whole columns, computed once and shared by integrity, normalization and
    # rules (a pass over a million scattered objects costs as much as the work done in it). The
    # columns are never changed once built, so these never go stale.
    # numbers_sound: set by a reader that proved, while reading, what integrity's number checks
    # check (every number finite, 0 <= n <= 2**53, attempts >= 1; docs/trace-gates.md §4).
    numbers_sound: bool = field(default=False, init=False, repr=False, compare=False)
    _roots: int | None = field(default=None, init=False, repr=False, compare=False)
    _increasing: bool | None = field(default=None, init=False, repr=False, compare=False)
    _canonical_ids: bool | None = field(default=None, init=False, repr=False, compare=False)
    _metadata_keys: set[str] | None = field(default=None, init=False, repr=False, compare=False)
    _metadata_values: set[MetaValue] | None = field(default=None, init=False, repr=False, compare=False)
    _parents: set[str] | None = field(default=None, init=False, repr=False, compare=False)
    _signature_buckets: dict[tuple[str, ...], list[int]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.names)

    def root_count(self) -> int:
        """How many steps have no parent."""
        if self._roots is None:
            self._roots = self.parent_ids.count(None)
        return self._roots

    def distinct_parents(self) -> set[str]:
        """Every non-null parent id, each once."""
        if self._parents is None:
            parents = set(self.parent_ids)
            parents.discard(None)  # the root's parent
            self._parents = cast("set[str]", parents)
        return self._parents

    def record_facts(self, *, roots: int, increasing: bool, canonical_ids: bool, parents: set[str],
                     metadata_keys: set[str], metadata_values: set[MetaValue]) -> None:
        """Set the derived facts a reader computed while it read the steps (fileload's layout
        reader, a piece of the file at a time); each is what the method of its name would compute."""
        self._roots = roots
        self._increasing = increasing
        self._canonical_ids = canonical_ids
        self._parents = parents
        self._metadata_keys = metadata_keys
        self._metadata_values = metadata_values

    def known_signature_buckets(self, keys: tuple[str, ...]) -> list[int] | None:
        """Each step's signature bucket for these metadata keys (`tftui.trace.facts.signature_buckets`),
        when a reader computed it; None otherwise."""
        return self._signature_buckets.get(keys)

    def record_signature_buckets(self, keys: tuple[str, ...], buckets: list[int]) -> None:
        self._signature_buckets[keys] = buckets

    def increasing(self) -> bool:
        """Sequences strictly ascending in array order (so unique, and already in normalized order)."""
        if self._increasing is None:
            seqs = self.sequences
            try:
                self._increasing = all(map(lt, seqs, islice(seqs, 1, None)))
            except TypeError:  # a value that is not a number (in-memory columns): not proven
                self._increasing = False
        return self._increasing

    def canonical_ids(self) -> bool:
        """Every id is `s<its sequence>`, the name normalization gives it (a trace tftui wrote)."""
        if self._canonical_ids is None:
            self._canonical_ids = self.ids == [f"s{q}" for q in self.sequences]
        return self._canonical_ids

    def metadata_keys(self) -> set[str]:
        """Every metadata key over all steps."""
        if self._metadata_keys is None:
            self._metadata_keys = _keys_of(self.metadata)
        return self._metadata_keys

    def metadata_values(self) -> set[MetaValue]:
        """Every distinct metadata value over all steps; values that compare equal are one (1, 1.0
        and True), which is all a check of "is any value bad" needs."""
        if self._metadata_values is None:
            self._metadata_values = _values_of(self.metadata)
        return self._metadata_values

    def summarize_shared_metadata(self) -> None:
        """Work out the metadata summary (`metadata_keys`, `metadata_values`) from each distinct
        metadata dict once: for columns whose steps share their dicts (a recorder's: a map's
        items hold one), where a pass over every step's dict reads the same one a thousand
        times. (A file's steps each have their own: there this would only add the dedupe.)"""
        distinct = list(dict(zip(map(id, self.metadata), self.metadata, strict=True)).values())
        self._metadata_keys, self._metadata_values = _keys_of(distinct), _values_of(distinct)

    def metadata_summary(self) -> tuple[set[str], set[MetaValue]]:
        """(`metadata_keys()`, `metadata_values()`)."""
        return self.metadata_keys(), self.metadata_values()

    def share_summaries(self, source: TraceColumns, *, same_metadata: bool) -> TraceColumns:
        """Carry `source`'s derived facts over to these columns (the same steps, sorted by sequence
        and renamed `s<sequence>`: the root count and the numbers' soundness stay, the ids are
        canonical, the sequences ascending when they were; the metadata summary stays when no
        metadata changed, and the signature buckets too when no step moved either)."""
        self._roots = source._roots
        self._parents = None  # renamed: `s<sequence>` of the parents, unless already so
        if source._canonical_ids:
            self._parents = source._parents
        self.numbers_sound = source.numbers_sound
        self._canonical_ids = True
        if source._increasing:
            self._increasing = True
        if same_metadata:
            self._metadata_keys = source._metadata_keys
            self._metadata_values = source._metadata_values
            if source._increasing:  # the same steps in the same order, with the same metadata
                self._signature_buckets = source._signature_buckets
        return self

    @classmethod
    def from_trace(cls, trace: AgentTrace) -> TraceColumns:
        return cls.from_steps(trace.steps, fixture=trace.fixture, status=trace.status)

    @classmethod
    def from_steps(cls, steps: Sequence[StepLike], *, fixture: str, status: StepStatus | None,
                   ids: list[str] | None = None, parent_ids: list[str | None] | None = None) -> TraceColumns:
        """Columns from objects with TraceStep's attribute names (model steps, recorder steps).
        `ids`/`parent_ids`: those columns when the caller has them already (the recorder makes
        them from sequence numbers, cheaper than its steps' two properties)."""
        return cls(
            fixture=fixture,
            status=status,
            ids=[s.id for s in steps] if ids is None else ids,
            parent_ids=[s.parent_id for s in steps] if parent_ids is None else parent_ids,
            sequences=[s.sequence for s in steps],
            names=[s.name for s in steps],
            kinds=[s.kind for s in steps],
            statuses=[s.status for s in steps],
            attempts=[s.attempt for s in steps],
            input_tokens=[s.input_tokens for s in steps],
            output_tokens=[s.output_tokens for s in steps],
            durations=[s.duration_ms for s in steps],
            metadata=[s.metadata for s in steps],
        )

    def record_numbering(self) -> None:
        """Said by a writer that numbered the steps itself (the recorder): the sequences ascend
        in array order and every id is `s<sequence>` (what `increasing` and `canonical_ids`
        would find, without a pass over the columns)."""
        self._increasing = True
        self._canonical_ids = True

    @classmethod
    def from_dicts(
        cls, steps: Sequence[StepJSON], *, fixture: str = "", status: StepStatus | None = "ok"
    ) -> TraceColumns:
        """Columns from plain camelCase step dicts (already trusted: tests, benchmarks, recorders)."""
        return cls(
            fixture=fixture,
            status=status,
            ids=[s["id"] for s in steps],
            parent_ids=[s.get("parentId") for s in steps],
            sequences=[s["sequence"] for s in steps],
            names=[s["name"] for s in steps],
            kinds=[s["kind"] for s in steps],
            statuses=[s["status"] for s in steps],
            attempts=[s.get("attempt") for s in steps],
            input_tokens=[s.get("inputTokens") for s in steps],
            output_tokens=[s.get("outputTokens") for s in steps],
            durations=[s.get("durationMs") for s in steps],
            metadata=[s.get("metadata") for s in steps],
        )
