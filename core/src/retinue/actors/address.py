"""`ActorAddress`: the small, picklable handle every message carries."""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from retinue.actors.messages import Message


_ids = random.Random()  # seeded from the system; never from a seed a program sets
if hasattr(os, "register_at_fork"):  # POSIX: a forked child never repeats its parent's ids
    os.register_at_fork(after_in_child=_ids.seed)


def new_id() -> str:
    """A fresh unique id for actors, messages, runs and chains: 128 random bits, 32 hex digits.

    The form `uuid4().hex` had, without its system call per id (a hop makes about twenty).
    """
    return f"{_ids.getrandbits(128):032x}"


class ActorAddress(BaseModel):
    """Who an actor is, without holding the actor.

    An address is plain data (ids and names), so it survives pickling, a store and a move to
    another process; the runtime looks the live actor up by `agent_id` when it delivers.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    role: str
    agent_id: str = Field(default_factory=new_id)
    team_id: str | None = None
    is_user_proxy: bool = False
    host: str | None = None
    """The host the actor runs on when its system spans several (`ActorSystem(cluster=...)`);
    None: the process of the system that started it."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActorAddress) and other.agent_id == self.agent_id

    def __hash__(self) -> int:
        return hash(self.agent_id)

    def __str__(self) -> str:
        return self.name

    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Deliver `message` to `recipient` as if this actor sent it."""
        from retinue.actors.runtime import deliver

        deliver(self, recipient, message)

    def is_alive(self) -> bool:
        """Whether the actor behind this address is running in this process."""
        from retinue.actors.runtime import lookup

        return lookup(self.agent_id) is not None

    def __repr_args__(self) -> Any:
        return [("name", self.name), ("role", self.role), ("agent_id", self.agent_id[:8])]
