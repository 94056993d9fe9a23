"""`tool_answer`: a refusal is a retry while the tool's retries last, then the tool's answer.

Real pydantic-ai runs on a `FunctionModel` that calls the tool until it gets an answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from retinue.kit import tool_answer


class RefusalError(ValueError):
    """What the tool says the model got wrong."""


def run(action: Callable[[], object], retries: int = 2) -> list[ModelMessage]:
    """One run whose model calls `lookup` until the tool answers, then stops."""

    def lookup(ctx: RunContext[None]) -> str:
        """Look something up."""
        return tool_answer(ctx, action, RefusalError)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(outcome != "retried" for outcome, _ in returns(messages[-1:])):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("lookup", {})])

    agent = Agent(FunctionModel(model), tools=[Tool(lookup, takes_ctx=True, max_retries=retries)])
    return agent.run_sync("go").all_messages()


def returns(messages: list[ModelMessage]) -> list[tuple[str, object]]:
    """Each tool return of the run: its outcome (`retried` for a retry) and its content."""
    return [
        (part.outcome, part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def test_an_answer_is_the_actions_result_as_text() -> None:
    assert returns(run(lambda: 42)) == [("success", "42")]


def test_a_refusal_is_retried_while_retries_remain_then_answered() -> None:
    refusal = "there is no T4; the board has no tasks yet"

    def refuse() -> str:
        raise RefusalError(refusal)

    assert returns(run(refuse, retries=2)) == [
        ("retried", refusal),
        ("retried", refusal),
        ("success", f"Error: {refusal}"),
    ]


def test_any_other_failure_is_logged_and_answered_without_a_retry(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fail() -> str:
        raise KeyError("board")

    with caplog.at_level(logging.WARNING, logger="retinue.tools.answers"):
        answered = returns(run(fail))

    assert answered == [("success", "Error: lookup failed (KeyError: 'board')")]
    assert [r.getMessage() for r in caplog.records] == ["lookup failed"]
