"""The scripted model of thanks.toml: whoever writes is thanked, the same words each time;
the person's message makes @Alpha thank Beta (hired on the first thanks)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send


def thank(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    to = "Beta" if got.sender == "@Human" else got.sender
    return send(info, (to, "notification", "Thank you so much! Really appreciated."))
