"""The process-wide directory of running actors and the delivery primitive.

Addresses are plain data; this directory turns an address into the running actor, so a
message can be delivered without any object being shared between actors.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.actors.address import ActorAddress
    from retinue.actors.messages import Message

_live: dict[str, Actor[Any, Any]] = {}
_live_lock = threading.Lock()

_acting_for: ContextVar[str | None] = ContextVar("retinue_acting_for", default=None)


def act_for(agent_id: str) -> None:
    """Name the actor the current context works for (set once in each actor's thread).

    Context variables follow the work an actor starts: its model runs on the shared loop,
    their tasks and the worker threads of their sync tools all see this actor's id.
    """
    _acting_for.set(agent_id)


def acting_for() -> str | None:
    """The id of the actor whose thread started the code running now, if any."""
    return _acting_for.get()


def register(actor: Actor[Any, Any]) -> None:
    """Make an actor reachable by its address."""
    with _live_lock:
        _live[actor.myAddress.agent_id] = actor


def unregister(agent_id: str) -> None:
    """Forget an actor that stopped."""
    with _live_lock:
        _live.pop(agent_id, None)


def lookup(agent_id: str) -> Actor[Any, Any] | None:
    """The running actor with this id, if it runs in this process."""
    return _live.get(agent_id)


class WorkTracker:
    """Counts the work a system still owes: queued or running messages, starting actors.

    A sender adds the recipient's unit before its own unit is done, so the count can only
    reach zero when a whole chain of sends has drained; `wait_idle` waits for that.
    `activity` only grows (one per unit ever added): a system spread over hosts compares it
    between two looks to tell that a host stayed idle in between (see `Cluster.wait_idle`).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending = 0
        self._activity = 0

    def add(self, n: int = 1) -> None:
        with self._cond:
            self._pending += n
            self._activity += n

    def done(self, n: int = 1) -> None:
        with self._cond:
            self._pending -= n
            if self._pending <= 0:
                self._pending = 0
                self._cond.notify_all()

    @property
    def pending(self) -> int:
        return self._pending

    @property
    def activity(self) -> int:
        """How many units were ever added: unchanged between two looks means no work began."""
        return self._activity

    def wait(self, timeout: float | None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._pending <= 0, timeout)


def deliver(sender: ActorAddress | None, recipient: ActorAddress, message: Message) -> None:
    """Send `message` from `sender`; from code outside any actor when the sender is not live."""
    actor = lookup(sender.agent_id) if sender is not None else None
    if actor is not None:
        actor.send(recipient, message)
        return
    target = lookup(recipient.agent_id)
    if target is None:
        from retinue.actors.errors import ActorNotFoundError

        raise ActorNotFoundError(f"no running actor {recipient.name} ({recipient.agent_id[:8]})")
    target.system.send(recipient, message, sender)
