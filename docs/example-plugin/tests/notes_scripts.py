"""Scripted models for retinue-notes' tests: they answer as a model would, instantly.

`ModelConfig(provider="function", model="notes_scripts:scribe")` runs `scribe` as the
agent's model: a pydantic-ai `FunctionModel` that receives the conversation and answers
with tool calls or structured output, so no test needs a network or an API key.
"""

from __future__ import annotations

import re

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, send, user_texts

_NOTE = re.compile(r"^- #\d+: (?P<note>.+)$", re.MULTILINE)


def scribe(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Notes what follows "Remember:" and passes on the tool's answer; answers anything else
    from the notes its context updates showed it."""
    got = incoming(messages)  # the message this run answers: intent, sender, content
    noted = _take_note_result(messages)
    if noted is not None:
        return send(info, (got.sender, "response", noted))
    if got.content.startswith("Remember:"):
        return call_tool("take_note", {"text": got.content.removeprefix("Remember:").strip()})
    # Everything the model was shown, context updates included: the notes come back there.
    notes = [match["note"] for text in user_texts(messages) for match in _NOTE.finditer(text)]
    return send(info, (got.sender, "response", "From my notes: " + "; ".join(notes)))


def _take_note_result(messages: list[ModelMessage]) -> str | None:
    """What `take_note` answered, when the latest request carries its result."""
    last = messages[-1]
    if isinstance(last, ModelRequest):
        for part in last.parts:
            if isinstance(part, ToolReturnPart) and part.tool_name == "take_note":
                return str(part.content)
    return None
