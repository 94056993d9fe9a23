"""A second scripted model for the roster: it answers every message in its own words."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send

TERSE = f"function:{__name__}:terse"


def terse(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    return send(info, (got.sender, "response", f"terse: {got.content}"))
