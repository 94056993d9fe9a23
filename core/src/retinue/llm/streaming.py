"""A run's output, handed to its team's listeners while the model writes it.

Only a run whose team has an `OutputListener` (`retinue.team.streams`) streams: it gets
pydantic-ai's `event_stream_handler`, which makes each model request a streamed one and
validates the output partially as it grows. Every other run is the plain request it was.
The kernel's cancellation ends a streamed request as it ends any other: the run's token.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable
from typing import Any

from pydantic import ValidationError
from pydantic_ai import ModelRetry, RunContext, UnexpectedModelBehavior
from pydantic_ai.messages import AgentStreamEvent
from pydantic_ai.models import Model
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.result import AgentStream

from retinue.team.streams import OutputListener, listeners_here

__all__ = ["DEBOUNCE", "can_stream", "output_stream"]

logger = logging.getLogger(__name__)

#: Seconds the partial output is gathered for before listeners hear it again: validating a
#: growing output costs its length each time, so it is done a few times a second, not per token.
DEBOUNCE = 0.1

EventStreamHandler = Any  # pydantic-ai's `EventStreamHandler[AgentDepsT]`, for any deps


def can_stream(model: Model) -> bool:
    """Whether `model` answers streamed requests (a scripted function needs a stream function)."""
    if isinstance(model, FunctionModel):
        return model.stream_function is not None
    if isinstance(model, WrapperModel):
        return can_stream(model.wrapped)
    if isinstance(model, FallbackModel):
        return all(can_stream(each) for each in model.models)
    return True


def output_stream(agent: str, run_id: str, model: Model) -> EventStreamHandler | None:
    """The `event_stream_handler` for one run of `agent` on `model`; None: nobody listens."""
    listeners = listeners_here()
    if not listeners or not can_stream(model):
        return None

    async def handle(ctx: RunContext[Any], events: AsyncIterable[AgentStreamEvent]) -> None:
        if not isinstance(events, AgentStream):  # a tool-calling step: nothing is written
            return
        async for response in events.stream_response(debounce_by=DEBOUNCE):
            try:
                output = await events.validate_response_output(response, allow_partial=True)
            except (ValidationError, ModelRetry, UnexpectedModelBehavior):
                continue  # no output yet (text, a tool call), or a piece that cannot parse yet
            _tell(listeners, agent, run_id, output)

    return handle


def _tell(listeners: tuple[OutputListener, ...], agent: str, run_id: str, output: Any) -> None:
    for listener in listeners:
        try:
            listener.on_output(agent, run_id, output)
        except Exception:  # a listener's failure is its own; the run goes on
            logger.exception("output listener %r failed", listener)
