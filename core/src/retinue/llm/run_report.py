"""What a finished run leaves behind: the history it commits and the events that report it.

However a run ends (an answer, an error, an interrupt, a timeout), what it did is kept: its
messages are appended to the history it was given, repaired when it broke off so the next
run accepts them, and reported one event each, so replaying the events rebuilds exactly
this history. pydantic-ai's endings are named here in this layer's errors.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_ai.exceptions import RunCancelled, RunTimedOut, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart

from retinue.llm import history
from retinue.llm.errors import RunInterruptedError, RunTimeoutError, RunUsageLimitError
from retinue.llm.events import (
    ContextResetEvent,
    LlmEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    ToolCallEvent,
)
from retinue.llm.response_usage import usage_event
from retinue.llm.run_hooks import RunState
from retinue.llm.usage import RunUsageSummary

logger = logging.getLogger(__name__)


@dataclass
class Outcome:
    """How a run ended, as the model loop hands it back: what it did, and its answer or error."""

    messages: list[ModelMessage]
    output: Any = None
    error: BaseException | None = None


def committed(
    state: RunState, before: Sequence[ModelMessage], outcome: Outcome
) -> tuple[list[ModelMessage], list[ModelMessage]]:
    """The history after the run, and the messages to report (what compaction dropped first).

    A broken-off run is repaired before it is reported, so the events replay to this very
    history (the history given to the run is valid: only the run's own part can break). Its
    messages are appended to that history, unless the run compacted the history itself.
    """
    start = history.first_index_of_run(outcome.messages, state.run_id)
    new = outcome.messages[start:] if start is not None else []
    if outcome.error is not None:
        new = history.repair(new)
    messages = list(outcome.messages) if state.compacted else [*before, *new]
    if outcome.error is not None and state.compacted:
        messages = history.repair(messages)
    return messages, [*state.dropped, *new]


def message_events(
    agent_name: str, state: RunState, messages: Sequence[ModelMessage]
) -> Iterator[LlmEvent]:
    """Each message as an event; a response also as its usage and its tool calls.

    A call of a tool that ends the run (an output tool) is the answer, not a tool call. A
    change of the tool definitions offered comes just before the answer to the request that
    offered them (a request that got none: at the end), so a reader of the record finds
    each answer's definitions before it.
    """
    run_id = state.run_id
    changes, responses = state.tool_definitions, 0
    for message in messages:
        if changes and isinstance(message, ModelResponse):
            while changes and changes[0][0] <= responses:
                yield changes.pop(0)[1]
        yield ModelMessageEvent(agent_name=agent_name, run_id=run_id, message=message)
        if not isinstance(message, ModelResponse):
            continue
        responses += 1
        yield usage_event(agent_name, message, run_id)
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.tool_name not in state.output_tools:
                yield ToolCallEvent(
                    agent_name=agent_name,
                    run_id=run_id,
                    tool_name=part.tool_name,
                    args=part.args,
                    tool_call_id=part.tool_call_id,
                )
    for _, event in changes:
        yield event
    changes.clear()


def compaction_event(
    agent_name: str, run_id: str, messages: Sequence[ModelMessage]
) -> ContextResetEvent:
    """The history a run compacted, whole: a replay cannot rebuild it from appends."""
    return ContextResetEvent(
        agent_name=agent_name,
        run_id=run_id,
        reason="compact",
        messages=list(messages),
    )


def run_error(
    agent_name: str, run_id: str, error: BaseException | None, run_timeout: float
) -> BaseException | None:
    """pydantic-ai's endings in this layer's vocabulary (the original as the cause)."""
    if error is None or isinstance(error, RunInterruptedError | RunTimeoutError):
        return error
    if isinstance(error, RunTimedOut):
        mapped: BaseException = RunTimeoutError(run_id, run_timeout)
    elif isinstance(error, RunCancelled):
        mapped = RunInterruptedError(run_id)
    elif isinstance(error, UsageLimitExceeded):
        mapped = RunUsageLimitError(f"agent {agent_name!r}, run {run_id}: {error}")
    else:
        return error
    mapped.__cause__ = error
    return mapped


def finished_event(agent_name: str, run_id: str, error: BaseException | None) -> RunFinishedEvent:
    """How the run ended: the last event it reports."""
    return RunFinishedEvent(
        agent_name=agent_name,
        run_id=run_id,
        status=status_of(error),
        error=None if error is None else f"{type(error).__name__}: {error}",
    )


def status_of(
    error: BaseException | None,
) -> Literal["completed", "interrupted", "usage_limit", "timeout", "failed"]:
    """The status a run's ending is reported with (`RunFinishedEvent.status`)."""
    if error is None:
        return "completed"
    if isinstance(error, RunInterruptedError):
        return "interrupted"
    if isinstance(error, RunUsageLimitError):
        return "usage_limit"
    if isinstance(error, TimeoutError):
        return "timeout"
    return "failed"


def describe_usage(usage: RunUsageSummary | None) -> str:
    """`2 requests, 340 tokens (300 in, 40 out), $0.0012`: a run's cost in a log line."""
    if usage is None:
        return "usage unknown"
    plural = "request" if usage.requests == 1 else "requests"
    text = (
        f"{usage.requests} {plural}, {usage.total_tokens} tokens "
        f"({usage.input_tokens} in, {usage.output_tokens} out)"
    )
    return text if usage.cost_usd is None else f"{text}, ${usage.cost_usd:.4f}"


def log_finished(event: RunFinishedEvent, usage: RunUsageSummary | None) -> None:
    """One INFO line for how a run ended, with what it cost.

    A failed or timed-out run is only DEBUG here: the turn it belonged to fails with it, and
    that failure is logged once, as a WARNING naming the cause.
    """
    level = logging.DEBUG if event.status in ("failed", "timeout") else logging.INFO
    if not logger.isEnabledFor(level):
        return
    how = event.status if event.error is None else f"{event.status} ({event.error})"
    logger.log(
        level,
        "%s: run %s %s: %s",
        event.agent_name,
        (event.run_id or "?")[:8],
        how,
        describe_usage(usage),
    )
