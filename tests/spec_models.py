"""Scripted models for the spec-snippet tests (importable as `tests.spec_models:<name>`)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegates to a Developer it hires by role, then answers the human."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Estimate the sprint"))
    return send(info, ("@Human", "response", f"Sprint planned ({got.content})"))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever asked."""
    return send(info, (incoming(messages).sender, "response", "five days"))
