"""Scripted model functions for the agent tests, importable by path (`agent_scripts:name`).

They keep no state: what an agent's model was shown is read back with
`TeamHarness.model_requests`, and a script that needs the test's own state (an event to
wait on, a list to fill) is a closure the test hands its agent (`TeamHarness.add(...,
model=...)`), so no test depends on what another one left behind.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, last_prompt, send


def unscripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The default of `agent_cards.card`: a card whose test meant to hand it a model."""
    raise AssertionError("this agent's test gave it no script and no model")


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegates the human's request to a Developer, then answers the human."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + got.content))


def manager_to_member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Like `manager`, but delegates to an existing `@Developer`."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + got.content))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever asked."""
    return send(info, (incoming(messages).sender, "response", "plan ready"))


def silent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Absorbs every message and sends nothing."""
    return send(info)


def to_nobody(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Always names a member the team does not have."""
    return send(info, ("@Nobody", "request", "hello?"))


def corrects_after_retry(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Names @Nobody first; once told the recipient cannot be reached, answers the human."""
    told = any(
        "cannot be reached" in str(getattr(p, "content", ""))
        for m in messages
        for p in getattr(m, "parts", [])
    )
    if told:
        return send(info, ("@Human", "response", "fixed"))
    return send(info, ("@Nobody", "request", "hello?"))


def hires_ghost(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Tries to hire a role that was never registered."""
    return send(info, ("Ghost", "request", "boo"))


def fire_writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes a slash command into a message to another agent."""
    return send(info, ("@Target", "request", "/fire_member @Target"))


def tool_looper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls the `ping` tool forever (breaches the run tier), concludes when tools are gone."""
    if not info.function_tools:
        return send(info, ("@Human", "response", "partial: " + last_prompt(messages)[:40]))
    return call_tool("ping")


def tool_looper_fails_conclusion(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Breaches the run tier, then fails the conclusion too."""
    if not info.function_tools:
        raise RuntimeError("model exploded while concluding")
    return call_tool("ping")


def tool_looper_silent_conclusion(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Breaches the run tier, then concludes with nothing to send."""
    if not info.function_tools:
        return send(info)
    return call_tool("ping")


def triage_looper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """For CustomAgent: loops on `ping`, concludes with a TriageOutput hand-off."""
    from retinue.testing import output

    if not info.function_tools:
        return output(info, {"handoffs": [{"recipient": "@Helper", "task": "finish triage"}]})
    return call_tool("ping")


def triage_once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """For CustomAgent: hands the batch to @Helper straight away."""
    from retinue.testing import output

    return output(info, {"handoffs": [{"recipient": "@Helper", "task": "do it"}]})


def clear_writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes a slash command into a message to another agent."""
    return send(info, ("@Target", "request", "/clear"))


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model itself fails, as a provider outage would."""
    raise RuntimeError("provider outage")


def triage_ghost_then_human(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands one piece to a role nobody can hire, and the answer to the human."""
    from retinue.testing import output

    return output(
        info,
        {
            "handoffs": [
                {"recipient": "Ghost", "task": "haunt the backlog"},
                {"recipient": "@Human", "task": "here is your answer"},
            ]
        },
    )


def tool_looper_mixed_conclusion(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Breaches the run tier; concludes with the answer and one recipient the team lacks."""
    if not info.function_tools:
        return send(
            info,
            ("@Nobody", "notification", "fyi"),
            ("@Human", "response", "partial: here is what I found"),
        )
    return call_tool("ping")
