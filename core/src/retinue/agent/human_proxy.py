"""`HumanProxy`: a person's seat in the team — a sink for messages and a way to answer."""

from __future__ import annotations

import logging

from retinue.actors.address import ActorAddress
from retinue.actors.user_proxy import UserProxy
from retinue.agent.messages import AgentMessage

logger = logging.getLogger(__name__)


class HumanProxy(UserProxy):
    """Override `on_agent_message` to show messages to the person (console, socket, chat)."""

    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        self.on_agent_message(message, sender)

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        """Where a message for the person lands; the base class only logs it."""
        logger.info(
            "%s <- %s (%s): %s",
            self.myAddress.name,
            sender.name if sender else "outside",
            message.type,
            message.content,
        )

    def process_human_input(self, text: str, original_message: AgentMessage) -> None:
        """Answer the agent that sent `original_message`, as a response in its chain."""
        if original_message.sender is None:
            raise ValueError("the original message has no sender to answer")
        self.send(
            original_message.sender,
            AgentMessage(
                content=text,
                type="response",
                parent_id=original_message.id,
                chain_id=original_message.chain_id,
            ),
        )
