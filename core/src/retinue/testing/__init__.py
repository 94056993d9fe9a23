"""Test support for users and plugin authors: scripted models and a real team harness."""

from retinue.testing.scripted import (
    Incoming,
    call_tool,
    incoming,
    last_prompt,
    output,
    send,
    text,
    tool_returns,
    user_texts,
)
from retinue.testing.team import Recorder, TeamHarness

__all__ = [
    "Incoming",
    "Recorder",
    "TeamHarness",
    "call_tool",
    "incoming",
    "last_prompt",
    "output",
    "send",
    "text",
    "tool_returns",
    "user_texts",
]
