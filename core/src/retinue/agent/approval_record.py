"""What an agent's record says of its park: the latest ask, the answers given since, and the
mail held meanwhile, read back after a restart.

A forked team's member reads its source's record up to the fork; its own stream then lacks
the park, so it is restated there (`restated`) for whatever reads the fork's stream alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel

from retinue.actors.address import ActorAddress
from retinue.actors.messages import EventMessage, Message
from retinue.agent.events import (
    PendingCall,
    ToolApprovalAnsweredEvent,
    ToolApprovalAskedEvent,
    ToolApprovalHeldEvent,
)


@dataclass
class ParkRecord:
    """The latest `ToolApprovalAskedEvent`, every answer recorded, and the mail held since
    that ask; `last_id`, the highest call number the agent has used."""

    asked: ToolApprovalAskedEvent | None = None
    answered: dict[str, ToolApprovalAnsweredEvent] = field(default_factory=dict)
    held: list[Message] = field(default_factory=list)
    last_id: int = 0

    @property
    def waiting(self) -> list[PendingCall]:
        """The asked calls no answer has closed."""
        if self.asked is None:
            return []
        return [call for call in self.asked.calls if call.id not in self.answered]

    def restated(self, me: ActorAddress) -> list[BaseModel]:
        """The park as events of `me`: the ask, its answers so far, the mail held."""
        if self.asked is None:
            return []
        ask = self.asked.model_copy(update={"agent": me})
        answers = [
            self.answered[call.id].model_copy(update={"agent": me})
            for call in self.asked.calls
            if call.id in self.answered
        ]
        held = [ToolApprovalHeldEvent(agent=me, message=message) for message in self.held]
        return [ask, *answers, *held]


def read_park(events: Iterable[object]) -> ParkRecord:
    """Fold an agent's recorded events (or their `EventMessage`s), oldest first."""
    record = ParkRecord()
    for item in events:
        event = item.event if isinstance(item, EventMessage) else item
        if isinstance(event, ToolApprovalHeldEvent):
            record.held.append(event.message)
        elif isinstance(event, ToolApprovalAskedEvent):
            record.asked, record.held = event, []
            numbers = [int(call.id) for call in event.calls if call.id.isdigit()]
            record.last_id = max(record.last_id, *numbers, 0)
        elif isinstance(event, ToolApprovalAnsweredEvent):
            record.answered[event.call_id] = event
    return record
