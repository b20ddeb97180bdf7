"""`tftui check --arg` (and `tftui run --arg`) of a flow with a phase of an unknown type reports
that phase and the `--arg` names and nothing else: the walk of the flow's strings for
`{args.NAME}` (admit.known_arg_names) no longer lets pydantic print its serializer warnings."""

from __future__ import annotations

import json
import warnings

from tftui.admit import arg_name_check
from tftui.flow.load import load_flow_text

FLOW = {"name": "unknown-type", "phases": [{"id": "draft", "type": "agnet", "task": "write {args.topic}"}]}


def test_the_arg_names_of_a_flow_with_an_unknown_phase_type_are_found_without_a_warning() -> None:
    model = load_flow_text(json.dumps(FLOW)).model
    assert model is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check = arg_name_check(model, {"topic": "x", "mode": "y"})
    assert check.errors == []
    assert len(check.warnings) == 1 and "'mode'" in check.warnings[0]  # topic is used: no word about it
