"""One verb registry (tftui.verbs) for the debugger, the replay screen and `tftui config`: the
replay's own keys are remappable verbs, and key clashes are checked per screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.config_schema import key_clashes, key_names
from tftui.verbs import SCREENS, VERBS, bound_in, verbs_for


@pytest.mark.parametrize("screen", SCREENS)
def test_no_two_verbs_a_screen_binds_share_a_default_key(screen):
    owners: dict[str, str] = {}
    for verb in bound_in(screen):
        for key in key_names(verb.key):
            assert key not in owners, f"{screen}: {key} is the key of {owners[key]} and {verb.id}"
            owners[key] = verb.id


def test_the_replay_screen_has_its_own_verbs_and_keeps_the_shared_ones():
    replay = {v.id for v in verbs_for("replay")}
    assert {"replay_next", "replay_back", "replay_to_start", "replay_seek", "help", "quit", "trace_tab"} <= replay
    assert not {"run", "step", "restart"} & replay  # the replay is read-only
    assert {"run", "restart"} <= {v.id for v in bound_in("replay")}  # ... but their keys say so
    assert len({v.id for v in VERBS}) == len(VERBS)


@pytest.mark.parametrize(
    ("remaps", "accepted", "refused"),
    [
        # g is the replay's "go to start": a verb that also acts in the replay cannot take it
        ({"cycle_theme": "g"}, {}, {"cycle_theme": "g is already the key of replay_to_start"}),
        ({"replay_back": "t"}, {}, {"replay_back": "t is already the key of cycle_theme"}),
        ({"replay_back": "n"}, {}, {"replay_back": "n is already the key of replay_next"}),
        # run is only read-only in the replay, step does not exist there: no clash
        ({"run": "g"}, {"run": "g"}, {}),
        ({"step": "N"}, {"step": "N"}, {}),
        ({"replay_back": "c"}, {"replay_back": "c"}, {}),
        ({"replay_back": "f9", "replay_next": "f9"}, {"replay_back": "f9"},
         {"replay_next": "f9 is already the key of replay_back"}),
    ],
)
def test_clashes_are_checked_on_each_screen(remaps, accepted, refused):
    assert key_clashes(remaps) == (accepted, refused)


def test_tftui_config_takes_replay_verbs_and_suggests_them(tftui, tmp_path: Path):
    ok = tftui("config", "--set", "keys.replay_back=f9")
    assert ok.code == 0, ok.stderr
    typo = tftui("config", "--set", "keys.replay_bak=f9")
    assert typo.code == 2 and "unknown verb 'replay_bak' — did you mean 'replay_back'?" in typo.stderr
    clash = tftui("config", "--set", "keys.replay_back=t")
    assert clash.code == 2 and "t is already the key of cycle_theme" in clash.stderr
