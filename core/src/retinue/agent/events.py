"""Events an agent publishes about itself (all serializable)."""

from __future__ import annotations

from pydantic import BaseModel

from retinue.actors.address import ActorAddress
from retinue.tools.commands import CommandDescriptor


class CommandsAnnouncedEvent(BaseModel):
    """The slash commands an agent accepts, announced once at start for frontends."""

    agent: ActorAddress
    commands: list[CommandDescriptor]


class RoutingSkippedEvent(BaseModel):
    """An outbound message could not be delivered and was dropped with a note to the model."""

    agent: ActorAddress
    recipient: str
    reason: str
