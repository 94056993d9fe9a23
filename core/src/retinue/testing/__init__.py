"""Test support for users and plugin authors: scripted models and a real team harness."""

from retinue.testing.scripted import (
    call_tool,
    last_prompt,
    output,
    send,
    text,
    tool_returns,
    user_texts,
)
from retinue.testing.team import Recorder, TeamHarness

__all__ = [
    "Recorder",
    "TeamHarness",
    "call_tool",
    "last_prompt",
    "output",
    "send",
    "text",
    "tool_returns",
    "user_texts",
]
