"""Scripted models for the in-process console tests (imported as `tests.cli.scripts`)."""

from __future__ import annotations

import threading

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError("model exploded")


#: Set by a test to let `held` answer.
RELEASE = threading.Event()


def held(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers only once the test sets `RELEASE` (bounded, so a failed test cannot hang)."""
    RELEASE.wait(60)
    return send(info, (incoming(messages).sender, "response", "released"))
