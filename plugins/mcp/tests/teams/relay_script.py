"""The scripted models of relay.toml: the Lead relays to the Helper and reports back."""

from __future__ import annotations

import asyncio

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send

WAIT = "wait until stopped"


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A request from the client goes to the Helper; the Helper's answer goes to the client."""
    got = incoming(messages)
    if got.sender == "@Helper":
        return send(info, ("@Client", "response", f"The team's answer: {got.content}"))
    return send(info, ("@Helper", "request", got.content))


async def helper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answer in capitals; a request to wait waits until the run is stopped."""
    got = incoming(messages)
    if WAIT in got.content:
        await asyncio.Event().wait()  # ends only when the run is cancelled
    return send(info, (got.sender, "response", f"{got.content.upper()} = 42"))
