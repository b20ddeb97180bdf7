"""Answers as they stream in: the live-text callback's buffer (README "Real agents").

A streaming runner (`tftui.agents.openai`, `tftui.agents.command`) calls `LiveText.add(node_path,
text)` for every piece of an answer as it arrives, from the engine's thread. A front end reads
the buffer at its own pace (the debugger: at most ~10 times a second, `take_changed`), so a
100 KB answer in thousands of pieces costs one repaint per tick, not one per piece. A call's
live text is dropped once its answer is in the run state (`clear_done`, on AgentReturned and
AttemptFailed; `clear_phase` on PhaseFinished), and a piece that arrives after its attempt ended
is not shown.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tftui.redaction import redact_known

TAIL_CHARS = 200  # what a one-line view (the tree's live sub-line) looks at


def phase_of(node_path: str) -> str:
    """The tree's phase of a call: `map#item-2` -> `map`; `research/summarize#item-1` -> `research/summarize`."""
    return node_path.split("#", 1)[0]


class LiveText:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[str, list[str]] = {}
        self._changed: set[str] = set()
        self.first_arrival: dict[str, float] = {}  # node path -> perf_counter() of its first piece
        # attempt generations, told in the engine's own order (`begin`/`end`, from its thread), so a
        # front end that folds events later never drops the text of a newer attempt (`clear_done`)
        self._gen: dict[str, int] = {}
        self._done: dict[str, int] = {}
        # called (from the adding thread) when a call's first piece arrives: a front end draws
        # the start of an answer at once instead of at its next tick
        self.on_first: Callable[[], object] | None = None

    def add(self, node_path: str, text: str) -> None:
        """The live-text callback (any thread): one more piece of `node_path`'s answer."""
        if not text:
            return
        with self._lock:
            gen = self._gen.get(node_path)
            if gen is not None and self._done.get(node_path) == gen:
                return  # the attempt's answer is in: a late piece (a reader draining) is not shown again
            parts = self._parts.get(node_path)
            first = parts is None
            if parts is None:
                self._parts[node_path] = [text]
                self.first_arrival.setdefault(node_path, time.perf_counter())
            else:
                parts.append(text)
            self._changed.add(phase_of(node_path))
        if first and self.on_first is not None:
            try:
                self.on_first()
            except Exception:
                pass  # a display hook must never fail the model call

    def take_changed(self) -> set[str]:
        """The phases whose live text grew since the last call."""
        with self._lock:
            changed, self._changed = self._changed, set()
        return changed

    def text(self, node_path: str) -> str:
        """The call's answer so far, with every known secret masked: the runners mask only the
        final answer, and a secret split across pieces is whole only in the joined text."""
        with self._lock:
            parts = self._parts.get(node_path)
            if not parts:
                return ""
            if len(parts) > 1:  # joined once per read, kept joined
                parts[:] = ["".join(parts)]
            joined = parts[0]
        return redact_known(joined)

    def node_paths(self, phase_id: str) -> list[str]:
        with self._lock:
            return [node for node in self._parts if phase_of(node) == phase_id]

    def phase_text(self, phase_id: str) -> str:
        """The live text of the phase's calls in flight (several for a map: one after another)."""
        nodes = self.node_paths(phase_id)
        if len(nodes) == 1:
            return self.text(nodes[0])
        return "\n".join(f"[{node}] {self.text(node)}" for node in nodes)

    def tail(self, phase_id: str) -> str:
        """The last words that arrived for the phase, on one line ('' when nothing streams)."""
        nodes = self.node_paths(phase_id)
        if not nodes:
            return ""
        text = self.text(nodes[-1])[-TAIL_CHARS:]
        return " ".join(text.split())

    def begin(self, node_path: str) -> None:
        """A new attempt of `node_path` starts (engine thread, before its call): its text starts empty."""
        with self._lock:
            self._gen[node_path] = self._gen.get(node_path, 0) + 1
            if self._parts.pop(node_path, None) is not None:
                self._changed.add(phase_of(node_path))

    def end(self, node_path: str) -> None:
        """The attempt's answer is in (engine thread): `clear_done` may drop its text once shown."""
        with self._lock:
            self._done[node_path] = self._gen.get(node_path, 0)

    def clear_done(self, node_path: str) -> None:
        """The front end shows the answer now: drop its live text, unless a newer attempt streams."""
        with self._lock:
            if self._done.get(node_path) != self._gen.get(node_path, 0):
                return
            if self._parts.pop(node_path, None) is not None:
                self._changed.add(phase_of(node_path))

    def clear_phase(self, phase_id: str) -> None:
        """The phase has finished (or was skipped or reset): the text of its calls, and of the
        sub-flow phases inside it (`phase/x`), goes, except a call the engine has begun again
        since (a front end folds events later than the engine makes them)."""
        nested = phase_id + "/"
        with self._lock:
            for node in [n for n in self._parts if phase_of(n) == phase_id or n.startswith(nested)]:
                gen = self._gen.get(node)
                if gen is not None and self._done.get(node) != gen:
                    continue  # an attempt in flight: a later event ends it
                del self._parts[node]
                self._changed.add(phase_of(node))

    def clear(self, node_path: str) -> None:
        with self._lock:
            if self._parts.pop(node_path, None) is not None:
                self._changed.add(phase_of(node_path))

    def reset(self) -> None:
        with self._lock:
            self._changed.update(phase_of(n) for n in self._parts)
            self._parts.clear()
            self.first_arrival.clear()
            self._gen.clear()
            self._done.clear()
