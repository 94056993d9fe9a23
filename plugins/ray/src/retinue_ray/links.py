"""Links: everything one host sends another, in order, many items per Ray call.

A link holds the items (messages, calls, answers) for one other host. Only one batch is in
flight at a time: while it travels, new items gather behind it, so an idle link sends
each item at once and a busy one sends hundreds per call. One batch at a time is also what
keeps a sender's order: the items one host sends another arrive in the order they were put.

Every item counts as owed work in this host's `WorkTracker` until the other host has taken
it (its mailbox put counts it there), so no host is idle while its mail is on the way.

- `PushLink` calls the other host's `receive` (a Ray actor method).
- `PullLink` waits for the driver to `take` (the driver's process is no Ray actor and
  cannot be called): the driver's next `take` acknowledges the batch before.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

logger = logging.getLogger(__name__)

#: Most items one Ray call carries.
MAX_BATCH = 2000

Item = tuple[Any, ...]


class Tracker(Protocol):
    """The part of `retinue`'s `WorkTracker` a link uses."""

    def add(self, n: int = 1) -> None: ...

    def done(self, n: int = 1) -> None: ...


class Link:
    """Items for one other host, in order; see the module's docstring."""

    def __init__(self, target: str, tracker: Tracker) -> None:
        self.target = target
        self._tracker = tracker
        self._cond = threading.Condition()
        self._queue: deque[Item] = deque()
        self._put = 0  # items ever put
        self._delivered = 0  # items the other host has taken (or that were settled as lost)
        self.lost = False
        self._closed = False
        self.batches = 0  # batches sent (or taken), for the tests and benchmarks

    def put(self, item: Item) -> bool:
        """Queue `item` for the other host; False once that host is lost."""
        with self._cond:
            if self.lost:
                return False
            self._tracker.add()
            self._queue.append(item)
            self._put += 1
            self._cond.notify_all()
        return True

    def flush(self, timeout: float) -> bool:
        """Wait until everything put so far has been taken by the other host."""
        with self._cond:
            mark = self._put
            return self._cond.wait_for(lambda: self._delivered >= mark or self.lost, timeout)

    @property
    def sent(self) -> int:
        """Items that have left (taken by the other host, or settled as lost)."""
        return self._delivered

    @property
    def queued(self) -> int:
        """Items put and not yet taken."""
        return self._put - self._delivered

    def _settled(self, n: int) -> None:
        """`n` items left this host (taken, or handed back as lost)."""
        if n:
            with self._cond:
                self._delivered += n
                self._cond.notify_all()
            self._tracker.done(n)

    def fail(self) -> list[Item]:
        """Mark the other host lost; returns the items still queued (no longer owed work
        here), for their senders to settle."""
        with self._cond:
            self.lost = True
            items = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        self._settled(len(items))
        return items

    def close(self) -> None:
        """Send nothing more once the queue is empty."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _next_batch(self, wait: float | None) -> list[Item] | None:
        """Up to `MAX_BATCH` items; None when closed (or nothing came within `wait`)."""
        with self._cond:
            self._cond.wait_for(lambda: self._queue or self._closed or self.lost, wait)
            if not self._queue:
                return None
            n = min(len(self._queue), MAX_BATCH)
            self.batches += 1
            return [self._queue.popleft() for _ in range(n)]


class PushLink(Link):
    """A link whose batches a thread of its own sends with `send(batch)`.

    `send` raises `HostLostError` when the other host is gone: that batch and everything
    queued go to `on_failed(target, items, True, reason)` and the link refuses new items
    from then on. A batch that fails otherwise (an item that cannot be pickled) is sent
    again item by item; only the items that fail alone go to `on_failed(..., False, reason)`.
    """

    def __init__(
        self,
        target: str,
        tracker: Tracker,
        send: Callable[[Sequence[Item]], None],
        on_failed: Callable[[str, list[Item], bool, str], None],
    ) -> None:
        super().__init__(target, tracker)
        self._send = send
        self._on_failed = on_failed
        self._thread = threading.Thread(
            target=self._run, name=f"retinue-ray link to {target}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        while not self.lost:
            batch = self._next_batch(None)
            if batch is None:
                return
            try:
                self._deliver(batch)
            finally:
                self._settled(len(batch))

    def _deliver(self, batch: list[Item]) -> None:
        try:
            self._send(batch)
            return
        except HostLostError:
            self._lose(batch)
            return
        except Exception as exc:  # noqa: BLE001 - a send may fail in any way: find the culprit
            if len(batch) == 1:
                logger.warning("an item for %s could not be sent: %s", self.target, exc)
                self._on_failed(self.target, batch, False, f"{type(exc).__name__}: {exc}")
                return
        for item in batch:  # find the item that cannot go; the others go in order
            if self.lost:
                self._on_failed(self.target, [item], True, "")
            else:
                self._deliver([item])

    def _lose(self, batch: list[Item]) -> None:
        self._on_failed(self.target, batch + self.fail(), True, "")

    def join(self, timeout: float) -> None:
        """Wait for the sending thread to end (after `close` or a loss)."""
        self._thread.join(timeout)


class PullLink(Link):
    """A link the driver empties with `take`; the next `take` acknowledges the batch."""

    def __init__(self, target: str, tracker: Tracker) -> None:
        super().__init__(target, tracker)
        self._seq = 0
        self._unacked = 0

    def take(self, ack: int, wait: float) -> tuple[int, list[Item]]:
        """The next batch (empty after `wait` seconds without any), numbered.

        `ack` is the number of the last batch the driver has taken in: that one is settled.
        """
        if ack == self._seq and self._unacked:
            n, self._unacked = self._unacked, 0
            self._settled(n)
        batch = self._next_batch(wait) or []
        if batch:
            self._seq += 1
            self._unacked = len(batch)
        return self._seq, batch


class HostLostError(Exception):
    """The other host of a link is gone (its process died or was killed)."""
