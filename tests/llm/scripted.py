"""Scripted models for the llm tests: no network, no sleeping, every request recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

Step = ModelResponse | Sequence[ModelResponsePart] | Callable[..., Any]

ANSWER = 42  # what `constant` below is, for the non-callable function-path test


@dataclass
class Seen:
    """One request as the model received it."""

    messages: list[ModelMessage]
    info: AgentInfo


@dataclass
class Script:
    """A FunctionModel that answers with `steps` in order (then the default) and records."""

    steps: list[Step] = field(default_factory=list)
    default: Step = field(default_factory=lambda: [TextPart("done")])
    usage: RequestUsage | None = None
    model_name: str = "scripted"
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = FunctionModel(self._respond, model_name=self.model_name)

    async def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(Seen(list(messages), info))
        step = self.steps.pop(0) if self.steps else self.default
        if callable(step):
            step = step(messages, info)
            if hasattr(step, "__await__"):
                step = await step
        if isinstance(step, ModelResponse):
            return step
        response = ModelResponse(parts=list(step))
        if self.usage is not None:
            response.usage = RequestUsage(
                input_tokens=self.usage.input_tokens, output_tokens=self.usage.output_tokens
            )
        return response

    @property
    def requests(self) -> int:
        return len(self.seen)


def call(tool: str, **args: Any) -> list[ModelResponsePart]:
    """A response that calls one tool."""
    return [ToolCallPart(tool, args)]


def assert_valid_history(messages: Sequence[ModelMessage]) -> None:
    """Every tool result answers an earlier call, and every call has a result."""
    open_calls: set[str] = set()
    for message in messages:
        if isinstance(message, ModelResponse):
            open_calls |= {p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart)}
        elif isinstance(message, ModelRequest):
            assert message.parts, "an empty request in the history"
            for part in message.parts:
                if isinstance(part, ToolReturnPart):
                    assert part.tool_call_id in open_calls, f"orphan result {part.tool_call_id}"
                    open_calls.discard(part.tool_call_id)
    assert not open_calls, f"tool calls without a result: {open_calls}"


# ---------------------------------------------------------------- functions named by path


def echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Sync: answers with the last user prompt."""
    last = messages[-1]
    text = next((str(p.content) for p in last.parts if p.part_kind == "user-prompt"), "")
    return ModelResponse(parts=[TextPart(f"echo: {text}")])


async def async_echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Async: the same answer as `echo`, after letting other runs on the loop go first."""
    await asyncio.sleep(0)  # sleep-ok: yields to the loop once, no waiting
    return echo(messages, info)


async def stream_echo(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Stream function: yields the answer in two chunks."""
    yield "echo: "
    yield "streamed"


constant = ANSWER
