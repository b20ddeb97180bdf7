"""Saving an edited flow back to disk: atomic, permission-keeping, and never over someone else's change.

The editor loads the file, remembers `text_fingerprint(loaded text)`, edits the text
surgically (tftui.flow.edit) and calls `save_flow_text(path, new_text, fingerprint)`.
The save re-reads the file first: if its content changed on disk since it was loaded
(another editor, a `git checkout`), it refuses and says so instead of overwriting.
The write goes to a temp file in the same directory, is fsynced, gets the original
file's permission bits, and replaces the file with `os.replace` (a reader sees the
old or the new file, never half of one).
"""

from __future__ import annotations

import glob
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

_BOM = b"\xef\xbb\xbf"


def text_fingerprint(content: str | bytes) -> str:
    """sha256 of the file bytes (text is encoded as UTF-8, as tftui writes it)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    return hashlib.sha256(data).hexdigest()


def file_fingerprint(path: str | os.PathLike[str]) -> str | None:
    """Fingerprint of the file as it is on disk now, None when it cannot be read."""
    try:
        return text_fingerprint(Path(path).read_bytes())
    except OSError:
        return None


@dataclass(frozen=True)
class SaveResult:
    ok: bool
    error: str | None = None
    fingerprint: str | None = None  # of the new content, to compare against on the next save
    changed: bool = False  # refused because the file changed (or went) since it was loaded


def _unchanged(current: bytes, expected: str) -> bool:
    """The file still holds what was loaded; the loader drops a UTF-8 BOM, so one may lead."""
    return text_fingerprint(current) == expected or (
        current.startswith(_BOM) and text_fingerprint(current[len(_BOM):]) == expected
    )


def save_flow_text(path: str | os.PathLike[str], new_text: str, expected: str | float | None) -> SaveResult:
    """Write `new_text` to `path` unless the file changed since it was loaded (docs/inputs.md §4).

    `expected` is the `text_fingerprint` of the content that was loaded (preferred), or
    the file's `st_mtime` when loaded (a float), or None to skip the check (new file).
    The content is checked again immediately before the file is replaced, so an editor's save
    that lands while tftui writes is not lost. The file keeps its byte-order mark, mode, owner,
    extended attributes and hard links. The temp file of a save killed mid-way is removed by the
    next save of the file.
    """
    target = Path(os.path.realpath(path))  # through a symlink: replace the file, keep the link
    try:
        current = target.read_bytes()
        info = target.stat()
    except FileNotFoundError:
        current, info = None, None
    except OSError as exc:
        return SaveResult(False, f"cannot read {path}: {exc.strerror or exc}")
    if expected is not None:
        if current is None:
            return SaveResult(False, f"{path} was deleted or moved since it was loaded", changed=True)
        if _changed(current, info, expected):
            return SaveResult(False, _CHANGED.format(path=path), changed=True)
    data = new_text.encode("utf-8", "surrogatepass")
    if current is not None and current.startswith(_BOM) and not data.startswith(_BOM):
        data = _BOM + data  # keep the author's byte-order mark
    _sweep(target)
    try:
        if info is not None and info.st_nlink > 1:  # another name links this inode: write in place
            problem = _write_in_place(target, data, current, expected, path)
        else:
            problem = _write_and_replace(target, data, info, current, expected, path)
    except OSError as exc:
        return SaveResult(False, f"cannot write {path}: {exc.strerror or exc}")
    if problem is not None:
        return SaveResult(False, problem, changed=True)  # the writers' only problem: a change meanwhile
    return SaveResult(True, None, text_fingerprint(data))


# The fact only: each caller says it did not save and what to do, which depends on where it is
# (the debugger reloads a changed file itself; the guard editor is reopened on it).
_CHANGED = "{path} changed on disk since it was loaded"
_TMP_MARK = ".tftui-save-"


def _changed(current: bytes, info: os.stat_result | None, expected: str | float | None) -> bool:
    if expected is None:
        return False
    if isinstance(expected, str):
        return not _unchanged(current, expected)
    return info is not None and info.st_mtime != expected


def _lock(fd: int) -> None:
    """An advisory lock on the flow file: two tftui saves never interleave (editors do not lock)."""
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def _recheck(fd: int, before: bytes | None, expected: str | float | None) -> bool:
    """The file behind `fd` still holds `before` (the bytes read at the start of the save)."""
    if before is None or expected is None:
        return True
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks) == before


def _write_in_place(target: Path, data: bytes, before: bytes | None, expected: str | float | None,
                    shown: str | os.PathLike[str]) -> str | None:
    fd = os.open(target, os.O_RDWR)
    try:
        _lock(fd)
        if not _recheck(fd, before, expected):
            return _CHANGED.format(path=shown)
        os.lseek(fd, 0, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)
    return None


def _write_and_replace(target: Path, data: bytes, info: os.stat_result | None, before: bytes | None,
                       expected: str | float | None, shown: str | os.PathLike[str]) -> str | None:
    """The new bytes in a temp file beside the target, given the target's mode, owner and
    xattrs, then renamed over it while the target is locked and re-checked."""
    tmp = target.with_name(f".{target.name}{_TMP_MARK}{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        _copy_attributes(fd, info)
        if info is not None:
            _copy_xattrs(target, fd)
    finally:
        os.close(fd)
    try:
        guard = os.open(target, os.O_RDONLY) if info is not None else None
        try:
            if guard is not None:
                _lock(guard)
                if not _recheck(guard, before, expected):
                    return _CHANGED.format(path=shown)
            os.replace(tmp, target)
        finally:
            if guard is not None:
                os.close(guard)
    finally:
        if tmp.exists():
            tmp.unlink()
    return None


def _copy_attributes(fd: int, info: os.stat_result | None) -> None:
    """Mode, owner (when this user may set it) and extended attributes of the file being replaced."""
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644 & ~_umask()
    os.fchmod(fd, mode)
    if info is None:
        return
    try:
        os.fchown(fd, info.st_uid, info.st_gid)
    except OSError:
        pass  # not ours to give away: the file keeps this user's ownership (as any editor's save)


def _copy_xattrs(source: Path, fd: int) -> None:
    listxattr = getattr(os, "listxattr", None)
    if listxattr is None:
        return
    try:
        names = listxattr(source)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(source, name))
        except OSError:
            pass


def _sweep(target: Path) -> None:
    """Remove what an earlier save killed mid-way left beside the file (our own name pattern only)."""
    try:
        leftovers = list(target.parent.glob(f".{glob.escape(target.name)}{_TMP_MARK}*.tmp"))
    except OSError:
        return
    for leftover in leftovers:
        pid = leftover.name.rsplit(_TMP_MARK, 1)[-1].removesuffix(".tmp")
        if pid.isdigit() and _alive(int(pid)):
            continue  # another process is saving this file right now
        try:
            leftover.unlink()
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process is not saving it now: a leftover of a killed save in an earlier one
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_edit(path: str | os.PathLike[str], loaded_text: str, edited_text: str | None, error: str | None = None) -> SaveResult:
    """Save the result of a tftui.flow.edit function (`EditResult.text`/`.error`) over the
    file that `loaded_text` was read from, refusing if the file changed since."""
    if edited_text is None:
        return SaveResult(False, error or "the edit could not be applied")
    return save_flow_text(path, edited_text, text_fingerprint(loaded_text))
