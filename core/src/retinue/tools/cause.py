"""`Cause`: the chain and the message what a card does belongs to, as the record keeps them.

A card that changes a team service (a task on the board, a notification for later) records
the change, or sends its result later, in the task chain of the message its agent was
handling, under that message: a subscriber then sees which request changed what, and a
stop of the chain reaches what it caused. `cause_of` reads that from the card's host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from retinue.actors.actor import Actor

if TYPE_CHECKING:
    from retinue.tools.host import ToolHost


@dataclass(frozen=True, slots=True)
class Cause:
    """A task chain and the message in it that caused something; both None: no message did."""

    chain_id: str | None = None
    parent_id: str | None = None


def cause_of(host: ToolHost) -> Cause:
    """The message `host` is handling now, as a `Cause`; an empty one outside any message
    (a card bound to a host that is not an actor, such as a test's `StubHost`)."""
    current = host.current_message if isinstance(host, Actor) else None
    return Cause() if current is None else Cause(current.chain_id, current.id)
