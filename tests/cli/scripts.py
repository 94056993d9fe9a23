"""Scripted models for the in-process console tests (imported as `cli.scripts`)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError("model exploded")
