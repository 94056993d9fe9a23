"""Scripted models for the otel tests, named by import path (`otel_scripts:explodes`)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, send


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model itself fails, as a provider outage would."""
    raise RuntimeError("provider outage")


def pings_forever(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Takes `ping` steps until its run runs out; with no tool offered, answers its sender."""
    if not info.function_tools:
        return send(info, (incoming(messages).sender, "response", "out of budget"))
    return call_tool("ping")


def answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers its sender at once."""
    return send(info, (incoming(messages).sender, "response", "done"))


def to_nobody(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes to a member nobody has heard of, then to its sender."""
    got = incoming(messages)
    return send(info, ("@Nobody", "request", "hello?"), (got.sender, "response", "sent"))


def pings_and_cannot_conclude(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Takes `ping` steps until its run runs out; the tool-free conclusion fails too."""
    if not info.function_tools:
        raise RuntimeError("no answer without tools")
    return call_tool("ping")
