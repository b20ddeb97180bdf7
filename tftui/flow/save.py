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

import hashlib
import os
import stat
import tempfile
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


def save_flow_text(path: str | os.PathLike[str], new_text: str, expected: str | float | None) -> SaveResult:
    """Write `new_text` to `path` atomically unless the file changed since it was loaded.

    `expected` is the `text_fingerprint` of the content that was loaded (preferred), or
    the file's `st_mtime` when loaded (a float), or None to skip the check (new file).
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
            return SaveResult(False, f"{path} was deleted or moved since it was loaded; not saved")
        if isinstance(expected, str):
            changed = text_fingerprint(current) != expected
        else:
            changed = info is not None and info.st_mtime != expected
        if changed:
            return SaveResult(
                False,
                f"{path} changed on disk since it was loaded; not saved — reload the file and apply the edit again",
            )
    data = new_text.encode("utf-8")
    if current is not None and current.startswith(_BOM) and not data.startswith(_BOM):
        data = _BOM + data  # keep the author's byte-order mark
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        return SaveResult(False, f"cannot write to {target.parent}: {exc.strerror or exc}")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return SaveResult(False, f"cannot write {path}: {exc.strerror or exc}")
    return SaveResult(True, None, text_fingerprint(data))


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
