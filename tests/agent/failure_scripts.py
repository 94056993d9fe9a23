"""Scripted models for the failure tests, importable by path (`failure_scripts:name`).

None keeps state between tests: `Hanging`, which counts its runs, is built by each test.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send, text


def unscripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """For a card whose test hands it a model of its own."""
    raise AssertionError("this agent's test gave it no script and no model")


def delegates_to_dev(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands the person's request to `@Dev`; tells the person how a failure notice read."""
    got = incoming(messages)
    if got.intent == "failure":
        return send(info, ("@Human", "response", f"could not get it done ({got.sender})"))
    if got.sender == "@Human":
        return send(info, ("@Dev", "request", "do the work"))
    return send(info, ("@Human", "response", "done: " + got.content))


def delegates_to_worker_twice(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands two pieces of work to `@Worker` at once; reports a failure notice to the person."""
    got = incoming(messages)
    if got.intent == "failure":
        return send(info, ("@Human", "response", f"could not get it done ({got.sender})"))
    if got.sender == "@Human":
        return send(info, ("@Worker", "request", "first"), ("@Worker", "request", "second"))
    return send(info)


def hires_developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hires a Developer by naming the role; reports a failure notice to the person."""
    got = incoming(messages)
    if got.intent == "failure":
        return send(info, ("@Human", "response", f"could not get it done ({got.sender})"))
    return send(info, ("Developer", "request", "build it"))


def hires_again_on_failure(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hires a Developer, and on any failure notice hires another one (a would-be loop)."""
    return send(info, ("Developer", "request", "build it"))


def retries_dev(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands the work to `@Dev`, and hands it again on every failure (a would-be loop)."""
    got = incoming(messages)
    if got.intent == "failure":
        return send(info, ("@Dev", "request", "try again"))
    return send(info, ("@Dev", "request", "do the work"))


def fails_on_failure(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands the work to `@Dev`; raises when told that `@Dev` failed (a would-be loop)."""
    got = incoming(messages)
    if got.intent == "failure":
        raise RuntimeError("manager broke on the notice")
    return send(info, ("@Dev", "request", "do the work"))


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model call itself raises."""
    raise RuntimeError("model exploded")


def wrong_types(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers through the output tool with arguments of the wrong types, every time."""
    bad: dict[str, Any] = {"messages": [{"recipient": 5, "message_type": "shout"}]}
    return ModelResponse(parts=[ToolCallPart(tool_name=info.output_tools[0].name, args=bad)])


def text_only(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers in prose instead of calling the output tool, every time."""
    return text("I would rather just talk about it.")


def ten_megabytes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers with 10 MB of prose, every time."""
    return text("blah " * 2_000_000)


class Hanging:
    """A model whose runs await an event nobody sets: they end by a timeout, a stop or shutdown.

    `started` is set once `expected` runs are in flight. Each test builds its own and hands
    it to its agents (`TeamHarness.add(..., model=Hanging(n))`).
    """

    def __init__(self, expected: int = 1) -> None:
        self.expected = expected
        self.started = threading.Event()
        self._count = 0
        self._lock = threading.Lock()

    async def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self._lock:
            self._count += 1
            if self._count >= self.expected:
                self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")
