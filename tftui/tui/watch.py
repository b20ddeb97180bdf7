"""Hot reload: watch the flow file and report each settled change once.

The watcher observes the flow's DIRECTORY, not the file, so editors that save by
rename or delete+recreate keep working; events are filtered to the flow's path.
`watchfiles` debounces bursts (a low `debounce` keeps reloads snappy); on top of
that a change whose bytes equal the last seen text is dropped, so the several
events one save produces lead to one reload.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tftui.admit import Admission, AdmitRules, admit_text, with_arg_names
from tftui.flow.load import LoadResult
from tftui.paths import read_regular_file


@dataclass
class Reload:
    path: str
    text: str
    result: LoadResult
    arg_warnings: list[str] = field(default_factory=list)  # the `--arg` names' warnings for this version
    # the admission to lint after the version is shown (None: linted already, or refused)
    pending_lint: Admission | None = field(default=None, repr=False)


def load_saved(
    text: str, path: str, rules: AdmitRules, *, lint: bool = True, previous: LoadResult | None = None
) -> Reload:
    """A saved version, admitted as `tftui run` and `tftui FLOW` admit the file (tftui/admit.py):
    the same checks, the same cwd-bridge refusal, the same `--arg` name check (a typo of a name
    the version declares refuses it), the same diagnostics; with the name check's warnings. Its
    phases are fingerprinted and its graph built here too (the watcher's thread), not when the UI
    thread diffs the versions. `lint=False`: the linter's warnings are left for `linted(reload)` (they never
    refuse a version, so its stale phases show without waiting for them). `previous`: the version
    before as loaded (a `Reload.result`): its unchanged phases are reused, not built and checked
    again (the same result either way, `load.LoadMemo`)."""
    from tftui.flow.graph import dag_of, phase_prints

    admission = admit_text(text, path, rules, lint=lint, previous=previous)
    result = with_arg_names(admission)
    if result.flow is not None:
        phase_prints(result.flow)
        dag_of(result.flow)  # the diff's downstream walk and a re-laid tree read it
    pending = admission if result.flow is not None and not admission.loaded.linted else None
    return Reload(path, text, result, admission.arg_names.warnings, pending)


def linted(reload: Reload) -> LoadResult:
    """The saved version's result with the linter's warnings, as `load_saved(..., lint=True)` gives it."""
    if reload.pending_lint is None:
        return reload.result
    return with_arg_names(reload.pending_lint.linted())


def read_flow_text(path: Path) -> str | None:
    """The file's text, or None while it does not exist (mid delete+recreate) or cannot be read
    as a flow (not a regular file, over the size limit: docs/inputs.md §2)."""
    from tftui.flow.load import MAX_FLOW_BYTES

    raw, _ = read_regular_file(path, MAX_FLOW_BYTES)
    return None if raw is None else raw.decode("utf-8", errors="replace")


class FlowWatcher:
    """Watches one flow file; `run()` calls `on_reload` for each real content change."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        on_reload: Callable[[Reload], Awaitable[None] | None],
        *,
        last_text: str | None = None,
        rules: AdmitRules | None = None,
        debounce_ms: int = 50,
        step_ms: int = 20,
        defer_lint: bool = False,
        previous: LoadResult | None = None,
    ) -> None:
        self.path = Path(path).resolve()
        # the last version loaded (`last_text`'s, when known): the next one reuses its unchanged phases
        self.previous = previous
        self.on_reload = on_reload
        # True: a version is reported before the linter ran (`Reload.pending_lint`, see `linted`)
        self.defer_lint = defer_lint
        self.last_text = last_text
        self.rules = rules if rules is not None else AdmitRules()  # the debugger's (commands/open_flow.py)
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.stop_event = asyncio.Event()

    def _matches(self, _change: Any, changed_path: str) -> bool:
        try:
            return Path(changed_path).resolve() == self.path
        except OSError:
            return False

    async def check(self) -> bool:
        """Re-read the file; report it if its text changed. Returns True when reported."""
        text = read_flow_text(self.path)
        if text is None or text == self.last_text:
            return False
        self.last_text = text
        # parsed and checked off the UI loop (a 2,000-phase flow takes a few hundred ms): keys
        # and repaints go on while it loads
        reload = await asyncio.to_thread(load_saved, text, str(self.path), self.rules, lint=not self.defer_lint,
                                         previous=self.previous)
        self.previous = reload.result
        outcome = self.on_reload(reload)
        if asyncio.iscoroutine(outcome):
            await outcome
        return True

    async def run(self) -> None:
        from watchfiles import awatch

        async for _changes in awatch(
            self.path.parent,
            watch_filter=self._matches,
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=self.stop_event,
            recursive=False,
            rust_timeout=500,
        ):
            await self.check()

    def stop(self) -> None:
        self.stop_event.set()
