"""Helpers for scripted models: read what an agent was told, answer as a model would.

A `FunctionModel` function receives the conversation and an `AgentInfo`; these helpers let
it read the latest prompt and reply with structured output or tool calls in one line::

    def manager(messages, info):
        if "from @Human" in last_prompt(messages):
            return send(info, ("Developer", "request", "Write the parser"))
        return send(info, ("@Human", "response", "Done"))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo


def user_texts(messages: Sequence[ModelMessage]) -> list[str]:
    """Every user-prompt text in the conversation, oldest first."""
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                content = part.content
                if isinstance(content, str):
                    texts.append(content)
                else:
                    texts.append("".join(c for c in content if isinstance(c, str)))
    return texts


def last_prompt(messages: Sequence[ModelMessage]) -> str:
    """The user-prompt text of the latest request (all of its prompt parts joined)."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            texts = user_texts([message])
            if texts:
                return "\n".join(texts)
    return ""


_HEADER = re.compile(r"^Incoming (\w+) from (\S+?)\. [^\n]*\n\n", re.MULTILINE)


class Incoming(NamedTuple):
    """The message behind the latest prompt: its intent, its sender and its raw content."""

    intent: str
    sender: str
    content: str


def incoming(messages: Sequence[ModelMessage]) -> Incoming:
    """Parse the reply-protocol header of the latest prompt (context updates may precede it)."""
    prompt = last_prompt(messages)
    matches = list(_HEADER.finditer(prompt))
    if not matches:
        return Incoming("", "", prompt)
    last = matches[-1]
    return Incoming(last.group(1), last.group(2), prompt[last.end() :])


def tool_returns(messages: Sequence[ModelMessage]) -> list[ToolReturnPart]:
    """Tool results the model has been shown, oldest first."""
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def output(info: AgentInfo, value: BaseModel | dict[str, Any]) -> ModelResponse:
    """Answer with structured output through the run's output tool."""
    if not info.output_tools:
        raise ValueError("this run offers no output tool; answer with text instead")
    args = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    return ModelResponse(parts=[ToolCallPart(tool_name=info.output_tools[0].name, args=args)])


def send(info: AgentInfo, *requests: tuple[str, str, str]) -> ModelResponse:
    """Answer with a `StructuredOutput` of (recipient, intent, text) triples."""
    return output(
        info,
        {
            "messages": [
                {"recipient": recipient, "message_type": intent, "message": text}
                for recipient, intent, text in requests
            ]
        },
    )


def call_tool(name: str, args: dict[str, Any] | None = None) -> ModelResponse:
    """Ask for one function-tool call."""
    return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args or {})])


def text(content: str) -> ModelResponse:
    """A plain text answer."""
    return ModelResponse(parts=[TextPart(content=content)])
