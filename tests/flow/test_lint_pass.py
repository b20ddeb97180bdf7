"""The linter's pass reads what the load worked out (tftui/flow/load.py `lint_loaded`): each
phase's interpolated fields are listed once per load, for the checks' reference scan and the
linter alike, and the text's positions are worked out once, whether the linter runs in the load
(`tftui check`) or after it (`Admission.linted()`: the debugger, `tftui run`)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tftui.flow import checks, lint, load
from tftui.flow.jsonpos import Locator
from tftui.flow.load import lint_loaded, load_flow_text

FLOW = json.dumps(
    {
        "name": "pass",
        "args": {"topic": {"type": "string", "default": "x"}},
        "phases": [
            {"id": "a", "agent": "w", "task": "Start {args.topic}"},
            {"id": "b", "agent": "w", "dependsOn": ["a"], "task": "Use {steps.a.outptu}"},
            {"id": "c", "agent": "zz", "dependsOn": ["b"], "task": "End {steps.b.output}", "when": "{args.tpoic} == x"},
        ],
    },
    indent=2,
)


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each phase's fields were listed, by phase id (the checks and the linter both)."""
    seen: Counter[str] = Counter()
    real = lint.interpolated_fields

    def counting(phase):  # type: ignore[no-untyped-def]
        seen[phase.id] += 1
        return real(phase)

    monkeypatch.setattr(lint, "interpolated_fields", counting)
    monkeypatch.setattr(checks, "interpolated_fields", counting)
    return seen


@pytest.fixture
def locators(monkeypatch: pytest.MonkeyPatch) -> list[Locator]:
    made: list[Locator] = []

    class Counted(Locator):
        def __init__(self, text: str) -> None:
            super().__init__(text)
            made.append(self)

    monkeypatch.setattr(load, "Locator", Counted)
    return made


def test_the_fields_are_listed_once_per_phase_with_the_linter_in_the_load(listed: Counter[str]) -> None:
    result = load_flow_text(FLOW, lint=True, agents=["w"])
    assert [d for d in result.diagnostics if not d.is_error]  # the linter ran and found the typos
    assert listed == {"a": 1, "b": 1, "c": 1}


def test_a_later_pass_lists_no_field_again_and_reads_the_loads_positions(
    listed: Counter[str], locators: list[Locator]
) -> None:
    loaded = load_flow_text(FLOW, agents=["w"])
    assert listed == {"a": 1, "b": 1, "c": 1} and len(locators) == 1
    later = lint_loaded(loaded, ["w"])
    assert listed == {"a": 1, "b": 1, "c": 1} and len(locators) == 1
    assert later.locator is None and later.fields is None  # let go once read


def test_a_later_pass_finds_what_the_pass_in_the_load_finds() -> None:
    now = load_flow_text(FLOW, lint=True, agents=["w"])
    later = lint_loaded(load_flow_text(FLOW), ["w"])
    assert [d.format("f") for d in later.diagnostics] == [d.format("f") for d in now.diagnostics]
    assert len(now.warnings) >= 3
