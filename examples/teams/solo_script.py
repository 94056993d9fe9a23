"""The scripted model of solo.toml: answers whoever wrote, saying what it was asked."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send


def assistant(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """One answer per message: a scripted stand-in for a real model."""
    got = incoming(messages)
    return send(info, (got.sender, "response", f"You asked: {got.content!r}. (scripted answer)"))
