"""Scripted models and a card whose tools misbehave, for the containment and stop tests.

Nearly everything here is synchronous on purpose: pydantic-ai runs sync model functions and
sync tools in worker threads, which is where a blocked call or a `SystemExit` used to escape.
Each blocking call waits on `gate`, an event the test opens; `entered` says the call is in,
`returned` that it came back (after which its result must be thrown away).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, ToolCard
from retinue.testing import call_tool, incoming, run_messages, scripted_card, send, tool_returns

gate = threading.Event()
entered = threading.Event()
returned = threading.Event()
#: Released once for every call that blocked (at the gate, or parked on the loop).
arrivals = threading.Semaphore(0)
#: How long a blocked call waits for the gate before giving up (a failing test must end).
GATE_TIMEOUT = 60.0


def reset() -> None:
    """Close the gate and forget earlier calls (tests call this first)."""
    gate.clear()
    entered.clear()
    returned.clear()
    while arrivals.acquire(blocking=False):
        pass


def _block() -> None:
    entered.set()
    arrivals.release()
    gate.wait(GATE_TIMEOUT)
    returned.set()


def blocking_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Sync: a message saying `block` parks the request at the gate; others answer at once."""
    got = incoming(messages)
    if got.content == "block":
        _block()
        return send(info, ("@Human", "response", "late: block"))
    return send(info, ("@Human", "response", "done: " + got.content))


async def parked_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Async: every request waits on the loop until the run is cancelled."""
    arrivals.release()
    await asyncio.Event().wait()
    return send(info)


def calls_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Sync: calls the tool the message names (once), then answers with what it returned."""
    got = incoming(messages)
    this_run = run_messages(messages, info)
    made = {
        part.tool_call_id
        for message in this_run
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    }
    if got.content.startswith("call ") and not made:
        return call_tool(got.content.removeprefix("call ").strip())
    results = [r.content for r in tool_returns(this_run) if r.tool_call_id in made]
    said = results[-1] if results else "nothing"
    return send(info, ("@Human", "response", f"done: {got.content} -> {said}"))


def raises_in_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Sync: `exit` raises SystemExit, `interrupt` KeyboardInterrupt, anything else answers."""
    got = incoming(messages)
    if got.content == "exit":
        raise SystemExit(3)
    if got.content == "interrupt":
        raise KeyboardInterrupt
    return send(info, ("@Human", "response", "done: " + got.content))


class HazardTool(ToolCard):
    """Tools that do what a careless tool might: exit, block, ask their own agent."""

    name: ClassVar[str] = "hazard"

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [
            self.exit_process,
            self.press_ctrl_c,
            self.wait_for_gate,
            self.ask_myself,
            self.ask_myself_async,
        ]

    def exit_process(self) -> str:
        """Exit."""
        raise SystemExit(4)

    def press_ctrl_c(self) -> str:
        """Interrupt."""
        raise KeyboardInterrupt

    def wait_for_gate(self) -> str:
        """Wait until the test opens the gate."""
        _block()
        return "the gate opened"

    def ask_myself(self) -> str:
        """Ask this very agent for its usage, blocking (from a worker thread)."""
        summary = self.host.system.ask(self.host.myAddress, "get_usage_summary")
        return f"runs: {summary.runs}"

    async def ask_myself_async(self) -> str:
        """Ask this very agent for its usage without blocking the loop."""
        future = self.host.system.ask_future(self.host.myAddress, "get_usage_summary")
        summary = await asyncio.wrap_future(future)
        return f"runs: {summary.runs}"


def card(role: str, script: str, *, tools: Sequence[ToolCard] = ()) -> AgentCard:
    """A card whose agent runs `containment_cards:<script>` with `tools`."""
    return scripted_card(role, f"containment_cards:{script}", tools=tools)
