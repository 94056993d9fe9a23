"""`AgentMessage`: the one message type agents talk in, carrying the sender's intent."""

from __future__ import annotations

from typing import Literal

from retinue.actors.messages import Message

Intent = Literal["request", "response", "notification", "instruction", "acknowledgment"]


class AgentMessage(Message):
    """Content plus intent; the receiver prepends the reply protocol for that intent."""

    type: Intent = "request"
    content: str
