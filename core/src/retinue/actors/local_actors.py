"""The actors running in this process: listed, described while busy, awaited at shutdown.

`ActorSystem` holds one; each actor is added once started and forgets itself as it stops,
and during a shutdown the last one to go sets `all_stopped`, which the shutdown waits on.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from retinue.actors.young_generation import YOUNG_GENERATION

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.actors.address import ActorAddress


class LocalActors:
    """The running actors of one system in this process, by agent id (thread-safe)."""

    def __init__(self) -> None:
        self._actors: dict[str, Actor[Any, Any]] = {}
        self._lock = threading.Lock()
        self._closing = False
        #: Set by the last actor to stop once `close` was called.
        self.all_stopped = threading.Event()

    def add(self, actor: Actor[Any, Any]) -> None:
        with self._lock:
            new = actor.myAddress.agent_id not in self._actors
            self._actors[actor.myAddress.agent_id] = actor
        if new:
            YOUNG_GENERATION.started()

    def forget(self, actor: Actor[Any, Any]) -> None:
        with self._lock:
            known = self._actors.pop(actor.myAddress.agent_id, None) is not None
            if self._closing and not self._actors:
                self.all_stopped.set()
        if known:
            YOUNG_GENERATION.stopped()

    def snapshot(self) -> list[Actor[Any, Any]]:
        with self._lock:
            return list(self._actors.values())

    def addresses(self) -> list[ActorAddress]:
        with self._lock:
            return [a.myAddress for a in self._actors.values()]

    def close(self) -> None:
        """A shutdown began: from now on the last actor to stop sets `all_stopped`."""
        with self._lock:
            self._closing = True

    def remaining(self) -> list[Actor[Any, Any]]:
        """The actors still running once closed; `all_stopped` is set when there are none."""
        with self._lock:
            actors = list(self._actors.values())
            if not actors:
                self.all_stopped.set()
            return actors

    def busy(self) -> list[str]:
        """`@Name (handling X, n queued)` for each actor that is not idle (for a timeout)."""
        found = []
        for actor in self.snapshot():
            queued = actor.mailbox.qsize()
            doing = actor.describe_busy()
            if doing or queued:
                detail = f"handling {doing}" if doing else "starting"
                found.append(f"{actor.myAddress.name} ({detail}, {queued} queued)")
        return found
