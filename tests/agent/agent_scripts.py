"""Scripted model functions for the agent tests, importable by path (`agent_scripts:name`)."""

from __future__ import annotations

import threading
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, last_prompt, send, user_texts

#: Prompts each scripted agent saw, keyed by a label the function chooses.
seen: dict[str, list[str]] = {}


def _log(label: str, messages: list[ModelMessage]) -> str:
    prompt = last_prompt(messages)
    seen.setdefault(label, []).append(prompt)
    return prompt


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegates the human's request to a Developer, then answers the human."""
    prompt = _log("manager", messages)
    if "from @Human" in prompt:
        return send(info, ("Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + prompt.split("\n\n", 1)[-1]))


def manager_to_member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Like `manager`, but delegates to an existing `@Developer`."""
    prompt = _log("manager", messages)
    if "from @Human" in prompt:
        return send(info, ("@Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + prompt.split("\n\n", 1)[-1]))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever asked."""
    prompt = _log("developer", messages)
    sender = prompt.split(" from ", 1)[1].split(".", 1)[0]
    return send(info, (sender, "response", "plan ready"))


def silent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Absorbs every message and sends nothing."""
    _log("silent", messages)
    return send(info)


def to_nobody(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Always names a member the team does not have."""
    _log("to_nobody", messages)
    return send(info, ("@Nobody", "request", "hello?"))


def corrects_after_retry(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Names @Nobody first; after the correction, answers the human."""
    texts = "\n".join(user_texts(messages))
    _log("corrects", messages)
    retried = any(
        getattr(p, "part_kind", "") == "retry-prompt"
        for m in messages
        for p in getattr(m, "parts", [])
    )
    if retried:
        return send(info, ("@Human", "response", "fixed"))
    del texts
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


#: Coordination for the cancellation tests (set by the test, used by `slow`).
gate = threading.Event()
entered = threading.Event()


async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls `ping` once, then answers; waits on `gate` at the first request of a task."""
    import asyncio

    prompt = _log("slow", messages)
    if "task 1" in prompt and "ping" not in str(messages[-1]):
        entered.set()
        while not gate.is_set():
            await asyncio.sleep(0.005)  # sleep-ok: polls a gate; the test sets it
    if info.function_tools and not any(
        getattr(p, "tool_name", None) == "ping"
        for m in messages
        for p in getattr(m, "parts", [])
        if getattr(p, "part_kind", "") == "tool-return"
    ):
        return call_tool("ping")
    return send(info, ("@Human", "response", "done: " + prompt.split("\n\n", 1)[-1][:30]))
