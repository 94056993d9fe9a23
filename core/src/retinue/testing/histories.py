"""What an agent's model was shown and what its tools returned, read back from its events.

Every agent already publishes its history as events (`ModelMessageEvent` for each message it
keeps, `ContextResetEvent` when the history is replaced, `ToolCallEvent` for each function
tool it calls): the record a store replays to restore an agent. Reading that record needs no
hook in the model and no global state, works for any model (scripted, `TestModel`, real) and
still answers after the agent has stopped.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart

from retinue.llm.events import ContextResetEvent, LlmEvent, ModelMessageEvent, ToolCallEvent


def _of(events: Iterable[object], agent: str) -> list[LlmEvent]:
    return [e for e in events if isinstance(e, LlmEvent) and e.agent_name == agent]


def model_requests(events: Iterable[object], agent: str) -> list[list[ModelMessage]]:
    """The conversation `agent`'s model answered, once per model response, oldest first.

    Each entry is the agent's history just before that response: earlier runs, the context
    updates, this run's prompt and the tool results so far. A request cut short before the
    model answered it (an interrupted run) left no response and is not listed.
    """
    history: list[ModelMessage] = []
    requests: list[list[ModelMessage]] = []
    for event in _of(events, agent):
        if isinstance(event, ModelMessageEvent):
            message = event.to_message()
            if isinstance(message, ModelResponse):
                requests.append(list(history))
            history.append(message)
        elif isinstance(event, ContextResetEvent):
            history = event.to_messages()
    return requests


def tool_results(events: Iterable[object], agent: str) -> list[str]:
    """What `agent`'s function tools returned, in order, as the model was shown it.

    Output tools (which end a run) are left out: only calls reported by a `ToolCallEvent`
    count, and the runner reports function tools only. A call cut short by an interruption
    shows the stand-in result the history was repaired with.
    """
    mine = _of(events, agent)
    called = {e.tool_call_id for e in mine if isinstance(e, ToolCallEvent)}
    results: list[str] = []
    for event in mine:
        if not isinstance(event, ModelMessageEvent):
            continue
        message = event.to_message()
        if isinstance(message, ModelRequest):
            results.extend(
                str(part.content)
                for part in message.parts
                if isinstance(part, ToolReturnPart) and part.tool_call_id in called
            )
    return results
