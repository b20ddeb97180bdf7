"""trace.json as dump_columns writes it (common steps formatted by hand, a metadata dict shared by
several steps encoded once, and what follows their names formatted once while it stays the same) is, byte for byte, each step encoded by json.JSONEncoder(ensure_ascii=False)
one per line; and a change to one call's metadata in the recorder stays that call's."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tftui.engine import events as ev
from tftui.trace.columns import TraceColumns
from tftui.trace.model import dump_columns
from tftui.trace.record import trace_columns_from_events

_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _oracle(cols: TraceColumns) -> str:
    lines = []
    for i, p, q, n, k, st_, a, it, ot, d, m in zip(
        cols.ids, cols.parent_ids, cols.sequences, cols.names, cols.kinds, cols.statuses, cols.attempts,
        cols.input_tokens, cols.output_tokens, cols.durations, cols.metadata, strict=True,
    ):
        out: dict[str, object] = {"id": i, "parentId": p, "sequence": q, "name": n, "kind": k, "status": st_}
        for key, value in (("attempt", a), ("inputTokens", it), ("outputTokens", ot), ("durationMs", d),
                           ("metadata", m)):
            if value is not None:
                out[key] = value
        lines.append("    " + _ENCODE(out))
    head = ",\n".join(f"  {json.dumps(k)}: {_ENCODE(v)}" for k, v in
                      {"schemaVersion": 1, "fixture": cols.fixture, "status": cols.status}.items())
    body = '  "steps": [\n' + ",\n".join(lines) + "\n  ]" if lines else '  "steps": []'
    return "{\n" + head + ",\n" + body + "\n}\n"


_numbers = st.one_of(st.none(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.booleans())
_scalar = st.one_of(st.none(), st.text(max_size=8), st.booleans(), st.integers(), st.floats(allow_nan=True))
_meta = st.one_of(st.none(), st.dictionaries(st.text(max_size=6), _scalar, max_size=4))


@st.composite
def _columns(draw: st.DrawFn) -> TraceColumns:
    n = draw(st.integers(0, 8))
    texts = st.text(max_size=10)
    if draw(st.booleans()):  # what the recorder writes: ints or nothing, its calls' metadata
        numbers, sequence = st.one_of(st.none(), st.integers(0, 2**40)), st.integers(0, 2**40)
        meta = st.fixed_dictionaries({"phase": texts, "phaseType": texts, "transient": st.booleans()})
    else:
        numbers, sequence, meta = _numbers, st.one_of(st.integers(-5, 2**64), st.booleans()), _meta
    shared = draw(meta)  # one dict several steps hold (the recorder's calls of a phase)
    sequences = [draw(sequence) for _ in range(n)]
    # the recorder's ids (`s<sequence>`), or any text
    ids = [f"s{q}" for q in sequences] if draw(st.booleans()) else [draw(texts) for _ in range(n)]
    # a finite duration (0.0 and -0.0, 1 and 1.0 are equal keys but written apart), any number, none
    durations = st.one_of(numbers, st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1, 1.0]))
    return TraceColumns(
        fixture=draw(texts), status=draw(st.sampled_from(["ok", "error", None])),
        ids=ids,
        parent_ids=[draw(st.one_of(st.none(), texts)) for _ in range(n)],
        sequences=sequences,
        names=[draw(texts) for _ in range(n)],
        kinds=[draw(st.sampled_from(["run", "model", "tool"])) for _ in range(n)],
        statuses=[draw(st.sampled_from(["ok", "error", "cancelled"])) for _ in range(n)],
        attempts=[draw(numbers) for _ in range(n)],
        input_tokens=[draw(numbers) for _ in range(n)],
        output_tokens=[draw(numbers) for _ in range(n)],
        durations=[draw(durations) for _ in range(n)],
        metadata=[shared if draw(st.booleans()) else draw(st.one_of(meta, _meta)) for _ in range(n)],
    )


@settings(max_examples=500)
@given(_columns())
def test_dump_columns_is_each_step_encoded_by_json(cols: TraceColumns) -> None:
    assert dump_columns(cols) == _oracle(cols)


def test_steps_alike_but_for_a_duration_that_compares_equal_are_written_apart() -> None:
    """0.0 and -0.0, 1 and 1.0 are equal (one key) but JSON writes them apart."""
    meta = {"phase": "m", "phaseType": "map", "transient": False}
    durations: list[float | int | None] = [0.0, -0.0, 1, 1.0, None]
    n = len(durations)
    cols = TraceColumns(
        fixture="f", status="ok", ids=[f"s{q}" for q in range(n)], parent_ids=[None] + ["s0"] * (n - 1),
        sequences=list(range(n)), names=[f"m#item-{q}" for q in range(n)], kinds=["model"] * n,
        statuses=["ok"] * n, attempts=[1] * n, input_tokens=[None] * n, output_tokens=[None] * n,
        durations=durations, metadata=[meta] * n,
    )
    written = dump_columns(cols)
    assert written == _oracle(cols)
    assert [step.get("durationMs") for step in json.loads(written)["steps"]] == durations
    assert '"durationMs": -0.0,' in written and '"durationMs": 1,' in written


def test_one_timed_out_item_changes_only_its_own_step() -> None:
    events: list[ev.Event] = [ev.RunStarted(flow_name="f", phase_types={"m": "map"}), ev.PhaseStarted(phase_id="m",
                                                                                                   phase_type="map")]
    for i in range(3):
        events.append(ev.AttemptStarted(phase_id="m", node_path=f"m#item-{i}", prompt=f"p{i}"))
    events.append(ev.AgentReturned(phase_id="m", node_path="m#item-0", output="ok"))
    events.append(ev.AgentReturned(phase_id="m", node_path="m#item-1", output="", timed_out=True, exit_code=1))
    events.append(ev.AttemptFailed(phase_id="m", node_path="m#item-2", error="bad", why="contract", transient=True))
    events.append(ev.RunFinished(status="failed"))
    cols = trace_columns_from_events(events, "f")
    by_name = dict(zip(cols.names, cols.metadata, strict=True))
    assert by_name["m#item-0"] == {"phase": "m", "phaseType": "map", "transient": False}
    assert by_name["m#item-1"] == {"phase": "m", "phaseType": "map", "transient": False, "timedOut": True}
    assert by_name["m#item-2"] == {"phase": "m", "phaseType": "map", "transient": True, "failure": "contract"}
    assert list(by_name["m#item-2"]) == ["phase", "phaseType", "transient", "failure"]
