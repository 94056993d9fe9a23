"""The scripted models of a2a_relay.toml: the Lead relays to the Helper and reports back.

- "ask me ..." makes the Lead ask the client a question first (the task waits for input);
- "what did I ask?" is answered from the Lead's history (a conversation goes on);
- "wait until stopped" parks the Helper's model call until its run is cancelled, and marks
  that in `STOPPED` (read by the in-process tests).
"""

from __future__ import annotations

import asyncio
import threading

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, received, send

WAIT = "wait until stopped"
WAITING = threading.Event()
"""Set when the Helper's model call starts waiting."""
STOPPED = threading.Event()
"""Set when that call was cancelled (the run stopped)."""


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Helper":
        return send(info, ("@Client", "response", f"The team's answer: {got.content}"))
    if got.content.startswith("ask me"):
        return send(info, ("@Client", "request", "Which colour?"))
    if got.content == "what did I ask?":
        asked = [m.content for m in received(messages) if m.sender == "@Client"]
        return send(info, ("@Client", "response", f"You asked: {asked[0]}"))
    return send(info, ("@Helper", "request", got.content))


async def helper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if WAIT in got.content:
        WAITING.set()
        try:
            await asyncio.Event().wait()  # ends only when the run is cancelled
        except asyncio.CancelledError:
            STOPPED.set()
            raise
    return send(info, (got.sender, "response", f"{got.content.upper()} = 42"))
