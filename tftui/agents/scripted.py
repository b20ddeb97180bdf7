"""Runners that answer from a script: offline runs, tests, benchmarks.

- `ScriptedRunner`: replies keyed by node path (docs/language.md §7). A reply is a string,
  `{"output": ..., "usage": {"input", "output", "costUSD"}}` or
  `{"error": "...", "exitCode": n}`; any reply may add `"delayMs": n`, or `"delayMs": [lo, hi]`
  for a delay drawn anew on every call between lo and hi ms (jitter, for `--repeat`). A list is
  consumed one reply per call and its last reply repeats. A node path with no reply
  fails the call with a message naming the node path and the replies file.
- `MarkerRunner`: the conformance/benchmark contract (conformance README "Flows"):
  the key is the first `[[KEY]]` in the final task text (`"?"` when none); `script[KEY]`
  replies are consumed in order; once exhausted (or absent) the call succeeds with
  `default_output` (default `"out:" + KEY`). It records `call_log` and `tasks_sent`.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from tftui.agent_types import AgentRequest, AgentResult, Usage
from tftui.paths import read_regular_file

MAX_REPLIES_BYTES = 256 * 1024 * 1024  # a replies file is read whole: bounded (docs/inputs.md §2)
_MARKER_RE = re.compile(r"\[\[([^\]\n]+)\]\]")

# How a runner waits out a reply's `delayMs` (asyncio.sleep; tests pass a fake).
Sleep = Callable[[float], Awaitable[None]]


class RepliesError(ValueError):
    """A replies file that cannot be used (unreadable, not JSON, wrong shape)."""


def _reply_shape_error(node: str, reply: Any) -> str | None:
    if isinstance(reply, str):
        return None
    if not isinstance(reply, Mapping):
        return f"reply for '{node}' must be a string or an object, got {type(reply).__name__}"
    if "output" not in reply and "error" not in reply:
        return f"reply for '{node}' needs 'output' or 'error'"
    delay = reply.get("delayMs")
    if isinstance(delay, list) and not (
        len(delay) == 2 and all(_is_ms(v) for v in delay) and delay[0] <= delay[1]
    ):
        return f"reply for '{node}': 'delayMs' as a list must be [lo, hi] with 0 <= lo <= hi (ms), got {delay!r}"
    return None


def _is_ms(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


_JITTER = random.Random()  # unseeded: every run of a --repeat series draws its own delays


def _delay_s(delay: Any) -> float:
    """A reply's `delayMs` in seconds: a number, or [lo, hi] drawn uniformly per call."""
    if isinstance(delay, list) and len(delay) == 2 and all(_is_ms(v) for v in delay):
        return _JITTER.uniform(float(delay[0]), float(delay[1])) / 1000
    return float(delay) / 1000 if _is_ms(delay) else 0.0


def _to_result(reply: Any) -> tuple[AgentResult, float]:
    """A reply as an AgentResult plus its simulated delay in seconds."""
    if isinstance(reply, str):
        return AgentResult(output=reply), 0.0
    delay_s = _delay_s(reply.get("delayMs", 0))
    usage = Usage.from_json(reply.get("usage"))
    if reply.get("error") is not None:
        code = reply.get("exitCode", 1)
        message = str(reply["error"])
        return (
            AgentResult(
                output=str(reply.get("output", "") or ""),
                error=message,
                stderr=message,
                exit_code=code if isinstance(code, int) and code != 0 else 1,
                usage=usage,
            ),
            delay_s,
        )
    output = reply.get("output", "")
    if not isinstance(output, str):
        output = json.dumps(output, ensure_ascii=False)
    return AgentResult(output=output, usage=usage), delay_s


class _Cursor:
    """One list of replies per key; the last one repeats."""

    __slots__ = ("replies", "index")

    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.index = 0

    def next(self) -> Any:
        reply = self.replies[min(self.index, len(self.replies) - 1)]
        self.index += 1
        return reply


