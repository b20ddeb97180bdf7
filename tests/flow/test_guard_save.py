"""Guard save (issue 17, fault 10; docs/inputs.md §4): a saved edit keeps the file's BOM, mode,
owner, hard links and extended attributes, never overwrites an editor's save that lands while
tftui writes, and leaves no temp file behind, even when killed mid-save."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tftui.flow.save as save
from tftui.flow.edit import set_when
from tftui.flow.load import load_flow

FLOW = '{\n  "name": "g",\n  "phases": [\n    {"id": "a", "type": "agent", "agent": "x", "task": "hi"}\n  ]\n}\n'


def _edit(path: Path) -> save.SaveResult:
    """What the guard editor does: load (the loader drops a BOM), edit the text, save over the file."""
    loaded = load_flow(path).source_text
    edited = set_when(loaded, "a", "args.x == 1")
    return save.save_edit(path, loaded, edited.text, edited.error)


def test_a_file_with_a_bom_saves_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"\xef\xbb\xbf" + FLOW.encode())
    result = _edit(path)
    assert result.ok, result.error
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b'"when": "args.x == 1"' in data


def test_mode_hard_links_and_inode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    os.chmod(path, 0o640)
    other = tmp_path / "other-name.json"
    os.link(path, other)
    inode = path.stat().st_ino
    assert _edit(path).ok
    assert path.stat().st_ino == inode and other.read_text() == path.read_text()
    assert "args.x == 1" in other.read_text()
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)


def test_mode_is_kept_when_the_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    os.chmod(path, 0o600)
    assert _edit(path).ok
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="giving a file away needs root")
def test_the_owner_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    os.chown(path, 4321, 4322)
    assert _edit(path).ok
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4322)


def test_extended_attributes_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    try:
        os.setxattr(path, "user.tftui-test", b"kept")
    except (OSError, AttributeError):
        pytest.skip("this filesystem has no user extended attributes")
    assert _edit(path).ok
    assert os.getxattr(path, "user.tftui-test") == b"kept"


def test_an_editors_save_landing_during_the_write_is_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    editors = FLOW.replace('"hi"', '"the editor\'s text"')
    real = save._copy_attributes

    def editor_saves_now(fd: int, info: os.stat_result | None) -> None:  # after the check, before the rename
        tmp = path.with_name("editor-swap")
        tmp.write_text(editors)
        os.replace(tmp, path)  # as editors save: a new file renamed over the old one
        real(fd, info)

    monkeypatch.setattr(save, "_copy_attributes", editor_saves_now)
    result = _edit(path)
    assert not result.ok and "changed on disk since it was loaded" in (result.error or "")
    assert path.read_text() == editors
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]  # no temp file left


def test_a_save_killed_mid_way_leaves_no_temp_file_after_the_next_save(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(FLOW)
    killed = subprocess.run([sys.executable, "-c", f"""
import os, signal
import tftui.flow.save as save
from tftui.flow.edit import set_when
from tftui.flow.load import load_flow
os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # killed just before the rename
path = {str(path)!r}
loaded = load_flow(path).source_text
save.save_edit(path, loaded, set_when(loaded, "a", "true").text)
"""], capture_output=True, timeout=60)
    assert killed.returncode == -9
    assert len(list(tmp_path.iterdir())) == 2  # the killed save's temp file, beside the flow
    assert path.read_text() == FLOW  # the flow itself is whole
    assert _edit(path).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]
