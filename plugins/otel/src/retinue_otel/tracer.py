"""`TurnTracer`: one agent's turns as spans, each a child of the turn that sent its message.

A turn's span is started in the agent's thread with the trace context its message carries as
parent, and made current there, so pydantic-ai's spans (the run, each model request, each
tool) nest under it: the model loop runs each run in a copy of the caller's context. The
turn's own context is what the kernel gives every message the turn sends, so the turn that
handles one of them is its child, whichever agent or thread it runs in. A message from a
person (or from code) gets a short span of its own first, `request from @Human`, the root
of the task chain's trace: it lasts from when the message was written until a turn took it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode
from retinue import (
    AgentConfig,
    AgentMessage,
    AgentUsageLimitError,
    Message,
    RunInterruptedError,
    TeamBudgetExhaustedError,
    UsageLimitError,
    WarningError,
    from_operator,
)

from retinue_otel.events import USAGE_LIMIT, Attributes, TurnRecord
from retinue_otel.propagation import extract, inject

if TYPE_CHECKING:
    from opentelemetry.context import Context

#: The turn in flight in this context, with what it reported so far. A context variable:
#: it follows the turn's work to the model loop and to its tools' worker threads.
_open_turn: ContextVar[tuple[Span, TurnRecord] | None] = ContextVar(
    "retinue_otel_turn", default=None
)


class TurnTracer:
    """The turn observer retinue-otel gives one agent (see `retinue.TurnObserver`)."""

    def __init__(
        self,
        tracer: trace.Tracer,
        config: AgentConfig,
        *,
        include_content: bool,
        aggregated_usage: bool = True,
    ) -> None:
        self._tracer = tracer
        self._name = config.name
        self._role = config.role
        self._model = config.model_cfg
        self._include_content = include_content
        self._aggregated = aggregated_usage
        self._lock = threading.Lock()  # reports may come from a turn's tool threads

    @contextmanager
    def turn(self, message: Message) -> Iterator[Mapping[str, str] | None]:
        parent = self._parent(message)
        span = self._tracer.start_span(
            f"agent turn {self._name}", context=parent, attributes=self._turn_attributes(message)
        )
        record = TurnRecord()
        current = trace.set_span_in_context(span, parent)
        token = otel_context.attach(current)
        open_turn = _open_turn.set((span, record))
        try:
            yield inject(current)
        except BaseException as failure:
            _fail(span, failure, record)
            raise
        else:
            if record.cancelled:
                _cancelled(span)
        finally:
            _open_turn.reset(open_turn)
            otel_context.detach(token)
            span.set_attributes(record.end_attributes(self._aggregated))
            span.end()

    def report(self, message: Message) -> None:
        # The turn whose work reports: a tool of a run abandoned by a cancel may still be
        # running when a later turn has begun, and must not write into that one.
        found = _open_turn.get()
        if found is None or not found[0].is_recording():
            return
        span, record = found
        with self._lock:
            event = record.read(message)
        if event is not None:
            span.add_event(*event)

    # ------------------------------------------------------------------ spans

    def _parent(self, message: Message) -> Context:
        """The context the turn's span starts in: the sender's turn, or the person's request."""
        parent = extract(message.trace_context)
        if not from_operator(message):
            return parent
        sender = message.sender.name if message.sender is not None else "code"
        intent = message.type if isinstance(message, AgentMessage) else type(message).__name__
        attributes: Attributes = {"retinue.sender": sender, **self._ids(message)}
        if self._include_content and isinstance(message, AgentMessage):
            attributes["retinue.message.content"] = message.content
        request = self._tracer.start_span(
            f"{intent} from {sender}",
            context=parent,
            attributes=attributes,
            start_time=int(message.timestamp.timestamp() * 1e9),
        )
        request.end()  # it lasted until this turn took the message
        return trace.set_span_in_context(request, parent)

    def _turn_attributes(self, message: Message) -> Attributes:
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": self._name,
            "gen_ai.provider.name": self._model.provider,
            "gen_ai.request.model": self._model.model,
            "retinue.role": self._role,
            "retinue.message.kind": type(message).__name__,
            **self._ids(message),
        }
        if message.recipient is not None:
            attributes["gen_ai.agent.id"] = message.recipient.agent_id
        if message.sender is not None:
            attributes["retinue.sender"] = message.sender.name
        if isinstance(message, AgentMessage):
            attributes["retinue.message.intent"] = message.type
            if self._include_content:
                attributes["retinue.message.content"] = message.content
        return attributes

    @staticmethod
    def _ids(message: Message) -> Attributes:
        ids = {
            "retinue.team.id": message.team_id,
            "retinue.chain.id": message.chain_id,
            "retinue.message.id": message.id,
            "retinue.parent.id": message.parent_id,
        }
        return {key: value for key, value in ids.items() if value is not None}


def _fail(span: Span, failure: BaseException, record: TurnRecord) -> None:
    """A turn that raised: ERROR, with what raised (a usage limit as its own event too, unless
    the run that hit it said so already)."""
    if isinstance(failure, RunInterruptedError):  # stopped on purpose; act() re-raised it
        _cancelled(span)
        return
    cause = failure.__cause__
    if isinstance(failure, WarningError) and isinstance(cause, UsageLimitError):
        tier = "agent" if isinstance(cause, AgentUsageLimitError) else "run"
        if isinstance(cause, TeamBudgetExhaustedError):
            tier = "team"
        if not (tier == "run" and record.run_breached):
            span.add_event(USAGE_LIMIT, {"retinue.limit.tier": tier, "retinue.reason": str(cause)})
        failure = cause
    span.record_exception(failure)
    span.set_attribute("error.type", type(failure).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(failure).__name__}: {failure}"))


def _cancelled(span: Span) -> None:
    """A turn whose run was stopped (`/stop`, a cancel): ERROR, described as cancelled."""
    span.set_attribute("error.type", "cancelled")
    span.set_status(Status(StatusCode.ERROR, "cancelled: the run was interrupted"))