class ScriptedRunner:
    """Replies keyed by node path; see the module docstring."""

    in_process = True  # nothing leaves the process (tftui.agent_types.stays_in_process)

    def __init__(self, replies: Mapping[str, Any], *, source: str | None = None, sleep: Sleep | None = None) -> None:
        self.source = source
        self._sleep = sleep or asyncio.sleep
        self._cursors: dict[str, _Cursor] = {}
        self.errors: list[str] = []
        for node, value in replies.items():
            items = value if isinstance(value, list) else [value]
            if not items:
                self.errors.append(f"reply list for '{node}' is empty")
                continue
            for item in items:
                problem = _reply_shape_error(node, item)
                if problem:
                    self.errors.append(problem)
            self._cursors[str(node)] = _Cursor(items)
        self.calls: list[AgentRequest] = []

    @classmethod
    def from_file(cls, path: str | Path, *, sleep: Sleep | None = None) -> ScriptedRunner:
        """Load a replies file (a JSON object: node path -> reply or list of replies)."""
        file = Path(path)
        raw, reason = read_regular_file(file, MAX_REPLIES_BYTES)
        if raw is None:
            raise RepliesError(f"cannot read replies file {file}: {reason}")
        try:
            data = json.loads(raw.decode("utf-8"))
        except RecursionError as exc:
            raise RepliesError(f"replies file {file} is not valid JSON: nested too deeply") from exc
        except ValueError as exc:  # UnicodeDecodeError too
            raise RepliesError(f"replies file {file} is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise RepliesError(f"replies file {file} must be a JSON object mapping node paths to replies")
        runner = cls(data, source=str(file), sleep=sleep)
        if runner.errors:
            raise RepliesError(f"replies file {file}: " + "; ".join(runner.errors))
        return runner

    def has_reply(self, node_path: str) -> bool:
        return node_path in self._cursors

    def rewind(self) -> None:
        """Every node path back to its first reply: a run from scratch (the TUI's restart) then
        gets the same answers as the first run. `calls` keeps the whole history."""
        for cursor in self._cursors.values():
            cursor.index = 0

    def skip_answered(self, counts: dict[str, int]) -> None:
        """Continue each node path's replies after the `counts[path]` already used (a resumed
        run: the next call gets the reply the uninterrupted run would have got)."""
        for path, used in counts.items():
            cursor = self._cursors.get(path)
            if cursor is not None:
                cursor.index = max(cursor.index, used)

    async def run(self, request: AgentRequest) -> AgentResult:
        self.calls.append(request)
        cursor = self._cursors.get(request.node_path)
        if cursor is None:
            where = f" in {self.source}" if self.source else " in the replies"
            message = f"no scripted reply for node path '{request.node_path}'{where}"
            return AgentResult(error=message, stderr=message, exit_code=1)
        result, delay_s = _to_result(cursor.next())
        if delay_s > 0:
            await self._sleep(delay_s)
        return result


def marker_key(task: str) -> str:
    match = _MARKER_RE.search(task)
    return match.group(1) if match else "?"


class MarkerRunner:
    """The conformance/benchmark scripted runner; see the module docstring."""

    in_process = True  # nothing leaves the process (tftui.agent_types.stays_in_process)

    def __init__(
        self,
        script: Mapping[str, list[Any]] | None = None,
        default_output: str | Callable[[str], str] | None = None,
    ) -> None:
        self._cursors = {key: list(replies) for key, replies in (script or {}).items()}
        self._positions: dict[str, int] = {}
        self._default = default_output
        self.call_log: list[str] = []
        self.tasks_sent: dict[str, list[str]] = {}
        self.requests: list[AgentRequest] = []

    def rewind(self) -> None:
        """Every key back to its first scripted reply (see ScriptedRunner.rewind)."""
        self._positions.clear()

    @property
    def call_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for key in self.call_log:
            counts[key] = counts.get(key, 0) + 1
        return counts

    def _default_for(self, key: str) -> str:
        if self._default is None:
            return "out:" + key
        if callable(self._default):
            return self._default(key)
        return self._default

    async def run(self, request: AgentRequest) -> AgentResult:
        key = marker_key(request.task)
        self.call_log.append(key)
        self.tasks_sent.setdefault(key, []).append(request.task)
        self.requests.append(request)
        replies = self._cursors.get(key)
        pos = self._positions.get(key, 0)
        if replies is None or pos >= len(replies):
            return AgentResult(self._default_for(key))  # output (positional: a keyword class call costs ~2x)
        self._positions[key] = pos + 1
        reply = replies[pos]
        if isinstance(reply, str):
            return AgentResult(output=reply)
        result, delay_s = _to_result(reply)
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        return result
