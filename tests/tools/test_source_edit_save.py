"""Writing what-if edits into the flow source: only the changed bytes move; saves are atomic and safe."""

from __future__ import annotations

import os
import stat

from tftui.engine.whatif import (
    REMOVE,
    ScoreOverrides,
    apply_score_edit_to_source,
    save_flow_text,
    text_fingerprint,
)
from tftui.flow.load import load_flow_text

SOURCE = """// gate tuning notes: keep weights in sync with scorers
{
  "name":"odd",   "phases" : [
    { "id": "gen", "task": "write" },   // first
    {
        "id" :  "g",
        "type": "gate", "dependsOn": ["gen"],
        "score": {
            /* scorers, in review order */
            "scorers": [
                {"type": "contains",   "value": "alpha"},  // A
                { "type": "length-range", "min": 10,
                  "max": 900 }
            ],
            "combine": "weighted",
            "weights": [ 0.6 ,0.4 ],   // sum 1.0
            "threshold": 0.50
        }
    }
  ]
}
"""


def test_threshold_weight_and_scorer_edits_touch_only_their_values():
    over = ScoreOverrides(threshold=0.7, weights={1: 0.25}, scorers={0: {"value": "al\"pha"}, 1: {"max": 1000}})
    edited = apply_score_edit_to_source(SOURCE, "g", over)
    assert edited.error is None
    expected = (
        SOURCE.replace('"threshold": 0.50', '"threshold": 0.7')
        .replace("0.6 ,0.4 ]", "0.6 ,0.25 ]")
        .replace('"value": "alpha"', '"value": "al\\"pha"')
        .replace('"max": 900 }', '"max": 1000 }')
    )
    assert edited.text == expected
    score = load_flow_text(edited.text).flow.phase("g").score
    assert score["threshold"] == 0.7 and score["weights"] == [0.6, 0.25]
    assert score["scorers"][0]["value"] == 'al"pha' and score["scorers"][1]["max"] == 1000


def test_insert_and_remove_members_keep_layout():
    no_threshold = SOURCE.replace(',   // sum 1.0\n            "threshold": 0.50', "   // sum 1.0")
    assert load_flow_text(no_threshold).flow is not None
    edited = apply_score_edit_to_source(no_threshold, "g", ScoreOverrides(threshold=0.65)).text
    assert edited == no_threshold.replace("0.4 ]", '0.4 ],\n            "threshold": 0.65')
    assert load_flow_text(edited).flow.phase("g").score["threshold"] == 0.65
    removed = apply_score_edit_to_source(SOURCE, "g", ScoreOverrides(scorers={1: {"min": REMOVE}})).text
    assert removed == SOURCE.replace('"min": 10,\n                  ', "")
    assert "min" not in load_flow_text(removed).flow.phase("g").score["scorers"][1]


def test_edit_errors_are_returned_not_raised():
    assert "no phase with id 'nope'" in apply_score_edit_to_source(SOURCE, "nope", ScoreOverrides(threshold=0.7)).error
    missing = apply_score_edit_to_source(SOURCE, "g", ScoreOverrides(weights={5: 1}))
    assert missing.text is None and "weights[5]" in missing.error
    shorthand = apply_score_edit_to_source('{"steps": ["a"]}', "a", ScoreOverrides(threshold=0.7))
    assert shorthand.text is None
    broken = apply_score_edit_to_source('{"phases": [', "g", ScoreOverrides(threshold=0.7))
    assert broken.text is None and "does not parse" in broken.error
    assert apply_score_edit_to_source(SOURCE, "g", ScoreOverrides()).text == SOURCE


def test_save_is_atomic_and_keeps_permissions(tmp_path):
    path = tmp_path / "flow.json"
    path.write_text(SOURCE, encoding="utf-8")
    os.chmod(path, 0o640)
    loaded = path.read_text(encoding="utf-8")
    new_text = apply_score_edit_to_source(loaded, "g", ScoreOverrides(threshold=0.7)).text
    result = save_flow_text(path, new_text, text_fingerprint(loaded))
    assert result.ok and result.error is None and result.fingerprint == text_fingerprint(new_text)
    assert path.read_text(encoding="utf-8") == new_text
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flow.json"]  # no temp file left behind
    # the fingerprint returned by a save is the one to pass to the next save
    again = save_flow_text(path, SOURCE, result.fingerprint)
    assert again.ok


def test_save_refuses_when_the_file_changed_on_disk(tmp_path):
    path = tmp_path / "flow.json"
    path.write_text(SOURCE, encoding="utf-8")
    loaded_print = text_fingerprint(path.read_bytes())
    someone_else = SOURCE.replace("first", "edited elsewhere")
    path.write_text(someone_else, encoding="utf-8")
    result = save_flow_text(path, "{}", loaded_print)
    assert not result.ok and result.changed
    assert result.error == f"{path} changed on disk since it was loaded"  # the caller says what to do
    assert path.read_text(encoding="utf-8") == someone_else
    path.unlink()
    gone = save_flow_text(path, "{}", loaded_print)
    assert not gone.ok and gone.changed and gone.error == f"{path} was deleted or moved since it was loaded"
    assert not path.exists()


def test_save_through_a_symlink_replaces_the_target(tmp_path):
    real = tmp_path / "real.json"
    real.write_text(SOURCE, encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert save_flow_text(link, "{}\n", text_fingerprint(SOURCE)).ok
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "{}\n"


def test_guard_edit_saved_with_save_edit(tmp_path):
    from tftui.flow.edit import set_when
    from tftui.flow.save import save_edit

    path = tmp_path / "flow.json"
    path.write_text(SOURCE, encoding="utf-8")
    loaded = path.read_text(encoding="utf-8")
    edit = set_when(loaded, "g", "{steps.gen.output} != \"\"")
    assert save_edit(path, loaded, edit.text, edit.error).ok
    assert load_flow_text(path.read_text(encoding="utf-8")).flow.phase("g").when == '{steps.gen.output} != ""'
    failed = set_when(loaded, "nope", "true")
    result = save_edit(path, loaded, failed.text, failed.error)
    assert not result.ok and result.error == "no phase with id 'nope'"
    stale = save_edit(path, loaded, set_when(loaded, "g", "true").text)  # file changed by the first save
    assert not stale.ok and "changed on disk" in stale.error
