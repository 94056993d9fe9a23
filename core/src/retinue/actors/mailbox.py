"""`Mailbox`: an actor's queue, indexed on arrival so no turn has to scan it.

pykka reads an actor's inbox with `get()` (and `empty()` as the actor stops); this queue
keeps the same first-in, first-out order and adds what the kernel asks between two
`get()`s: a look at the pending mail, taking some of it out of turn, dropping all of it
when the actor stops. What the cancellation hook asks before every model request ("is a
cancel pending?", "what arrived since I last looked?") is answered from indexes kept on
arrival, so its cost is that of the answer, never that of the queue.

It is a `queue.Queue` written the way the standard library writes its own variants
(`_init`, `_qsize`, `_put`, `_get`, under the queue's own `mutex`), and pykka receives it
through the hook its actor classes create their inbox with.
"""

from __future__ import annotations

import logging
import queue
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pykka

from retinue.actors.errors import log_failure

__all__ = ["Letter", "Mailbox"]

logger = logging.getLogger(__name__)


class Letter:
    """One message as the kernel queues it: who waits for an answer, and a note for its watcher.

    pykka's loop reads `message` and `reply_to` from whatever the inbox returns. Everything
    else in a mailbox (pykka's own stop requests, put there by `ActorRef.stop()`) is left
    for pykka to answer.
    """

    __slots__ = ("message", "note", "reply_to")

    def __init__(self, message: Any, reply_to: Any = None) -> None:
        self.message = message
        self.reply_to = reply_to
        #: Set by the mailbox's watcher when it flags the letter (a cancel's stamp).
        self.note: Any = None

    def refuse(self, why: str) -> None:
        """Answer whoever waits for this letter with `ActorDeadError(why)`: it gets no turn."""
        if self.reply_to is not None:
            error = pykka.ActorDeadError(why)
            self.reply_to.set_exception(exc_info=(pykka.ActorDeadError, error, None))

    def __repr__(self) -> str:
        return f"Letter({type(self.message).__name__})"


Watcher = Callable[[Letter], bool]
"""Called for every letter as it arrives, under the mailbox's lock: True flags it (and it may
write `letter.note`). It must be quick and must not touch the mailbox."""


class Mailbox(queue.Queue[Any]):
    """FIFO queue of letters, numbered on arrival, with the flagged ones (cancels) indexed."""

    def _init(self, maxsize: int) -> None:
        self._items: OrderedDict[int, Any] = OrderedDict()
        self._flagged: dict[int, Letter] = {}
        self._last = 0
        self._watcher: Watcher | None = None

    def _qsize(self) -> int:
        return len(self._items)

    def _put(self, item: Any) -> None:
        self._last += 1
        number = self._last
        self._items[number] = item
        watcher = self._watcher
        if watcher is not None and type(item) is Letter and _flags(watcher, item):
            self._flagged[number] = item

    def _get(self) -> Any:
        number, item = self._items.popitem(last=False)
        if self._flagged:
            self._flagged.pop(number, None)
        return item

    # ------------------------------------------------------------------ setup
    def watch(self, watcher: Watcher | None) -> None:
        """Flag letters on arrival with `watcher` (the agent layer's cancel rule)."""
        with self.mutex:
            self._watcher = watcher

    # ------------------------------------------------------------------ O(1) and O(answer)
    @property
    def last_arrival(self) -> int:
        """The number of the latest arrival (0 before the first): a mark for `arrived_since`."""
        return self._last

    @property
    def has_flagged(self) -> bool:
        """Whether a flagged letter is waiting; a hint to act on with `take_flagged`."""
        return bool(self._flagged)

    def take_flagged(self) -> list[Letter]:
        """Remove and return every flagged letter, oldest first; the rest stay in order."""
        with self.mutex:
            if not self._flagged:
                return []
            taken = list(self._flagged.items())
            self._flagged.clear()
            for number, _ in taken:
                del self._items[number]
        return [letter for _, letter in taken]

    def arrived_since(self, mark: int) -> tuple[list[Letter], int]:
        """Unflagged letters still waiting that arrived after `mark`, oldest first, and a new mark.

        Walks back from the newest arrival and stops at `mark`: the cost is the number of
        letters returned, whatever waits before them.
        """
        with self.mutex:
            last = self._last
            if last <= mark:
                return [], last
            flagged = self._flagged
            fresh = []
            for number, item in reversed(self._items.items()):
                if number <= mark:
                    break
                if type(item) is Letter and number not in flagged:
                    fresh.append(item)
        fresh.reverse()
        return fresh, last

    # ------------------------------------------------------------------ O(queue), on request
    def peek(self) -> list[Any]:
        """The messages of the waiting letters, oldest first, left in place."""
        with self.mutex:
            return [item.message for item in self._items.values() if type(item) is Letter]

    def take(self, predicate: Callable[[Any], bool]) -> list[Letter]:
        """Remove and return the letters whose message matches `predicate`, oldest first."""
        with self.mutex:
            taken = [
                (number, item)
                for number, item in self._items.items()
                if type(item) is Letter and predicate(item.message)
            ]
            for number, _ in taken:
                del self._items[number]
                self._flagged.pop(number, None)
        return [letter for _, letter in taken]

    def take_leading(self, predicate: Callable[[Any], bool], limit: int) -> list[Letter]:
        """Remove and return the letters at the head of the queue whose message matches,
        oldest first: at most `limit`, stopping at the first that does not match (or is
        flagged). What it takes is what the actor would have handled next, in that order,
        and its cost is that of the answer."""
        with self.mutex:
            taken: list[tuple[int, Letter]] = []
            for number, item in self._items.items():
                if (
                    len(taken) >= limit
                    or type(item) is not Letter
                    or number in self._flagged
                    or not predicate(item.message)
                ):
                    break
                taken.append((number, item))
            for number, _ in taken:
                del self._items[number]
        return [letter for _, letter in taken]

    def drain(self) -> list[Letter]:
        """Remove and return every letter; pykka's own requests stay for pykka to answer."""
        with self.mutex:
            letters = [item for item in self._items.values() if type(item) is Letter]
            if len(letters) == len(self._items):
                self._items.clear()
            else:
                self._items = OrderedDict(
                    (n, item) for n, item in self._items.items() if type(item) is not Letter
                )
            self._flagged.clear()
        return letters


def _flags(watcher: Watcher, letter: Letter) -> bool:
    """The watcher's verdict; a watcher that fails flags nothing, and the failure is logged
    (the letter is queued all the same: a put must never fail half-way)."""
    try:
        return watcher(letter)
    except Exception as exc:  # noqa: BLE001 - a watcher may raise anything; a put must not fail
        log_failure(logger, f"the mailbox watcher failed on {letter!r}; not flagged", exc)
        return False
