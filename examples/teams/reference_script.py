"""Scripted models for reference.toml: the Lead asks the Researcher, then answers the person."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The person's question goes to the Researcher; the Researcher's answer to the person."""
    got = incoming(messages)
    if got.sender == "@Researcher":
        person = incoming(messages[:1]).sender
        return send(info, (person, "response", f"Our researcher says: {got.content}"))
    return send(info, ("@Researcher", "request", got.content))


def researcher(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """One finding per question."""
    got = incoming(messages)
    return send(info, (got.sender, "response", f"a finding about {got.content!r}"))
