"""`UserProxy`: the actor that stands for a person inside a team."""

from __future__ import annotations

import logging
from typing import Any

from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.messages import Message

logger = logging.getLogger(__name__)


class UserProxy(Actor[BaseConfig, BaseState]):
    """A team member driven by a person; agents find it by `ActorAddress.is_user_proxy`."""

    is_user_proxy = True

    def receiveMsg_Message(self, message: Message, sender: ActorAddress | None) -> None:
        self.on_user_message(message, sender)

    def on_user_message(self, message: Message, sender: ActorAddress | None) -> None:
        """Override to show the message to the person (console, socket, chat...)."""
        logger.info(
            "%s received %s from %s",
            self.myAddress.name,
            type(message).__name__,
            sender.name if sender else "outside",
        )

    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Send on the person's behalf (callable through `proxy_tell`)."""
        super().send(recipient, message)

    def describe(self) -> dict[str, Any]:
        """Who this proxy is, for frontends."""
        return {"name": self.myAddress.name, "role": self.myAddress.role}
