"""`TeamFeed`: one team's record read in order, folded, and kept as deltas by position.

The record is the one source: a live team's store (a `MemoryStore` when it has nothing
better) or a store another process writes. A puller thread reads what was appended after the
last position it folded (`store.read(after=...)`), woken at once by a live team's
orchestrator (a subscriber rung after each commit) or every `poll` seconds for a store
written elsewhere. Each record's delta is kept under the record's position, so a page that
reconnects with `Last-Event-ID: N` gets exactly the deltas after N: no gap, no duplicate.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from retinue import EventSubscriber, Message, Panel
from retinue.record import Recorder, Store
from retinue.store import StoreError

from retinue_web.fold import TeamFold

logger = logging.getLogger(__name__)

#: Flow lines a page gets when it loads, and per page when it scrolls back.
FLOW_PAGE = 200
#: A page further behind than this many deltas reloads its snapshot instead of catching up.
MAX_CATCH_UP = 5_000
#: Records read per batch (the fold's lock is let go between batches).
READ_BATCH = 1_000


class Doorbell(EventSubscriber):
    """Subscribed to a live team: each commit of its record wakes the feed (nothing else)."""

    def __init__(self, ring: Callable[[], None]) -> None:
        self._ring = ring

    def on_message(self, message: Message) -> None:
        self._ring()

    def on_stop(self) -> None:
        self._ring()


class Copier(Doorbell):
    """For a team that records nowhere: its record appended to the view's own store as the
    orchestrator commits it, then the feed is woken (positions are the copy's own)."""

    def __init__(self, store: Store, team_id: str, ring: Callable[[], None]) -> None:
        super().__init__(ring)
        self._recorder = Recorder(store, team_id, {"copied": True})

    def on_message(self, message: Message) -> None:
        self._recorder.record(message)
        self._recorder.flush()
        self._ring()


class TeamFeed:
    """A team's record, folded (`fold`) and as deltas by position (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        team_id: str,
        panels: list[Panel] | None = None,
        *,
        poll: float | None = 0.5,
        live: bool = False,
    ) -> None:
        self.store = store
        self.team_id = team_id
        self.live = live
        self.poll = poll
        self.fold = TeamFold(team_id, panels)
        self._lock = threading.Lock()
        self._positions: list[int] = []
        self._deltas: list[str] = []
        self._listeners: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Event]] = {}
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None

    # ------------------------------------------------------------------ pulling
    def start(self) -> None:
        """Fold what the record holds now, then follow it in a thread of its own."""
        self.pull()
        self._thread = threading.Thread(
            target=self._follow, name=f"retinue-web-feed-{self.team_id[:8]}", daemon=True
        )
        self._thread.start()

    def ring(self) -> None:
        """More was committed: pull it soon (from any thread; never blocks)."""
        self._wake.set()

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    def _follow(self) -> None:
        while not self._closed.is_set():
            self._wake.wait(self.poll)
            self._wake.clear()
            if self._closed.is_set():
                return
            try:
                self.pull()
            except Exception:
                logger.exception("the web view could not read team %s", self.team_id)

    def pull(self) -> int:
        """Fold every record after the last one folded; how many records were read."""
        count = 0
        while True:
            with self._lock:
                try:
                    batch = list(
                        self.store.read(
                            self.team_id,
                            after=self.fold.position,
                            kinds=self.fold.kinds,
                            limit=READ_BATCH,
                        )
                    )
                except StoreError as exc:
                    self.error = str(exc)
                    raise
                for record in batch:
                    delta = self.fold.add(record)
                    if delta is not None:
                        self._positions.append(record.position)
                        self._deltas.append(json.dumps(delta, ensure_ascii=False))
            count += len(batch)
            if batch:
                self._notify()
            if len(batch) < READ_BATCH:
                return count

    def wake_listeners(self) -> None:
        """Wake every listening stream (to see that the view is closing)."""
        self._notify()

    def _notify(self) -> None:
        for loop, event in list(self._listeners.values()):
            with contextlib.suppress(RuntimeError):  # that page's loop has closed
                loop.call_soon_threadsafe(event.set)

    # ------------------------------------------------------------------ listening
    def listen(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> int:
        """Set `event` (on `loop`) whenever new deltas are kept; a key for `unlisten`."""
        key = id(event)
        with self._lock:
            self._listeners[key] = (loop, event)
        return key

    def unlisten(self, key: int) -> None:
        with self._lock:
            self._listeners.pop(key, None)

    # ------------------------------------------------------------------ reading
    def deltas_after(self, position: int, bounded: bool = True) -> list[tuple[int, str]] | None:
        """The deltas after `position`, oldest first; None when the page must start again
        from a snapshot: too many to catch up with (unless not `bounded`: a replay from the
        start wants them all), or a position past the end of this record (a page that
        followed another view, or a record that was replaced), which no delta could mend."""
        with self._lock:
            if position > self.fold.position:
                return None
            start = bisect.bisect_right(self._positions, position)
            if bounded and len(self._positions) - start > MAX_CATCH_UP:
                return None
            return list(zip(self._positions[start:], self._deltas[start:], strict=True))

    def snapshot(self) -> dict[str, Any]:
        """The whole state now, with the latest flow lines and the position it is as of."""
        with self._lock:
            snapshot = self.fold.snapshot(FLOW_PAGE)
        snapshot["team"]["live"] = self.live
        return snapshot

    def flow_before(self, position: int, limit: int = FLOW_PAGE) -> dict[str, Any]:
        """The flow lines before `position` (at most `limit`), for a page scrolling back."""
        with self._lock:
            flow = self.fold.flow
            end = bisect.bisect_left(self.fold.flow_positions, position)
            start = max(0, end - max(1, min(limit, 1_000)))
            return {"flow": flow[start:end], "more": start > 0}

    def turn_span(self, message_id: str) -> tuple[int, int] | None:
        """Where the runs of the turn that handled `message_id` are in the record."""
        with self._lock:
            return self.fold.turns.get(message_id)

    def panel(self, name: str) -> Panel | None:
        with self._lock:
            return self.fold.panels.get(name)

    def locked(self) -> threading.Lock:
        """The lock the fold is read under (for a reader of several of its parts at once)."""
        return self._lock
