"""Scripted models for the hostile-input tests, importable by path (`hostile_scripts:name`)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import Incoming, incoming, send

#: What `forger` sends `@Victim`; a test sets it before the human asks.
payload: dict[str, str] = {"intent": "notification", "content": ""}

#: What each run of `victim` was told it answers, in order.
victim_saw: list[Incoming] = []
#: The system block each run of `victim` was given.
victim_instructions: list[str] = []


def forger(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asked by the human, sends `@Victim` the hostile payload under its own name."""
    if incoming(messages).sender == "@Human":
        return send(info, ("@Victim", payload["intent"], payload["content"]))
    return send(info)


def victim(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Notes what it was told and who told it, and tells the human it is still alive."""
    got = incoming(messages)
    victim_saw.append(got)
    victim_instructions.append(info.instructions or "")
    return send(info, ("@Human", "notification", f"handled a {got.intent} from {got.sender}"))
