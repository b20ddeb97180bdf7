"""`tftui config` reports a `[keys]` remap onto a key another verb (or the app) uses: an error
naming the file, the remap, the verb that has the key and the key the verb keeps (exit 2);
`--set` refuses such a remap. The same rule decides what the TUI binds (tftui.tui.keymap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tftui.config_schema import key_clashes


def write_user_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xdg" / "tftui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_remap_onto_another_verbs_default_key_is_an_error(tftui, tmp_path):
    path = write_user_file(tmp_path, '[keys]\nrun = "x"\nstep = "f10"\n')
    done = tftui("config")
    assert done.code == 2
    assert done.stderr.splitlines() == [
        f'tftui config: error: {path}: keys.run = "x": x is already the key of export_bundle'
        " — remap ignored, run stays on c",
    ]


def test_two_remaps_onto_one_key_the_later_is_refused(tftui, tmp_path):
    path = write_user_file(tmp_path, '[keys]\npause = "f9"\nstep = "f9"\n')
    done = tftui("config")
    assert done.code == 2
    assert (f'tftui config: error: {path}: keys.step = "f9": f9 is already the key of pause'
            " — remap ignored, step stays on n or s") in done.stderr.splitlines()


def test_set_onto_a_reserved_key_is_refused(tftui):
    done = tftui("config", "--set", "keys.help=tab")
    assert done.code == 2 and done.stdout == ""
    assert done.stderr == ('tftui config: --set keys.help=tab refused: keys.help = "tab": '
                           "tab is reserved for focus\n")


def test_set_onto_a_used_key_is_refused(tftui, tmp_path):
    write_user_file(tmp_path, '[keys]\nstep = "f10"\n')
    done = tftui("config", "--set", "keys.pause=f10")
    assert done.code == 2 and done.stdout == ""
    assert done.stderr == ('tftui config: --set keys.pause=f10 refused: keys.pause = "f10": '
                           "f10 is already the key of step\n")


def test_swap_and_free_keys_are_fine(tftui, tmp_path):
    write_user_file(tmp_path, '[keys]\nrun = "n"\nstep = "c"\nhelp = "h"\n')
    done = tftui("config")
    assert done.code == 0, done.stderr
    assert "error" not in done.stderr


@pytest.mark.parametrize(
    ("remaps", "accepted", "refused"),
    [
        ({"run": "x"}, {}, {"run": "x is already the key of export_bundle"}),
        ({"run": "?"}, {}, {"run": "? is already the key of help"}),
        ({"help": "h", "run": "?"}, {"help": "h", "run": "?"}, {}),
        ({"run": "s"}, {}, {"run": "s is already the key of step"}),
        ({"step": "s"}, {"step": "s"}, {}),
        ({"run": "f5, ctrl+p"}, {}, {"run": "ctrl+p is reserved for the command palette"}),
        ({"run": "?", "help": "c"}, {"run": "?", "help": "c"}, {}),  # a swap
        # refusing `help = "x"` leaves help on `?`, which `run = "?"` wanted: refused in turn
        ({"run": "?", "help": "x"}, {}, {"run": "? is already the key of help",
                                         "help": "x is already the key of export_bundle"}),
    ],
)
def test_key_clashes(remaps, accepted, refused):
    got_accepted, got_refused = key_clashes(remaps)
    assert got_accepted == accepted
    assert got_refused == refused
