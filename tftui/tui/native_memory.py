"""The C allocator under the debugger (issue 18: resident memory flat over re-runs, README
"Large flows").

Every run goes on a worker thread of its own, and glibc's malloc gives a new thread an arena of
its own (up to 8 per core) whose freed pages mostly stay with the process: over 20 re-runs of a
1,000-item map the resident size grew 9.7 % while the objects Python keeps grew ~2 MB. One arena
for the process (the GIL lets one thread run Python at a time, so they seldom contend for it)
and a trim after each run kept it to +4.4 % (benchmarks/tui.py --only memory). Elsewhere (no
glibc) both are no-ops. Never raises.
"""

from __future__ import annotations

import ctypes

_M_ARENA_MAX = -8  # glibc's mallopt parameter number
_libc: ctypes.CDLL | None = None
_loaded = False


def _glibc() -> ctypes.CDLL | None:
    global _libc, _loaded
    if not _loaded:
        _loaded = True
        try:
            lib = ctypes.CDLL(None)
            _libc = lib if hasattr(lib, "mallopt") and hasattr(lib, "malloc_trim") else None
        except (OSError, TypeError, AttributeError):  # no C library to open (e.g. Windows): a no-op
            _libc = None
    return _libc


def one_arena() -> None:
    """Threads started from now on share the allocator's main arena."""
    lib = _glibc()
    if lib is not None:
        lib.mallopt(_M_ARENA_MAX, 1)


def trim() -> None:
    """Give the pages the allocator holds free back to the system (a few ms; after a run)."""
    lib = _glibc()
    if lib is not None:
        lib.malloc_trim(0)
