"""`HumanProxy`: a person's seat in the team — a sink for messages and a way to answer."""

from __future__ import annotations

import logging

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.actors.surface import remote
from retinue.actors.user_proxy import UserProxy
from retinue.agent.failures import FailureNotice, delivery_notice
from retinue.agent.messages import AgentMessage

logger = logging.getLogger(__name__)


class HumanProxy(UserProxy):
    """Override `on_agent_message` to show messages to the person (console, socket, chat)."""

    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        self.on_agent_message(message, sender)

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        """Where a message for the person lands; the base class only logs it (at DEBUG: the
        delivery is logged at INFO already)."""
        logger.debug(
            "%s <- %s (%s): %s",
            self.myAddress.name,
            sender.name if sender else "outside",
            message.type,
            message.content,
        )

    def undeliverable_notice(self, message: Message, recipient: ActorAddress) -> Message | None:
        """Whatever the person sent that went nowhere, they are told in one line.

        Any intent, not only requests: a person has no other way to learn that their words
        were not read. Never for a failure notice (a notice never causes another).
        """
        if not isinstance(message, AgentMessage) or isinstance(message, FailureNotice):
            return None
        return delivery_notice(message, recipient, self.myAddress)

    @remote
    def process_human_input(self, text: str, original_message: AgentMessage) -> None:
        """Answer the agent that sent `original_message`, as a response in its chain (and in
        its trace)."""
        if original_message.sender is None:
            raise ValueError("the original message has no sender to answer")
        self.send(
            original_message.sender,
            AgentMessage(
                content=text,
                type="response",
                parent_id=original_message.id,
                chain_id=original_message.chain_id,
                trace_context=original_message.trace_context,
            ),
        )
