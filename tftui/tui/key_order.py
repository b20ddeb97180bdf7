"""Keys typed ahead go where the keys before them led (found in tmux: keys sent in one burst).

Textual routes a key as soon as the app takes it from the terminal: the priority bindings run
there and then, and any other key is posted to the focused widget; the bindings above that
widget (the screen's verbs, the app's) run only once the key has bubbled back up to the app.
Meanwhile the app routes the next keys. With keys that arrive together (a fast typist,
`tmux send-keys`):

- a key typed right after one that opens a dialog was routed to the screen below it: `c y`
  after a run left the "start a new run?" question (README, "Debugging a flow") open, the `y`
  gone to the debugger's screen; `B true` put nothing in the data breakpoint's field;
- a priority key ran ahead of the keys typed before it: `["a"]` then ctrl+s in the answer
  dialog submitted the text box before the keys had reached it, an empty answer.

Keys still go through at once (waiting for each key to be handled costs a frame a key: keys
typed during a run queued up for seconds). Two cases wait:

- a key that reaches the app from a screen no longer on top (a key before it opened or closed a
  dialog) is taken again as if just typed, on the screen now on top, once that screen has
  mounted and taken focus; the keys after it wait for it;
- a key with a priority binding waits until the focused widget has taken the keys before it.

Each wait is a callback posted behind the keys in a widget's queue, so it runs after them
there. A dialog still answers once (SingleAnswerModal): a key typed after its answer goes on.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.timer import Timer

HOLD_MAX_S = 0.5  # a wait whose callback is lost (its widget removed first) holds the keys no longer
REMEMBERED = 256  # keys remembered with their screen (one a binding took at once never comes back)


class KeyOrder:
    def __init__(self, app: App[Any], route: Callable[[events.Key], Awaitable[None]]) -> None:
        self.app = app
        self.route = route  # Textual's own routing of a key from the terminal (App.on_event)
        self.waiting: deque[events.Key] = deque()
        self.holding = False  # keys wait in `waiting` until the hold's callback runs
        self._hold_id = 0  # which hold: the timer of one ended already does nothing
        self._timer: Timer | None = None
        self._routed: OrderedDict[int, tuple[events.Key, Screen[Any]]] = OrderedDict()  # id -> (key, its screen)

    async def take(self, key: events.Key) -> None:
        """A key from the terminal: routed now, or after the keys before it."""
        if self.holding:
            self.waiting.append(key)
        elif self._waits_for_field(key):
            self.waiting.append(key)
            self._hold(self.app.focused)
        else:
            await self._route(key)

    async def arrived(self, key: events.Key) -> bool:
        """A key has bubbled up to the app. True: it was routed on a screen no longer on top, and
        is taken again on the one now on top (the app's bindings must not act on it)."""
        routed = self._routed.pop(id(key), None)
        if routed is None or routed[0] is not key or routed[1] is self.app.screen:
            return False
        self.waiting.append(events.Key(key.key, key.character))  # a key as from the terminal
        if not self.holding:
            self._hold(self.app.screen)
        return True

    def _waits_for_field(self, key: events.Key) -> bool:
        if self.app.focused is None:
            return False
        chain = self.app.screen._binding_chain
        return any(b.priority for _, bindings in chain for b in bindings.key_to_bindings.get(key.key, ()))

    async def _route(self, key: events.Key) -> None:
        screen = self.app.screen
        self._routed[id(key)] = (key, screen)
        while len(self._routed) > REMEMBERED:
            self._routed.popitem(last=False)
        await self.route(key)
        if self.app.screen is not screen:  # a priority binding opened or closed a dialog there and then
            self._hold(self.app.screen)

    def _hold(self, node: MessagePump | None) -> None:
        """Keys wait until `node` (a dialog just opened: after its mount) and then the app
        (Widget.focus gives focus by a callback there) have handled what they have queued."""
        self.holding = True
        self._hold_id += 1
        hold = self._hold_id
        self._timer = self.app.set_timer(HOLD_MAX_S, lambda: self.app.call_later(self._release, hold))
        self._after([node, self.app] if node is not None else [self.app], hold)

    def _after(self, path: list[MessagePump], hold: int) -> None:
        for index, node in enumerate(path):  # a closed node is passed
            if node.call_later(self._after, path[index + 1:], hold):
                return
        self.app.call_later(self._release, hold)

    async def _release(self, hold: int) -> None:
        if hold != self._hold_id or not self.holding:
            return  # that hold has ended already
        if self._timer is not None:
            self._timer.stop()
        self.holding = False
        routed = False
        while self.waiting and not self.holding:  # on the app's queue: no key it takes meanwhile goes first
            if routed and self._waits_for_field(self.waiting[0]):
                self._hold(self.app.focused)
                return
            await self._route(self.waiting.popleft())
            routed = True
