"""The log filter's kind words (`/` then `kind:verdict`) cover every event the engine emits."""

from __future__ import annotations

from tftui.engine import events as ev
from tftui.present.events import KIND_WORDS, kind_matches, kind_problem


def test_every_engine_kind_has_a_word_and_its_own_name_matches() -> None:
    worded = {kind for kinds in KIND_WORDS.values() for kind in kinds}
    assert set(ev.EVENT_TYPES) <= worded, "a new event kind needs a word in KIND_WORDS"
    for kind in ev.EVENT_TYPES:
        assert kind_problem(f"kind:{kind}") is None
        assert kind_matches(kind, kind)


def test_a_misspelt_kind_is_named_with_a_suggestion() -> None:
    problem = kind_problem("kind:verdicts")
    assert problem is not None and "did you mean kind:verdict?" in problem
    assert kind_matches("verdict", "gate_verdict") and not kind_matches("verdict", "judge_called")
