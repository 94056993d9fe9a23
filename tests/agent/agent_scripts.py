"""Scripted model functions for the agent tests, importable by path (`agent_scripts:name`)."""

from __future__ import annotations

import threading
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, last_prompt, send, user_texts

#: Prompts each scripted agent saw, keyed by a label the function chooses.
seen: dict[str, list[str]] = {}


def _log(label: str, messages: list[ModelMessage]) -> str:
    prompt = last_prompt(messages)
    seen.setdefault(label, []).append(prompt)
    return prompt


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegates the human's request to a Developer, then answers the human."""
    _log("manager", messages)
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + got.content))


def manager_to_member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Like `manager`, but delegates to an existing `@Developer`."""
    _log("manager", messages)
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + got.content))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever asked."""
    _log("developer", messages)
    return send(info, (incoming(messages).sender, "response", "plan ready"))


def silent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Absorbs every message and sends nothing."""
    _log("silent", messages)
    return send(info)


def to_nobody(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Always names a member the team does not have."""
    _log("to_nobody", messages)
    return send(info, ("@Nobody", "request", "hello?"))


def corrects_after_retry(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Names @Nobody first; once told the recipient cannot be reached, answers the human."""
    _log("corrects", messages)
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
    _log("ghost", messages)
    return send(info, ("Ghost", "request", "boo"))


def fire_writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes a slash command into a message to another agent."""
    _log("fire_writer", messages)
    return send(info, ("@Target", "request", "/fire_member @Target"))


def tool_looper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls the `ping` tool forever (breaches the run tier), concludes when tools are gone."""
    prompt = _log("looper", messages)
    if not info.function_tools:
        return send(info, ("@Human", "response", "partial: " + prompt[:40]))
    return call_tool("ping")


def tool_looper_fails_conclusion(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Breaches the run tier, then fails the conclusion too."""
    _log("looper_fail", messages)
    if not info.function_tools:
        raise RuntimeError("model exploded while concluding")
    return call_tool("ping")


def tool_looper_silent_conclusion(messages: list[ModelMessage], info: AgentInfo) -> Any:
    """Breaches the run tier, then concludes with nothing to send."""
    _log("looper_silent", messages)
    if not info.function_tools:
        return send(info)
    return call_tool("ping")


#: Coordination for the cancellation and arrival tests (reset and set by the tests).
gate = threading.Event()
entered = threading.Event()


async def _wait_for_gate() -> None:
    """Park this model request until the test opens the gate, without blocking the loop."""
    import asyncio

    entered.set()
    await asyncio.get_running_loop().run_in_executor(None, gate.wait, 10)


def _pinged(messages: list[ModelMessage]) -> bool:
    """Whether the latest request carries a `ping` tool result (this run took a step)."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    last = messages[-1]
    return isinstance(last, ModelRequest) and any(
        isinstance(p, ToolReturnPart) and p.tool_name == "ping" for p in last.parts
    )


async def gated_step(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Task 1 parks its first request at the gate, then takes a `ping` step; all answer."""
    got = incoming(messages)
    _log("gated", messages)
    if _pinged(messages):
        seen.setdefault("gated_after_step", []).append("\n".join(user_texts(messages)))
        return send(info, ("@Human", "response", "done: step"))
    if got.content.startswith("task 1"):
        await _wait_for_gate()
        return call_tool("ping")
    return send(info, ("@Human", "response", "done: " + got.content))


async def gated_final(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Task 1's only (final) request parks at the gate; others answer at once."""
    got = incoming(messages)
    _log("gated", messages)
    if got.content.startswith("task 1"):
        await _wait_for_gate()
    return send(info, ("@Human", "response", "done: " + got.content))


def triage_looper(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """For CustomAgent: loops on `ping`, concludes with a TriageOutput hand-off."""
    from retinue.testing import output

    _log("triage", messages)
    if not info.function_tools:
        return output(info, {"handoffs": [{"recipient": "@Helper", "task": "finish triage"}]})
    return call_tool("ping")


def triage_once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """For CustomAgent: hands the batch to @Helper straight away."""
    from retinue.testing import output

    _log("triage", messages)
    return output(info, {"handoffs": [{"recipient": "@Helper", "task": "do it"}]})


def clear_writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes a slash command into a message to another agent."""
    _log("clear_writer", messages)
    return send(info, ("@Target", "request", "/clear"))


def explodes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model itself fails, as a provider outage would."""
    _log("explodes", messages)
    raise RuntimeError("provider outage")


def triage_ghost_then_human(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Hands one piece to a role nobody can hire, and the answer to the human."""
    from retinue.testing import output

    _log("triage_ghost", messages)
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
    _log("looper_mixed", messages)
    if not info.function_tools:
        return send(
            info,
            ("@Nobody", "notification", "fyi"),
            ("@Human", "response", "partial: here is what I found"),
        )
    return call_tool("ping")
