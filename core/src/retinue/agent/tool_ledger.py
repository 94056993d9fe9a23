"""The tool-effect ledger: every tool call recorded as started and finished, and, after a
crash, the model told which calls of its interrupted turn may have run.

A call of a tool with effects unknown (not declared `read_only` or `idempotent`) is made
only once its start is committed to the team's record: the orchestrator records it and
commits before it answers (`Orchestrator.record_now`), awaited on the model loop without
blocking it. Any other call's start, and every call's end, is an ordinary report. A team
that records nowhere waits for nothing.

On resume, the agent reads its own recorded events: a start without an end belongs to a
turn that was cut short (a call that finished, or whose turn finished, has an end). When
that turn's message is handled again, its model is told, once, before the run: the calls
that may have run, by name and arguments. Nothing is said of declared tools: they simply
run again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition

from retinue.actors.errors import log_failure
from retinue.actors.messages import EventMessage
from retinue.llm.run_hooks import RunState, ToolHooks
from retinue.llm.tool_calls import ToolCallFinishedEvent, ToolCallStartedEvent
from retinue.llm.tool_effects import effect_of

if TYPE_CHECKING:
    from retinue.agent.agent import BaseAgent

logger = logging.getLogger(__name__)

#: The most characters of one call's arguments a notice quotes.
ARGS_CHARS = 300


class ToolLedger(ToolHooks):
    """One agent's ledger: reports its calls, and keeps the notices a resume owes."""

    def __init__(self, agent: BaseAgent) -> None:
        self._agent = agent
        #: Calls that started and never finished, by the id of their turn's message.
        self._unfinished: dict[str, list[ToolCallStartedEvent]] = {}

    async def tool_starting(
        self, ctx: RunContext[Any], state: RunState, call: ToolCallPart, tool: ToolDefinition
    ) -> None:
        agent = self._agent
        effect = effect_of(tool)
        event = ToolCallStartedEvent(
            agent_name=agent.myAddress.name,
            run_id=state.run_id,
            tool_name=call.tool_name,
            args=call.args,
            tool_call_id=call.tool_call_id,
            effect=effect,
        )
        if effect is not None or getattr(agent.system, "store", None) is None:
            agent.notify_event(event)
            return
        try:
            future = agent.report_durably(EventMessage(event=event))
            if future is not None:
                await asyncio.wait_for(asyncio.wrap_future(future), agent.system.ask_timeout)
        except Exception as exc:  # noqa: BLE001 - the record's trouble never stops the tool
            what = f"{agent.myAddress.name}: the start of {call.tool_name} was not committed"
            log_failure(logger, what, exc, logging.WARNING)

    def tool_finished(
        self, state: RunState, call: ToolCallPart, result: Any, error: BaseException | None
    ) -> None:
        self._agent.notify_event(
            ToolCallFinishedEvent(
                agent_name=self._agent.myAddress.name,
                run_id=state.run_id,
                tool_name=call.tool_name,
                tool_call_id=call.tool_call_id,
                result=result if error is None else None,
                error=None if error is None else f"{type(error).__name__}: {error}",
            )
        )

    # ------------------------------------------------------------------ after a crash
    def restore(self, events: Iterable[object]) -> None:
        """The calls of undeclared effect that started and never finished, by turn."""
        started: dict[str, tuple[str, ToolCallStartedEvent]] = {}
        for item in events:
            if not isinstance(item, EventMessage):
                continue
            event = item.event
            if isinstance(event, ToolCallStartedEvent) and event.effect is None and item.parent_id:
                started[event.tool_call_id] = (item.parent_id, event)
            elif isinstance(event, ToolCallFinishedEvent):
                started.pop(event.tool_call_id, None)
        self._unfinished = {}
        for turn, event in started.values():
            self._unfinished.setdefault(turn, []).append(event)

    def notice_for(self, turn_id: str | None) -> str | None:
        """What the model must hear before it handles message `turn_id` again; once."""
        if not self._unfinished or turn_id is None:
            return None
        calls = self._unfinished.pop(turn_id, None)
        if not calls:
            return None
        seen: dict[str, None] = {}
        for event in calls:
            seen.setdefault(f"{event.tool_name}({_args(event.args)})")
        return (
            "A crash cut your earlier attempt at this message short. These tool calls may "
            f"have run, unknown after crash: {'; '.join(seen)}"
        )


def _args(args: dict[str, Any] | str | None) -> str:
    if args is None:
        return ""
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return text if len(text) <= ARGS_CHARS else text[:ARGS_CHARS] + "…"
