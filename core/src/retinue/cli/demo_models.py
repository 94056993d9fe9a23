"""Scripted models for the offline demo: deterministic, instant, no API key.

Each function plays one role the way a real model would be asked to, reading the reply
protocol header of its latest prompt and answering with structured output.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo

from retinue.testing.scripted import incoming, received, send


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Splits the human's request between a developer and QA, then reports back."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(
            info,
            ("Developer", "request", f"Draft an implementation plan for: {got.content}"),
            ("QA", "request", f"List the main risks of: {got.content}"),
        )
    answered = {got.sender for got in received(messages) if got.intent == "response"}
    if {"@Developer", "@QA"} <= answered:
        return send(
            info,
            (
                "@Human",
                "response",
                "The plan is ready: the developer drafted three steps and QA flagged two "
                "risks, both covered by the tests in step 3.",
            ),
        )
    return send(info)  # wait for the other answer


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers with a short plan."""
    got = incoming(messages)
    return send(
        info,
        (
            got.sender,
            "response",
            "1. parse the arguments  2. do the work in a pure function  3. test both",
        ),
    )


def qa(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers with the risks it sees."""
    got = incoming(messages)
    return send(info, (got.sender, "response", "risks: bad input paths; unclear errors"))


def echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever wrote by quoting them: an offline partner for `retinue chat`."""
    got = incoming(messages)
    return send(info, (got.sender, "response", f"You said: {got.content}"))
