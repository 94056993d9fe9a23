"""Helpers for scripted models: read what an agent was told, answer as a model would.

A `FunctionModel` function receives the conversation and an `AgentInfo`; these helpers let
it read the latest prompt and reply with structured output or tool calls in one line::

    def manager(messages, info):
        if incoming(messages).sender == "@Human":
            return send(info, ("Developer", "request", "Write the parser"))
        return send(info, ("@Human", "response", "Done"))

A script reads what a model would read: the conversation. `incoming` reads who sent the
message from the fence the kernel wrote around it, never from words in the content. Where
one function serves several agents, `agent_name(info)` says which one is asking, and
`run_messages` cuts the conversation to the run being answered (earlier runs' tool results
are history, not this run's progress).
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
    RetryFeedbackPart,
    RetryPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo

from retinue.agent.incoming import find_fences


def user_texts(messages: Sequence[ModelMessage]) -> list[str]:
    """Every user-prompt text in the conversation, oldest first (one string per part)."""
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
                    texts.append("".join(_text_of(item) for item in content))
    return texts


def _text_of(item: object) -> str:
    """The text of one prompt item (a context-update block is a `TextContent`); media: none."""
    if isinstance(item, str):
        return item
    return item.content if isinstance(item, TextContent) else ""


_DEFAULT_OUTPUT_TOOL = "final_result"  # pydantic-ai's name (and prefix) for output tools


def run_messages(
    messages: Sequence[ModelMessage], info: AgentInfo | None = None
) -> list[ModelMessage]:
    """The messages of the run being answered: from its prompt to the latest request.

    Earlier runs are history: their tool results are not this run's progress. Run ids cannot
    tell where the run began, because the model is shown a new run's prompt merged with the
    requests before it (and a mid-run notice merged with tool results) without a stamp. So
    the run starts after the latest response that ended a run (it called no function tool
    and was not sent back for a retry), or at the latest request holding a message fence,
    whichever comes later: the fence marks a `BaseAgent`'s prompt even where the previous
    run was cut off in the middle. `info` names the output tools; without it, tools
    named like pydantic-ai's default output tool (`final_result...`) are taken for them.
    """
    outputs = {tool.name for tool in info.output_tools} if info is not None else None
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            if find_fences("\n".join(user_texts([message]))):
                start = index
        elif _ends_run(message, messages[index + 1 : index + 2], outputs):
            start = index + 1
    return list(messages[start:])


def _ends_run(
    response: ModelResponse, after: Sequence[ModelMessage], outputs: set[str] | None
) -> bool:
    """Whether the run stopped at `response`: no function tool called, no retry asked for."""
    for part in response.parts:
        if isinstance(part, ToolCallPart):
            is_output = (
                part.tool_name in outputs
                if outputs is not None
                else part.tool_name.startswith(_DEFAULT_OUTPUT_TOOL)
            )
            if not is_output:
                return False
    return not any(
        _asks_a_retry(part)
        for message in after
        if isinstance(message, ModelRequest)
        for part in message.parts
    )


def _asks_a_retry(part: object) -> bool:
    """A part sending the model back to try again (older pydantic-ai: `RetryPromptPart`)."""
    if isinstance(part, RetryFeedbackPart | RetryPromptPart):
        return True
    return isinstance(part, ToolReturnPart) and part.outcome == "retried"


def last_prompt(messages: Sequence[ModelMessage]) -> str:
    """The user-prompt text of the latest request (all of its prompt parts joined)."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            texts = user_texts([message])
            if texts:
                return "\n".join(texts)
    return ""


class Incoming(NamedTuple):
    """The message a run answers: its intent, its sender and its raw content."""

    intent: str
    sender: str
    content: str


def incoming(messages: Sequence[ModelMessage]) -> Incoming:
    """The message this run answers, read from the fence the kernel put around its content.

    The sender and intent are read from the line the kernel writes before the fence: a content
    that imitates a header or a fence is escaped inside it and never read as one. The content
    is what the model was shown (such imitations stay escaped). Context updates may precede
    the message in the same prompt. The run's own prompt is read, not merely the latest one:
    a notice of mail arriving mid-run is a later prompt of the same run, and would otherwise
    hide the message being handled. Without a fence (a custom agent's own prompt) the intent
    and sender are empty and the content is the latest prompt.
    """
    for message in reversed(run_messages(messages)):
        if not isinstance(message, ModelRequest):
            continue
        fences = find_fences("\n".join(user_texts([message])))
        if fences:
            last = fences[-1]
            return Incoming(last.intent, last.sender, last.body)
    return Incoming("", "", last_prompt(messages))


def incoming_messages(messages: Sequence[ModelMessage]) -> list[Incoming]:
    """Every message this run answers, oldest first: one, or several queued answers that
    reached the agent together in one turn (`incoming` is the last of them)."""
    for message in reversed(run_messages(messages)):
        if not isinstance(message, ModelRequest):
            continue
        fences = find_fences("\n".join(user_texts([message])))
        if fences:
            return [Incoming(f.intent, f.sender, f.body) for f in fences]
    return []


def received(messages: Sequence[ModelMessage]) -> list[Incoming]:
    """Every message the conversation's prompts delivered, oldest first (earlier runs too)."""
    return [
        Incoming(f.intent, f.sender, f.body)
        for text in user_texts(messages)
        for f in find_fences(text)
    ]


_AGENT_NAME = re.compile(r"^You are (@.+?); today is ", re.MULTILINE)


def agent_name(info: AgentInfo) -> str:
    """The name of the agent asking, read from its system block (`BaseAgent`'s identity line).

    One script often serves several agents; this tells them apart. Raises `ValueError` when
    the instructions carry no identity line (a bare pydantic-ai agent, a custom system block).
    """
    match = _AGENT_NAME.search(info.instructions or "")
    if match is None:
        raise ValueError("the instructions name no agent (no 'You are @Name; today is ...')")
    return match.group(1)


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
