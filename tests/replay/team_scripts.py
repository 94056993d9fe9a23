"""The scripted models of the replay tests' teams, and the model their cards name.

The cards of a recorded team name `explode`, and the test hands each role its script as a
model override: a replay that fell back to the configured model would fail loudly.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, run_messages, send, tool_returns

EXPLODE = "tests.replay.team_scripts:explode"


def explode(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise AssertionError("a replay called a configured model")


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@Writer", "request", f"Write: {got.content}"))
    if got.sender == "@Writer":
        return send(info, ("@Reviewer", "request", f"Review: {got.content}"))
    return send(info, ("@Human", "response", f"Done: {got.content}"))


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    returns = tool_returns(run_messages(messages, info))
    if not returns:
        return call_tool("workspace_write", {"path": "notes.txt", "content": got.content})
    return send(info, (got.sender, "response", f"{returns[-1].content}"))


def reviewer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    return send(info, (got.sender, "response", f"reviewed ({got.content})"))
