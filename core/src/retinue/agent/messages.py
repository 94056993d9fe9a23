"""`AgentMessage`: the one message type agents talk in, carrying the sender's intent."""

from __future__ import annotations

from typing import Literal

from retinue.actors.errors import one_line
from retinue.actors.messages import Message

#: How much of a message's content one log line shows.
LOG_CONTENT_CHARS = 160

Intent = Literal["request", "response", "notification", "instruction", "acknowledgment"]


class AgentMessage(Message):
    """Content plus intent; the receiver prepends the reply protocol for that intent."""

    type: Intent = "request"
    content: str

    def log_text(self) -> str:
        """`[request] the text...` on one line, bounded: content may be long or hostile."""
        return f"[{self.type}] {one_line(self.content, LOG_CONTENT_CHARS)}"
